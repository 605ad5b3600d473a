"""How a retrospective shows in the agenda: the release whose retro an item's title names (`retro_release_of`)
and the headings of a retro's lists (`_section_header`).

Splitting a meeting into agenda items needs both: an item whose title names a retro may hold list entries that
the export left at the top level, and a list heading says that the bullets after it are such entries.

* Retrospectives (`retro_release_of`): an item whose title says "retro"/"retrospective" with a version ("1.24
  retro", "retrospective for 1.22").
* Retro lists (`_section_header`): went-well ("Good:", "_Things that went well_"), can-be-better and action-item
  ("_AIs_") list headings.
"""

from __future__ import annotations

import re

from .inline import clean_inline
from .references import release_mentions
from .structure import _bullet

_V = r"v?1\.\d{1,2}(?!\d|\.\d)"


def _version(text: str) -> str:
    m = re.search(r"1\.(\d{1,2})", text)
    return f"1.{int(m.group(1))}"


_RETRO_WORD = re.compile(r"\bretro(?:spective)?s?\b", re.I)
# A version followed by "planning" / "kick-off" is the next cycle's, not the retro's: "retro and 1.28 planning"
# (SIG Node, 2023-05-02) held the 1.27 retro, which a sub-bullet names ("[Ruiwen] 1.27 retro").
_PLANNING = r"(?!\s+(?:release\s+)?(?:planning|plan\b|kick-?off))"
_VERSION_RETRO = re.compile(rf"({_V})(?:\s+[\w-]+){{0,2}}?\s+retro", re.I)
_RETRO_VERSION = re.compile(rf"retro(?:spective)?s?\b(?:\s+[\w-]+){{0,2}}?\s+({_V}){_PLANNING}", re.I)
_PLANNED_VERSION = re.compile(rf"({_V})\s+(?:release\s+)?(?:planning|plan\b|kick-?off)", re.I)


def names_retro(title: str) -> bool:
    """Whether a title speaks of a retro at all (with or without naming its release)."""
    return "retro" in title.lower() and bool(_RETRO_WORD.search(title))


def retro_release_of(title: str) -> str | None:
    """The release whose retro an agenda item holds, from its title ("1.24 retro", "retrospective for 1.22");
    None when the title names no release but the next cycle's planning ("retro and 1.28 planning")."""
    if not names_retro(title):
        return None
    m = _VERSION_RETRO.search(title) or _RETRO_VERSION.search(title)
    if m:
        return _version(m.group(1))
    planned = {_version(v) for v in _PLANNED_VERSION.findall(title)}
    mentions = [v for v in release_mentions(title) if v not in planned]
    return mentions[0] if mentions else None


_SECTION_HEADERS = (
    ("went_well", re.compile(r"^(?:things\s+that\s+|what\s+)?went\s+(?:well|right)|^(?:the\s+)?good|^positives?$")),
    (
        "to_improve",
        re.compile(
            r"^(?:things\s+that\s+|what\s+)?(?:can|could|should)(?:\s+have)?\s+(?:be(?:en)?|gone|go)\s+better"
            r"|did\s*n[o'’]?t\s+(?:go|went)\s+(?:so\s+)?well|^(?:what\s+)?(?:to|could|can\s+we)\s+improve"
            r"|^needs?\s+improvement|^not\s+so\s+good|^(?:the\s+)?bad|^challenges$"
        ),
    ),
    ("action_item", re.compile(r"^(?:ais?|action\s+items?|actions|suggested\s+actions|next\s+steps)$")),
)


def _section_header(text: str) -> str | None:
    """The retro list a header line opens ("Good:", "_Things that went well_", "_AIs_"), or None."""
    m = _bullet(text)
    if m:
        text = m.group("text") or ""
    cleaned = clean_inline(text).strip().rstrip(":").strip().lower()
    if not cleaned or len(cleaned) > 60:
        return None
    for category, pattern in _SECTION_HEADERS:
        if pattern.search(cleaned):
            return category
    return None
