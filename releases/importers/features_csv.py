"""Parser for the early features tracking sheets: kubernetes/sig-release `releases/release-1.NN/features.csv`.

Before KEPs (1.3-1.12, 2016-2018) the release team tracked features in a spreadsheet; these files are its CSV
exports, and the only record of what those releases shipped per SIG. Quirks, with the year they appeared:

* The header row is not always the first (2018, 1.12): summary rows ("Alpha,10") and a key-dates block
  (",Key Dates:", "Lead - Stephen Augustus (justaugustus),Features Freeze: 7/31") come first. The header is the
  first row naming a feature-name column and a stage or SIG column.
* Columns are named differently each year: "Item" (2016, 1.3) / "Feature name" / "Feature Name" / "Features";
  "Stage" / "Stage Status" (in 1.12 "Stage Status" holds Net New / Graduating and "Stage" holds Alpha / Beta);
  "SIG"; "Assignee" / "Owner"; "Link To Docs" / "k8s.io Docs PR"; "Features link"; "Feature Status" (Tracked).
* SIGs as "SIG-Node", "SIG-ClusterLifecycle", "SIG-API-Machinery" (2016) or "node", "cluster-lifecycle" (2018):
  normalised to the community slug ("sig-node", "sig-cluster-lifecycle").
* Assignees with several handles ("davidopp / piosz", "jingxu97, xing-yang", "@msau42 @vishh",
  "feiskyer&JiangtianLi"), with or without "@", with trailing spaces.
* Cells spanning lines (several docs PRs in one cell, 2017): the first link is kept.
* The feature's issue number as a leading "NNN: " in its name (2018: "115: Easier installation …"), or only in
  the "Features link" column (2016: https://github.com/kubernetes/features/issues/62; the features repository
  is today's kubernetes/enhancements, same numbers); many rows have neither ("N/A", empty): a KEP-less feature.
* Quoted cells with commas and doubled quotes, stray spaces, empty rows between blocks.
* What shipped (`shipped`): only a sheet whose status says so records it. 1.3 (2016) has "Status" Merged / In
  Progress; 1.11 (2018) has "Feature Status" Planned / In Progress and an empty "Merged" column; 1.12 has "Feature
  Status" Tracked; 1.4-1.10 have no status column at all. "Planned", "In Progress", "Tracked" or no status say the
  feature was tracked, not that it shipped: `shipped` is True only for a status such as "Merged", "Done",
  "Complete" or a "Merged" column saying yes, False for a status saying it left, else None (not recorded).
* A row still "Tracked" whose "Notes" say it moved on (2018, 1.12, #575: "Looks like this is now in the 1.13
  milestone"): the later milestone named there is kept (`moved_to`), since the row did not ship in this release.

Pure: text in, dataclasses out. A file with no header row raises `ImportFailure`; a row without a name is skipped
with a warning naming its line.
"""

import csv
import io
import re
from dataclasses import dataclass, field

from core.importing import ImportFailure
from releases.choices import EnhancementType, TargetStage

#: Header words of each column, lower-cased; the first column matching wins.
COLUMNS = {
    "name": ("feature name", "features", "feature", "feature title", "name", "item"),
    "stage": ("stage",),
    "stage_status": ("stage status",),
    "sig": ("sig", "sigs", "owning sig", "sig(s)"),
    "assignee": ("assignee", "assignees", "owner", "owners", "contact"),
    "docs": ("link to docs", "k8s.io docs pr", "docs pr", "docs link", "docs"),
    "link": ("features link", "feature link", "issue", "features issue", "link"),
    "status": ("feature status", "status", "tracked"),
    "merged": ("merged", "shipped"),
    "release_note": ("one line release note description", "release note"),
    "notes": ("notes", "note", "comments"),
}
#: A note naming the milestone a feature moved to: "now in the 1.13 milestone", "moved to v1.13 milestone".
_MOVED_TO = re.compile(r"\bv?(?P<version>\d+\.\d+)\s+milestone\b", re.IGNORECASE)
_LEADING_NUMBER = re.compile(r"^\s*#?(?P<number>\d{1,6})\s*:\s*(?P<name>.*)$", re.DOTALL)
_ISSUE_LINK = re.compile(r"github\.com/kubernetes/(?:features|enhancements)/issues/(?P<number>\d+)", re.IGNORECASE)
_HANDLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}$")
_NOT_HANDLES = frozenset({"and", "tbd", "n/a", "na", "none", "unassigned", "tba", "?"})
_URL = re.compile(r"https?://\S+")
#: A status saying the feature shipped in the release ("Merged", "Done", "Complete"); a negation says it did not.
_SHIPPED = re.compile(r"\b(?:merged|done|complete|completed|shipped|released|landed)\b", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|never|no)\b", re.IGNORECASE)
#: A "Merged" column's cell saying yes.
_YES = frozenset({"yes", "y", "true", "x", "✓", "✔", "merged", "done"})

_STAGES = {
    "alpha": TargetStage.ALPHA,
    "beta": TargetStage.BETA,
    "stable": TargetStage.STABLE,
    "ga": TargetStage.STABLE,
    "deprecation": TargetStage.DEPRECATION,
    "deprecated": TargetStage.DEPRECATION,
    "removal": TargetStage.REMOVAL,
}
_TYPES = {
    "net new": EnhancementType.NET_NEW,
    "new": EnhancementType.NET_NEW,
    "graduating": EnhancementType.GRADUATING,
    "major change": EnhancementType.MAJOR_CHANGE,
    "deprecation": EnhancementType.DEPRECATION,
    "removal": EnhancementType.REMOVAL,
}


