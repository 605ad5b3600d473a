"""Parser for a release team roster: kubernetes/sig-release `releases/release-1.NN/release-team.md`
(`release_team.md` before 1.20).

Quirks, with the year they appeared:

* A Markdown table of role, name and bare ID (2016-2017, 1.5-1.8): "| Role | Name | GitHub/Slack ID |", one
  person a row, no shadows, the ID without "@" or link ("ethernetdan"; a Slack ID such as "steve_k" is kept).
* A Markdown table of role, lead and shadows (2017-): "| Role | Name (GitHub/Slack ID) | Shadow Name(s) … |".
  Before 1.20 the leading pipe is followed by two spaces and the header says "Role"; from 2023 "Team/Role"
  and "Lead Name". A row may lack its closing pipe (2025).
* People as "Name ([@handle](https://github.com/handle) / Slack: `@slack`)" (2019-), "Name
  ([@handle](https://github.com/handle))" (2017), with a comma instead of " / " before "Slack:" (2024),
  a link text without the "@" ("[jmickey](https://github.com/jmickey)", 2025), a space inside the parenthesis,
  or a second handle after the link ("([@detiber](https://github.com/detiber)/@jdetiber)", 2017: the link's is
  kept). Without any link, "Name (@handle)" or a bare "@handle" is read. The link's handle is the person.
* Role names vary: "Lead" / "Release Team Lead"; "Features" (to 2018) / "Enhancements"; "CI Signal" /
  "Upgrade Testing / CI Signal" / "Release Signal"; "Bugs" / "Bug Triage"; "Marketing coordinator" /
  "Communications". Each becomes a `ReleaseRoleKind`; the roster's own words are kept as the label.
* "Name (handle)" with the bare handle in parentheses, no "@" and no link (2017, 1.7 and 1.8 `release_team.md`,
  whose header says "Name (GitHub/Slack ID)"): read when a cell has neither a link nor an "@handle".
* A roster that moved (2020, 1.20 `release-team.md`): one line, "# MOVED to https://…/release_team.md".
  `RosterMoved` names the file it points to; the service reads that file of the same folder instead.
* A list layout (pre-1.20 READMEs and rosters that are not tables): "- Lead: Name (@handle)", with
  "- <Role> shadows: …" lines for shadows.

Pure: text in, dataclasses out. A roster with no role row raises `ImportFailure`.
"""

import re
from dataclasses import dataclass, field

from core.importing import ImportFailure
from releases.choices import ReleaseRoleKind

_LINKED = re.compile(
    r"(?P<name>[^()\[\],|]*?)\s*\(?\s*\[@?(?P<text>[^\]]*)\]\(\s*https?://(?:www\.)?github\.com/"
    r"(?P<handle>[A-Za-z0-9][A-Za-z0-9-]{0,38})/?\s*\)",
)
_AT_HANDLE = re.compile(r"(?P<name>[^()\[\],|@`]*?)\s*\(?@(?P<handle>[A-Za-z0-9][A-Za-z0-9-]{0,38})\b\)?")
#: "Dawn Chen (dchen1107)": the 2017 layout's bare handle in parentheses.
_PAREN_ID = re.compile(r"(?P<name>[^()\[\],|@`]*?)\s*\(\s*(?P<handle>[A-Za-z0-9][A-Za-z0-9_-]{0,38})\s*\)")
_NOT_A_HANDLE = frozenset({"tbd", "tba", "none", "n/a", "vacant", "open"})
#: "# MOVED to https://github.com/kubernetes/sig-release/blob/master/releases/release-1.20/release_team.md"
_MOVED = re.compile(r"^\s*#*\s*\**\s*moved\s+to\s*:?\s*<?(?P<target>\S+?)>?\s*\**\s*$", re.IGNORECASE)
#: A bare ID of the 2016 layout; Slack IDs there may hold an underscore ("steve_k"), kept as written.
_PLAIN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$")
_SLACK = re.compile(r"slack\s*:?\s*`[^`]*`", re.IGNORECASE)
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}")
_LIST_ROW = re.compile(r"^\s*[-*+]\s+\**(?P<role>[^:*|]{2,60}?)\**\s*:\s*(?P<people>.+)$")
_SHADOW_WORDS = re.compile(r"\s*\bshadows?\b\s*(?:\(s\))?", re.IGNORECASE)

#: A role kind by the words of its name; first match wins.
_ROLES = (
    (re.compile(r"^(?:release\s*(?:team\s*)?)?lead$", re.IGNORECASE), ReleaseRoleKind.LEAD),
    (re.compile(r"enhancement|^features?$", re.IGNORECASE), ReleaseRoleKind.ENHANCEMENTS),
    (re.compile(r"release\s*notes", re.IGNORECASE), ReleaseRoleKind.RELEASE_NOTES),
    (re.compile(r"comms|communication|marketing", re.IGNORECASE), ReleaseRoleKind.COMMUNICATIONS),
    (re.compile(r"\bdocs?\b|documentation", re.IGNORECASE), ReleaseRoleKind.DOCS),
    (re.compile(r"signal", re.IGNORECASE), ReleaseRoleKind.SIGNAL),
    (re.compile(r"\bbugs?\b|triage", re.IGNORECASE), ReleaseRoleKind.BUG_TRIAGE),
    (re.compile(r"branch\s*manager", re.IGNORECASE), ReleaseRoleKind.BRANCH_MANAGER),
)


