"""The KEP tables of a release retrospective (`_kep_table`): under "Done (6):", "Removed from Milestone (17):" or
"Deferred (N):" (`_status_heading`), as HTML or pipe tables, one `KepRowRecord` per row with a KEP number."""

from __future__ import annotations

import re

from retros.records import KepRowRecord

from .inline import clean_inline
from .presenters import _HANDLE
from .records import MAX_INT
from .references import _URL, kep_refs

_STATUS_HEADINGS = (
    ("done", re.compile(r"^(?:done|completed|shipped|merged|implemented)$", re.I)),
    ("removed_from_milestone", re.compile(r"^(?:removed(?:\s+from\s+(?:the\s+)?milestone)?|missed)$", re.I)),
    ("deferred", re.compile(r"^deferred$", re.I)),
)
_TYPES = {
    "graduating": "graduating",
    "net new": "net_new",
    "new": "net_new",
    "major change": "major_change",
    "deprecation": "deprecation",
    "removal": "removal",
}
_STAGES = {
    "alpha": "alpha",
    "beta": "beta",
    "stable": "stable",
    "ga": "stable",
    "deprecation": "deprecation",
    "removal": "removal",
}


def _status_heading(text: str) -> tuple[str, int | None] | None:
    m = re.match(r"^(.*?)\s*(?:\(\s*(\d+)\s*\))?\s*:?$", clean_inline(text).strip())
    if not m:
        return None
    for status, pattern in _STATUS_HEADINGS:
        if pattern.match(m.group(1).strip()):
            return status, int(m.group(2)) if m.group(2) else None
    return None


def _table_rows(lines: list[tuple[int, str]]) -> list[tuple[int, list[str], list[str]]]:
    """(line, cell texts, cell hrefs) per row of an HTML table or a pipe table."""
    rows = []
    if lines and lines[0][1].lstrip().startswith("|"):
        for no, line in lines:
            cells = line.strip().strip("|").split("|")
            if all(re.fullmatch(r"\s*:?-{2,}:?\s*", c) for c in cells):
                continue
            rows.append((no, [clean_inline(c) for c in cells], [" ".join(_URL.findall(c)) for c in cells]))
        return rows
    start = lines[0][0] if lines else 0
    joined = "\n".join(line for _, line in lines)
    for row in re.finditer(r"<tr\b[^>]*>(.*?)</tr\s*>", joined, re.S | re.I):
        cells = re.findall(r"<t[dh]\b[^>]*>(.*?)</t[dh]\s*>", row.group(1), re.S | re.I)
        texts = [clean_inline(re.sub(r"<(?:p|br)\b[^>]*>", " ", c, flags=re.I)) for c in cells]
        hrefs = [" ".join(re.findall(r"href=\"([^\"]+)\"", c)) for c in cells]
        rows.append((start + joined.count("\n", 0, row.start()), texts, hrefs))
    return rows


def _kep_table(lines, status, release, name, warnings) -> list[KepRowRecord]:
    """Rows of a retro KEP table: number (cell or issue link), name, type ("Stage Status"), stage, assignee."""
    rows = _table_rows(lines)
    columns: dict[str, int] = {}
    if rows and not any(re.fullmatch(r"#?\d+", c) for c in rows[0][1]):
        for i, cell in enumerate(rows[0][1]):
            label = cell.lower()
            if "number" in label or "issue" in label or label in {"#", "kep", "kep #", "id"}:
                columns.setdefault("number", i)
            elif label in {"name", "title", "kep title", "enhancement", "kep name"}:
                columns.setdefault("title", i)
            elif label in {"stage status", "type", "kind"}:
                columns.setdefault("type", i)
            elif label in {"stage", "target stage", "target"}:
                columns.setdefault("stage", i)
            elif label in {"assignee", "owner", "contact", "author", "assigned"}:
                columns.setdefault("assignee", i)
        if columns:
            rows = rows[1:]
    records = []
    for no, cells, hrefs in rows:

        def cell(key, cells=cells):
            i = columns.get(key)
            return cells[i] if i is not None and i < len(cells) else ""

        number = None
        text = cell("number")
        candidates = [text] if "number" in columns else cells
        for i, value in enumerate(candidates):
            m = re.fullmatch(r"#?(\d{1,9})", value.strip())
            refs = kep_refs(hrefs[i] if "number" not in columns and i < len(hrefs) else "")
            if m or refs:
                number = int(m.group(1)) if m else refs[0]
                break
        if number is None or not 0 < number <= MAX_INT:
            if any(cells):
                warnings.append(f"{name}:{no}: {release} KEP table row without a KEP number skipped")
            continue
        title = cell("title") or next((c for c in cells if re.search(r"[A-Za-z]", c)), "")
        kind = _TYPES.get(cell("type").lower().strip(" +*"), "")
        stage = _STAGES.get(cell("stage").lower().strip(" +*"), "")
        assignee = cell("assignee").strip().lstrip("@")
        records.append(
            KepRowRecord(
                number=number,
                title=title[:300],
                status=status,
                type=kind,
                target_stage=stage,
                assignee=assignee if _HANDLE.match(assignee) else "",
                line=no,
            )
        )
    return records
