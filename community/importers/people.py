"""People as upstream files name them: a GitHub handle, maybe with a name and an email.

One rule for every file that names people (kep.yaml authors and approvers, PRR approvers, sigs.yaml leads):
`@handle`, `handle`, `Name (@handle)`, `Name <mail>` with a handle, several `@handles` in one free-text entry
(one person each); a placeholder (`TBD`, `@TBD`, `TODO`, empty) is dropped silently, so no person called TBD is
ever made; an entry without any handle is dropped with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.importing.yaml_text import PLACEHOLDERS, type_error, unquote

__all__ = ["PersonRef", "PresenterRef", "parse_people"]

_HANDLE = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
_HANDLE_RE = re.compile(rf"^{_HANDLE}$")
_SIMPLE_HANDLE_RE = re.compile(rf"^@({_HANDLE})$")
_AT_HANDLE_RE = re.compile(rf"(?<![\w.@])@({_HANDLE})(?![\w.@-])")
_EMAIL_RE = re.compile(r"<?\b([\w.+-]+@[\w-]+(?:\.[\w-]+)+)\b>?")


@dataclass(frozen=True)
class PersonRef:
    """Someone named in an upstream file: a GitHub handle (as written, without @), maybe a name and an email."""

    github: str
    name: str = ""
    email: str = ""

    @property
    def key(self) -> str:
        return self.github.lower()


def parse_people(entries: Iterable, *, source: str, name: str) -> tuple[tuple[PersonRef, ...], list[str]]:
    """People named in a list field, deduplicated case-insensitively (first spelling wins), and warnings."""
    people: dict[str, PersonRef] = {}
    warnings = []
    for index, entry in enumerate(entries):
        if entry is None:  # an empty list item
            continue
        if isinstance(entry, bool) or not isinstance(entry, str | int):
            raise type_error(source, f"{name}[{index}]", "a GitHub handle", entry)
        refs, warning = _parse_person(str(entry))
        if warning:
            warnings.append(f"{source}: {name}[{index}]: {warning}")
        for ref in refs:
            people.setdefault(ref.key, ref)
    return tuple(people.values()), warnings


def _parse_person(raw: str) -> tuple[list[PersonRef], str | None]:
    simple = _SIMPLE_HANDLE_RE.match(raw)
    if simple:  # the common case, "@handle", answered without the searches below
        # "@TBD", "@TODO", "@none": placeholders written as handles are nobody (a person called TBD).
        return ([] if simple.group(1).lower() in PLACEHOLDERS else [PersonRef(github=simple.group(1))]), None
    text = unquote(raw)
    if text.lower() in PLACEHOLDERS:
        return [], None
    email = ""
    email_match = _EMAIL_RE.search(text)
    if email_match:
        email = email_match.group(1)[:254]
        text = (text[: email_match.start()] + text[email_match.end() :]).strip()
    handles = _AT_HANDLE_RE.findall(text)
    handles = [handle for handle in handles if handle.lower() not in PLACEHOLDERS]
    if len(handles) > 1:
        return [PersonRef(github=h) for h in handles], None
    if handles:
        rest = _AT_HANDLE_RE.sub(" ", text)
        display = " ".join(rest.replace("(", " ").replace(")", " ").replace(",", " ").split()).strip(" -:")
        return [PersonRef(github=handles[0], name=display[:200], email=email)], None
    bare = unquote(text).lstrip("@")
    if bare.lower() in PLACEHOLDERS:
        return [], None
    if _HANDLE_RE.match(bare):
        return [PersonRef(github=bare, email=email)], None
    return [], f"no GitHub handle in {raw!r}; dropped"


@dataclass(frozen=True)
class PresenterRef:
    """A GitHub handle as meeting notes write it; `explicit` when written as `@handle` (certainly a handle)."""

    handle: str
    explicit: bool
