"""The notes' document structure: bullets (`_bullet`, `_indent`) and the HTML tables and code fences
(`_BlockTracker`) inside which no line is a heading or an agenda item."""

from __future__ import annotations

import re

_BULLET = re.compile(r"^(?P<indent> *)(?P<marker>[*+-]|\d{1,3}[.)])(?:[ ]+(?P<text>.*)|$)")
_RULE = re.compile(r"^\s*([*_-])(?:\s*\1){2,}\s*$")


def _bullet(line: str) -> re.Match | None:
    if _RULE.match(line):
        return None
    return _BULLET.match(line)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


class _BlockTracker:
    """Whether a line is inside an HTML table or a fenced code block (no headings or items there)."""

    def __init__(self):
        self.table_depth = 0
        self.table_line = 0
        self.fence_line = 0

    @property
    def inside(self) -> bool:
        return bool(self.table_depth or self.fence_line)

    def feed(self, no: int, line: str) -> bool:
        """Track `line`; True when it is, or is inside, a table or code block."""
        tag = "<" in line
        fence = "`" in line or "~" in line
        if not (tag or fence or self.table_depth or self.fence_line):
            return False  # the common case, kept cheap: ~20 000 lines a year of notes
        stripped = line.strip()
        was_inside = self.inside
        if fence and (
            (stripped.startswith("```") and stripped.count("```") % 2 == 1)
            or (stripped.startswith("~~~") and stripped.count("~~~") % 2 == 1)
        ):
            self.fence_line = 0 if self.fence_line else no
            return True
        if self.fence_line:
            return True
        if not tag:
            return was_inside
        lower = stripped.lower()
        opened = lower.count("<table")
        closed = lower.count("</table")
        if opened and not self.table_depth:
            self.table_line = no
        self.table_depth = max(0, self.table_depth + opened - closed)
        return was_inside or bool(opened or closed)
