"""Who presents an agenda item (`split_presenters`, `split_trailing_presenters`) and who owns an action item
(`owner_of`).

* Presenters (`split_presenters`): a leading `[name/name]`, `[a, b & c]`, `[@name]` or `(name)`; `@handle` is a
  GitHub handle for sure, a single bare word may be one (the service links it only to a Person that exists).
  Without a leading mark, a trailing `[handle]` or `(@handle)` names the presenter (`split_trailing_presenters`,
  2016-2018: "Rktlet status (@alban)"). The 2024+ export escapes Markdown ("\\[minna\\] asking ..."): escapes
  are undone before matching, and a dash after the mark ("[harche] - Looking for reviews") is a separator, not
  part of the title.
"""

from __future__ import annotations

import re

from community.importers.people import PresenterRef

from .inline import _LINK, _SPACES, _unescape
from .records import PRESENTERS_MAX

_PRESENTER_BRACKET = re.compile(r"^\[([^\[\]]{1,200})\](?!\()\s*:?\s*")
_PRESENTER_PAREN = re.compile(r"^\(([^()]{1,80})\)\s*:?\s*")
_NOT_PRESENTERS = re.compile(
    r"(?:done|cut|soft\s+cut|keep|in[-\s]progress|review\s+in\s+progress|wip|tbd|todo|optional|deferred|postponed|"
    r"merged|moved|dropped|removed|punted|skip(?:ped)?|blocked|at\s+risk|tracked|fyi|announcements?|reminder|"
    r"update|discussion|demo|question|kep\b|pr\b|fixed|resolved|approved|lgtm|p\d\b)",
    re.I,
)
# "Isolated PID namespaces in non-docker runtimes [verb]", "Rktlet status (@alban)": the 2016-2018 notes name
# the presenter last. Brackets: one-word handles; parentheses: @handles only ("(5 mins)", "(WIP)" are not people).
_TRAILING_PRESENTERS = re.compile(r"\s*(?:\[([^\[\]]{1,80})\]|\(([^()]{0,80}@[^()]{0,80})\))\s*[.:]?\s*$")
_PRESENTER_SPLIT = re.compile(r"\s*(?:/|,|&|\+|;|\band\b)\s*", re.I)
_HANDLE = re.compile(r"^(@?)([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$")
_PRESENTER_DASH = re.compile(r"^[-–—]+\s+")


def split_trailing_presenters(title: str) -> tuple[str, tuple[PresenterRef, ...], str]:
    """A presenter mark at the end of a clean title -> (text as written, handles, the title without it)."""
    m = _TRAILING_PRESENTERS.search(title)
    if not m or m.start() == 0:
        return "", (), title
    written = (m.group(1) or m.group(2)).strip()
    if _NOT_PRESENTERS.match(written):
        return "", (), title
    refs: list[PresenterRef] = []
    for part in _PRESENTER_SPLIT.split(written):
        handle = _HANDLE.match(part.strip())
        if part.strip() and not (handle and (handle.group(1) or m.group(1))):
            return "", (), title
        if handle and handle.group(2).lower() not in {r.handle.lower() for r in refs}:
            refs.append(PresenterRef(handle.group(2), bool(handle.group(1))))
    if not refs:
        return "", (), title
    return written[:PRESENTERS_MAX], tuple(refs), title[: m.start()].rstrip(" -–—:")


def split_presenters(text: str) -> tuple[str, tuple[PresenterRef, ...], str]:
    """A leading presenter mark -> (text as written, handles, the rest of the line).

    `[a/b]`, `[a, b & c]`, `[@a]`: any content is kept as written, each part that is one word is a possible
    handle. `(a)`: only when every part is one word, so "(joining at 10:30) ..." is not a presenter.
    """
    # Links inside ("[[Paco](url)/Shiming]") or after the mark are reduced to their text; a struck-through
    # item ("~~[klueska] Bug fix~~") still has its presenter.
    stripped = _unescape(_LINK.sub(lambda m: m.group(1).strip() or m.group(2), text)).strip().lstrip("~").strip()
    m = _PRESENTER_BRACKET.match(stripped)
    if m and _NOT_PRESENTERS.match(m.group(1).strip()):
        return "", (), stripped  # "[Done] 281: DynamicKubeletConfig" is a status tag, not a person
    strict = False
    if not m:
        m = _PRESENTER_PAREN.match(stripped)
        strict = True
    if not m:
        return "", (), stripped
    written = _SPACES.sub(" ", m.group(1)).strip()
    refs: list[PresenterRef] = []
    for part in _PRESENTER_SPLIT.split(written):
        part = part.strip().strip("*_`")
        if not part:
            continue
        handle = _HANDLE.match(part)
        if handle:
            ref = PresenterRef(handle.group(2), bool(handle.group(1)))
            if ref.handle.lower() not in {r.handle.lower() for r in refs}:
                refs.append(ref)
        elif strict:
            return "", (), stripped
    if strict and not refs:
        return "", (), stripped
    # "[harche] - Looking for reviews": a dash after the mark separates it from the title.
    rest = _PRESENTER_DASH.sub("", stripped[m.end() :].lstrip("~ "))
    return written[:PRESENTERS_MAX], tuple(refs), rest


_AT_HANDLE = re.compile(r"(?<![\w.@/])@([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))(?![\w.-]*\.\w)")


def owner_of(text: str) -> PresenterRef | None:
    """Who owns an action item: a leading `[handle]`, `AI(handle):`/`Action(handle):`, or the first `@handle`."""
    m = re.match(r"^\W*(?:ai|action(?:\s+item)?)\s*\(\s*@?([A-Za-z0-9][A-Za-z0-9-]{0,38})\s*\)", text, re.I)
    if m:
        return PresenterRef(m.group(1), "@" in text[: m.end()])
    _, refs, _ = split_presenters(text)
    if refs:
        return refs[0]
    m = _AT_HANDLE.search(text)
    return PresenterRef(m.group(1), True) if m else None
