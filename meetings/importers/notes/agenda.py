"""A meeting's agenda: its lines split into items (`split_items`), each item's record (`_make_item`).

* Agenda items (`split_items`): each top-level bullet (`*`, `-`, `+`, `1.`, `1)`; "top level" is the least
  indented bullet of the meeting) starts one item; everything up to the next one is its body.
  Inside a retrospective item, top-level bullets without a presenter that follow a retro list header ("Good:",
  "_Things that went well_", "_AIs_") are that list's entries, not new items (the 2022 export flattens them).
  A heading or list mark repeated inside the bullet ("* # [a/b] Title", "- \\- text") is not part of its text.
  A bullet that is a message of a pasted Zoom chat ("From Mike Danese to Everyone: (10:42 AM)", 2018) is
  discussion of the item above it and joins that item's notes (`_CHAT_MESSAGE`).
* Title: the first line without presenters, as plain text (`clean_inline`), at most 500 characters. Body: the
  nested notes as Markdown, dedented one level.
* Releases (`item_releases`): the release whose retro the item holds, else those its title names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .inline import clean_inline
from .presenters import split_presenters, split_trailing_presenters
from .records import TITLE_MAX, AgendaItemRecord
from .references import item_links, kep_refs, release_mentions
from .retro_headers import _section_header, names_retro, retro_release_of
from .structure import _BlockTracker, _bullet, _indent


@dataclass
class _RawItem:
    line: int
    lines: list[tuple[int, str]]
    retro_release: str | None
    #: The title speaks of a retro without naming its release: its first line that names one does.
    retro_unnamed: bool = False


def item_releases(title: str) -> list[str]:
    """Releases an agenda item is about: the one whose retro it holds, else those its title names."""
    retro = retro_release_of(title)
    return [retro] if retro else release_mentions(title)


def split_items(
    lines: list[tuple[int, str]], blocked: list[bool] | None = None
) -> tuple[list[tuple[int, str]], list[_RawItem]]:
    """A meeting's lines -> (lines before the first agenda item, one raw item per top-level bullet).

    `blocked[i]` says whether line i is in a table or code block (computed here when not given).
    """
    if blocked is None:
        blocks = _BlockTracker()
        blocked = [blocks.feed(no, line) for no, line in lines]
    bullets = [None if inside else _bullet(line) for (_, line), inside in zip(lines, blocked, strict=True)]
    top = min((_indent(m.group(0)) for m in bullets if m), default=0)
    preamble: list[tuple[int, str]] = []
    items: list[_RawItem] = []
    absorb = False
    for (no, line), inside, m in zip(lines, blocked, bullets, strict=True):
        if inside:
            (items[-1].lines if items else preamble).append((no, line))
            continue
        if m and _indent(line) <= top + 1:
            content = (m.group("text") or "").strip()
            current = items[-1] if items else None
            if current and _CHAT_MESSAGE.match(clean_inline(content)):
                current.lines.append((no, line))
                continue
            if current and current.retro_release:
                header = _section_header(content)
                if (absorb and not split_presenters(content)[0]) or header:
                    current.lines.append((no, line))
                    absorb = absorb or bool(header)
                    continue
            title = clean_inline(split_presenters(_INNER_MARK.sub("", content))[2])
            release = retro_release_of(title)
            items.append(_RawItem(no, [(no, line)], release, retro_unnamed=release is None and names_retro(title)))
            absorb = False
            continue
        if not items:
            preamble.append((no, line))
            continue
        items[-1].lines.append((no, line))
        if items[-1].retro_unnamed and m:
            _name_retro(items[-1], m.group("text") or "")
        if items[-1].retro_release and not m and _section_header(line.strip()):
            absorb = True
    return preamble, items


def _name_retro(item: _RawItem, text: str) -> None:
    """A sub-bullet of an item titled "retro and 1.28 planning" that names the retro ("[Ruiwen] 1.27 retro")
    gives the item its release."""
    release = retro_release_of(clean_inline(split_presenters(text)[2]))
    if release:
        item.retro_release, item.retro_unnamed = release, False


# A Zoom chat pasted under an item, a bullet per message: "From Mike Danese to Everyone: (10:42 AM)" (2018), or
# Zoom's saved-chat lines "10:05:33 From Jane Doe : text", "00:12:34 From A to Everyone:".
_CHAT_MESSAGE = re.compile(
    r"^(?:\d{1,2}:\d{2}(?::\d{2})?\s+From\s+[^:\n]{1,120}:"
    r"|From\s+[^:\n]{1,120}?\s+to\s+[^:\n]{1,120}?:\s*\(\d{1,2}:\d{2}(?::\d{2})?\s*[AP]\.?M\.?\))",
    re.I,
)

# "* # \\[danwinship/surya\\] Redesigning ...", "- \\- [link](...)": a heading or list mark inside the bullet (2024).
_INNER_MARK = re.compile(r"^(?:(?:#{1,6}|\\?[-*+])\s+)+")


def _make_item(raw: _RawItem, order: int) -> AgendaItemRecord | None:
    no, first = raw.lines[0]
    m = _bullet(first)
    content = (m.group("text") or "").strip() if m else first.strip()
    presenters_text, presenters, rest = split_presenters(_INNER_MARK.sub("", content))
    body_lines = [line for _, line in raw.lines[1:]]
    body = _dedent_body(body_lines)
    title = clean_inline(rest)
    if not presenters_text:
        presenters_text, presenters, title = split_trailing_presenters(title)
    if not title and body:
        title = clean_inline(next(line for line in body.splitlines() if line.strip()).lstrip(" *+-"))
    if not title and not presenters_text:
        return None
    title = title or presenters_text
    if len(title) > TITLE_MAX:
        title = title[: TITLE_MAX - 1] + "…"
    everything = "\n".join([content, body])
    releases = item_releases(title)
    return AgendaItemRecord(
        order=order,
        title=title,
        presenters_text=presenters_text,
        presenters=presenters,
        body=body,
        kep_numbers=tuple(kep_refs(everything)),
        links=tuple(item_links(everything)),
        releases=tuple(releases),
        line=no,
    )


def _dedent_body(lines: list[str]) -> str:
    """Nested notes as Markdown: dedented by the first nested bullet's indent, blank runs collapsed."""
    nonblank = [line for line in lines if line.strip()]
    if not nonblank:
        return ""
    shift = _indent(nonblank[0]) if _bullet(nonblank[0]) else 0
    out: list[str] = []
    for line in lines:
        if not line.strip():
            if out and out[-1] != "":
                out.append("")
            continue
        out.append(line[min(shift, _indent(line)) :])
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out)