@dataclass(frozen=True)
class FeatureRecord:
    """One feature of a sheet. `number` is its features/enhancements issue (a KEP tracking issue) or None."""

    line: int
    name: str
    number: int | None
    stage: str
    type: str
    sig_slug: str
    sig_text: str
    assignees: tuple[str, ...]
    docs_url: str
    issue_url: str
    status_text: str
    release_note: str
    #: The later release a note says the feature moved to ("1.13"), or "".
    moved_to: str = ""
    #: Whether the sheet records it shipped: True ("Merged", "Done", a "Merged" column saying yes), else None (the
    #: sheet tracked it; what happened is not recorded here). Left-the-release words are the service's rule.
    shipped: bool | None = None


@dataclass
class FeatureSheet:
    features: list[FeatureRecord] = field(default_factory=list)
    header_line: int = 0
    #: Whether the sheet has a status or "Merged" column at all (1.4-1.10 have none: tracked, outcome unknown).
    has_status: bool = False
    warnings: list[tuple[int, str]] = field(default_factory=list)


def sig_slug(text: str) -> str:
    """ "SIG-Node", "node", "sig-node", "SIG-ClusterLifecycle", "SIG API Machinery" -> "sig-node", … ; "" for none."""
    text = text.strip()
    if not text or text.lower() in _NOT_HANDLES:
        return ""
    text = re.sub(r"^sig[\s_-]*", "", text, flags=re.IGNORECASE)
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", "-", text)
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "sig-" + "-".join(words) if words else ""


def assignees(text: str) -> tuple[str, ...]:
    """GitHub handles in an assignee cell: "davidopp / piosz", "@a, @b", "jbeda, sttts " -> ("davidopp", …)."""
    handles = []
    for token in re.split(r"[\s,/&;+]+", text):
        token = token.strip().lstrip("@").strip("()[]")
        if token and token.lower() not in _NOT_HANDLES and _HANDLE.match(token) and token not in handles:
            handles.append(token)
    return tuple(handles)


def _column_map(row: list[str]) -> dict[str, int]:
    cells = [" ".join(cell.split()).lower() for cell in row]
    found = {}
    for column, words in COLUMNS.items():
        for word in words:
            if word in cells and cells.index(word) not in found.values():
                found[column] = cells.index(word)
                break
    return found


def _is_header(columns: dict[str, int]) -> bool:
    return "name" in columns and ("stage" in columns or "stage_status" in columns or "sig" in columns)


def parse_features(text: str) -> FeatureSheet:
    """Every feature row of a features.csv (see the module docstring)."""
    sheet = FeatureSheet()
    reader = csv.reader(io.StringIO(text))
    columns: dict[str, int] | None = None
    ended = 0  # the line the previous row ended on: a quoted cell may span lines, and a row is named by its first
    try:
        for row in reader:
            line, ended = ended + 1, reader.line_num
            if columns is None:
                candidate = _column_map(row)
                if _is_header(candidate):
                    columns, sheet.header_line = candidate, line
                    sheet.has_status = "status" in columns or "merged" in columns
                continue
            if not any(cell.strip() for cell in row):
                continue
            record = _record(row, columns, line, sheet)
            if record is not None:
                sheet.features.append(record)
    except csv.Error as exc:
        raise ImportFailure(f"not a CSV file: {exc}", line=reader.line_num) from exc
    if columns is None:
        raise ImportFailure("no header row (a row naming the feature name and its stage or SIG)")
    return sheet


def _record(row: list[str], columns: dict[str, int], line: int, sheet: FeatureSheet) -> FeatureRecord | None:
    def cell(column: str) -> str:
        index = columns.get(column)
        return " ".join(row[index].split()) if index is not None and index < len(row) else ""

    name = cell("name")
    number = None
    if match := _LEADING_NUMBER.match(name):
        number, name = int(match["number"]) or None, " ".join(match["name"].split())
    link = cell("link")
    if link_match := _ISSUE_LINK.search(link):
        number = number or int(link_match["number"])
    if not name:
        sheet.warnings.append((line, "a row with no feature name: skipped"))
        return None
    stage_text, status_text = cell("stage").lower(), cell("stage_status").lower()
    stage = _STAGES.get(stage_text) or _STAGES.get(status_text, "")
    kind = _TYPES.get(status_text) or _TYPES.get(stage_text, "")
    if stage_text and not stage and not kind:
        sheet.warnings.append((line, f"unknown stage {cell('stage')!r}: left empty"))
    docs = _URL.search(cell("docs"))
    issue_url = link if _URL.fullmatch(link) else ""
    if number and not issue_url:
        issue_url = f"https://github.com/kubernetes/enhancements/issues/{number}"
    return FeatureRecord(
        line=line,
        name=name[:300],
        number=number,
        stage=stage,
        type=kind,
        sig_slug=sig_slug(cell("sig")),
        sig_text=cell("sig"),
        assignees=assignees(cell("assignee")),
        docs_url=docs.group(0).rstrip(").,") if docs else "",
        issue_url=issue_url[:500],
        status_text=cell("status")[:50],
        release_note=cell("release_note"),
        moved_to=moved.group("version") if (moved := _MOVED_TO.search(cell("notes"))) else "",
        shipped=_shipped(cell("status"), cell("merged")),
    )


def _shipped(status: str, merged: str) -> bool | None:
    """True when the status ("Merged", "Done") or a "Merged" column ("yes") says the feature shipped, else None."""
    if _SHIPPED.search(status) and not _NEGATED.search(status):
        return True
    if merged.strip().lower() in _YES:
        return True
    return None