class RosterMoved(ImportFailure):
    """The roster is a pointer to another file: `target` is the file name it names ("release_team.md")."""

    def __init__(self, target: str, *, line: int):
        self.target = target
        super().__init__(f"the roster moved to {target}", line=line)


@dataclass(frozen=True)
class Member:
    handle: str
    name: str
    is_shadow: bool


@dataclass(frozen=True)
class RosterRole:
    """One role of the roster: its kind, the roster's words for it, its lead(s) and shadows in order."""

    line: int
    role: str
    label: str
    members: tuple[Member, ...]


@dataclass
class Roster:
    roles: list[RosterRole] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)


def role_kind(label: str) -> str:
    """ "Release Team Lead" -> lead, "Features" -> enhancements, "Upgrade Testing / CI Signal" -> signal, …"""
    words = " ".join(label.replace("*", "").split())
    for pattern, kind in _ROLES:
        if pattern.search(words):
            return kind
    return ReleaseRoleKind.OTHER


def people(cell: str, *, is_shadow: bool) -> list[Member]:
    """The people of one cell, in order, each by GitHub handle (see the module docstring)."""
    cell = _SLACK.sub("", cell)
    found = [(m["handle"], m["name"]) for m in _LINKED.finditer(cell)]
    if not found:
        found = [(m["handle"], m["name"]) for m in _AT_HANDLE.finditer(cell)]
    if not found:
        found = [(m["handle"], m["name"]) for m in _PAREN_ID.finditer(cell) if m["handle"].lower() not in _NOT_A_HANDLE]
    members, seen = [], set()
    for handle, name in found:
        if handle.lower() in seen:
            continue
        seen.add(handle.lower())
        name = " ".join(name.strip(" -/,:").split())
        members.append(Member(handle=handle, name=name[:200], is_shadow=is_shadow))
    return members


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") else body
    return [cell.strip() for cell in body.split("|")]


def _id_column(header: list[str]) -> int | None:
    """The column of bare GitHub/Slack IDs in the 2016-2017 layout ("| Role | Name | GitHub/Slack ID |"), if any."""
    for index, cell in enumerate(header):
        words = cell.replace("*", "").lower()
        if index and "github" in words and "name" not in words and "shadow" not in words:
            return index
    return None


def _plain_member(name: str, ids: str) -> list[Member]:
    # The ID cell gives the handle bare ("ethernetdan"), sometimes "@handle" or "handle / slack".
    handle = next((t.lstrip("@") for t in re.split(r"[\s,/]+", ids) if _PLAIN_ID.match(t.lstrip("@"))), "")
    return [Member(handle=handle, name=" ".join(name.split())[:200], is_shadow=False)] if handle else []


def parse_roster(text: str) -> Roster:
    """Every role of a release-team.md / release_team.md, with lead(s) and shadows by GitHub handle."""
    roster = Roster()
    in_table = False
    id_column = None
    list_roles: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("|"):
            cells = _cells(stripped)
            if _SEPARATOR.match(stripped) or not cells:
                continue
            label = cells[0].replace("*", "").strip()
            if not in_table:
                # The header row: "Role" / "Team/Role".
                in_table = bool(re.search(r"\brole\b", label, re.IGNORECASE))
                id_column = _id_column(cells) if in_table else None
                continue
            if not label:
                continue
            if id_column is not None:
                name = cells[1] if len(cells) > 1 and id_column != 1 else ""
                members = _plain_member(name, cells[id_column] if len(cells) > id_column else "")
                _add(roster, number, label, members, has_text=any(c.strip() for c in cells[1:]))
                continue
            leads = people(cells[1], is_shadow=False) if len(cells) > 1 else []
            shadows = people(" ".join(cells[2:]), is_shadow=True) if len(cells) > 2 else []
            _add(roster, number, label, leads + shadows, has_text=any(c.strip() for c in cells[1:]))
            continue
        in_table = False
        if match := _LIST_ROW.match(line):
            label = match["role"].strip()
            is_shadow = bool(_SHADOW_WORDS.search(label))
            label = _SHADOW_WORDS.sub("", label).strip() or label
            members = people(match["people"], is_shadow=is_shadow)
            if not members:
                continue  # a list item that names no one ("- Google Group: …")
            if is_shadow and label.lower() in list_roles:
                # "- Enhancements shadows: …" joins the role listed above it.
                index = list_roles[label.lower()]
                role = roster.roles[index]
                roster.roles[index] = RosterRole(role.line, role.role, role.label, role.members + tuple(members))
                continue
            list_roles[label.lower()] = len(roster.roles)
            _add(roster, number, label, members, has_text=True)
    if not roster.roles:
        moved = _moved_to(text)
        if moved is not None:
            raise moved
        raise ImportFailure("no release team roles (a table with a Role column, or '- Role: Name (@handle)' lines)")
    return roster


def _add(roster: Roster, line: int, label: str, members: list[Member], *, has_text: bool) -> None:
    if not members:
        if has_text:
            roster.warnings.append((line, f"{label}: no GitHub handle found; role skipped"))
        return
    label = " ".join(label.split())[:100]
    roster.roles.append(RosterRole(line=line, role=role_kind(label), label=label, members=tuple(members)))


def _moved_to(text: str) -> RosterMoved | None:
    """The pointer of a roster that is only "MOVED to <url or path>" (blank lines aside), else None."""
    lines = [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if len(lines) != 1 or not (match := _MOVED.match(lines[0][1])):
        return None
    target = match["target"].rstrip("/").rsplit("/", 1)[-1]
    return RosterMoved(target, line=lines[0][0]) if target else None
