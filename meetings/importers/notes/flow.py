"""The week's PR figures a meeting's notes report (`pr_flow`) and the link to its recording (`_recording`).

* PR flow (`pr_flow`): "Total...: N" as text or table cells gives the open-PR total;
  "Created/Updated/Closed/Merged" labels followed (after ":" or a table cell border) by a number give the
  week's figures, in HTML or pipe tables, in any column order; a mistyped label ("fUpdated:") counts as the
  label it is closest to. Which lines of a meeting are read for them is the file-level parse's rule.
* Recording (`_recording`): the first URL on a line that says "recording" or "video".
"""

from __future__ import annotations

import difflib
import re

from .inline import clean_inline
from .records import MAX_INT, URL_MAX
from .references import _URL

_FLOW_LABELS = {
    "prs_created": r"created|opened|new",
    "prs_updated": r"updated",
    "prs_closed": r"closed(?:\s*\(?unmerged\)?)?|unmerged",
    "prs_merged": r"merged",
}
# A label is followed by ":" (and maybe a table cell border) or a cell border, then the number.
_FLOW = {
    name: re.compile(rf"(?<![\w-])(?:{label})\s*(?::+\s*(?:\|\s*)?|\|\s*)\**\s*(\d[\d,]*)(?![\d.])", re.I)
    for name, label in _FLOW_LABELS.items()
}
_FLOW["open_prs"] = re.compile(
    r"(?<![\w-])(?:total\b[^|:\d]{0,40}|open\s+(?:prs|pull\s+requests))\s*(?::+\s*(?:\|\s*)?|\|\s*)\**\s*(\d[\d,]*)",
    re.I,
)


_CELL_END = re.compile(r"</t[dh]\s*>", re.I)
_ROW_END = re.compile(r"</tr\s*>", re.I)
_LABEL = re.compile(r"(?<![\w-])([A-Za-z]{4,12})(\s*:)")
_RECORDING = re.compile(r"\b(?:recording|video)\b", re.I)


def _flatten(lines: list[str]) -> str:
    """Lines of Markdown/HTML as one plain string, table cells separated by " | "."""
    text = "\n".join(lines)
    text = _CELL_END.sub(" | ", text)
    text = _ROW_END.sub(" |\n", text)
    return "\n".join(clean_inline(line) for line in text.split("\n"))


_FLOW_WORDS = ("created", "opened", "updated", "closed", "unmerged", "merged", "total")


def _fix_label(m: re.Match) -> str:
    """A mistyped label ("fUpdated:") -> the label it is closest to; exact labels stay as they are."""
    word = m.group(1).lower()
    if word in _FLOW_WORDS:
        return m.group(0)
    close = difflib.get_close_matches(word, _FLOW_WORDS, n=1, cutoff=0.8)
    return close[0] + m.group(2) if close else m.group(0)


def pr_flow(lines: list[str]) -> dict[str, int]:
    """The open-PR total and the week's created/updated/closed/merged figures found in these lines."""
    text = _LABEL.sub(_fix_label, _flatten(lines))
    figures = {}
    for name, pattern in _FLOW.items():
        m = pattern.search(text)
        if m:
            value = int(m.group(1).replace(",", ""))
            if value <= MAX_INT:
                figures[name] = value
    return figures


def _recording(lines: list[str]) -> str:
    for line in lines:
        if _RECORDING.search(line):
            for url in _URL.findall(line):
                url = url.rstrip(".,;:!?*_")
                if len(url) <= URL_MAX:
                    return url
    return ""
