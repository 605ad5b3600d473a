"""Replay kubernetes/enhancements' master history of `keps/**/kep.yaml` into each KEP's plan changes.

Pure functions and plain data: the text of `git log --first-parent --raw` in, the text of each blob in (the
service runs git), `PlanRevision` records out. No Django ORM, so every rule below is testable without a database
or a repository.

What git tells: what each KEP planned (stage, status, `latest-milestone`, the `milestone` map) and when that plan
reached master (the commit date of the first-parent commit, usually the PR's merge). What it cannot tell: whether
the KEP was tracked or shipped. History starts with the first kep.yaml (2020); the markdown era before it carries
no machine-readable milestones, so nothing earlier is known.

The upstream quirks, each handled by one rule here and counted in `ReplayCounts`:

* KEP number (`read_plan`): `kep-number`, falling back to the directory's number, by the kep.yaml parser's own
  rule (`kep_yaml._kep_number`); a `kep-number` that disagrees with its directory loses to it, with a warning; a
  draft with neither (`0000-…`, `NNNN-…` folders: no KEP yet) is listed with -v 2, not skipped; any other file
  with no number is skipped, naming file and commit.
* Renames (`replay`): git history shows a move as a copy then a delete, sometimes with both alive for a while;
  duplicate numbers (a KEP under two SIGs, a number claimed twice) likewise leave several live files for one
  number. The KEP's plan is that of one live file: not `replaced`, directory number matching, newest added first
  (`_winner`); an identical copy therefore records nothing.
* YAML (`_load_first_mapping`): every scalar is text (the kep.yaml parser's loader), so an invalid date in an
  unrelated field (`last-updated: 2020-30-01`) or an unquoted `1.30` (a float 1.3 to a strict loader) is read as
  written; a file of several YAML documents is read from its first mapping, with a warning.
* Versions and placeholders (`kep_yaml.normalise_version`): `v1.27`, `1.27`, `1.27.0` -> `1.27`; `TBD`, `x.y`,
  `never`, `TODO`, `v0.0` are placeholders and `v1.yy`, `pre-1.x`, two versions in one string are not versions:
  both are flagged and never taken as a release.
* Stage and status (`kep_yaml.normalise_choice`): `GA` -> stable, a typo (`implementeable`) corrected with a
  warning, template text (`alpha|beta|stable`) left empty with a warning.
"""

from __future__ import annotations

import datetime
import json
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import yaml

from core.importing import ImportFailure
from core.importing.yaml_text import TextLoader, plain_data, scalar, unquote
from keps.plans import plan_slip, planned_target, stage_milestone

from .kep_yaml import (
    _VERSION_PLACEHOLDERS,
    KEP_STAGES,
    KEP_STATUSES,
    NotAKepYet,
    _kep_number,
    normalise_choice,
    normalise_version,
)

__all__ = [
    "COMMIT_URL",
    "FileChange",
    "GitCommit",
    "Plan",
    "PlanRevision",
    "ReplayCounts",
    "ReplayState",
    "parse_raw_log",
    "read_plan",
    "replay",
]

COMMIT_URL = "https://github.com/kubernetes/enhancements/commit/{sha}"
#: The kep.yaml `milestone` keys, in the order the template lists them.
MILESTONE_KEYS = ("alpha", "beta", "stable", "deprecated", "removed")
_ZERO_SHA = "0" * 40
#: The version of the replay's rules (slip rule, order, numbering). A cursor written under other rules is not
#: continued from: the next import replays everything and corrects the rows stored under the old rules.
#: 2: slips are moves of the current stage's own milestone; rows carry their first-parent position; the
#: directory's number wins over a disagreeing `kep-number`.
REPLAY_RULES = 2


@dataclass(frozen=True)
class FileChange:
    """One kep.yaml touched by a commit: its new blob ('' when deleted) and git's status letter; `symlink` when the
    new blob is a symbolic link (mode 120000): its content is a path, never followed nor read as a kep.yaml."""

    path: str
    blob: str
    status: str
    symlink: bool = False


@dataclass(frozen=True)
class GitCommit:
    sha: str
    committed_at: datetime.datetime
    changes: tuple[FileChange, ...]


@dataclass(frozen=True)
class Plan:
    """What one kep.yaml plans: the fields sigtracker follows, normalised (empty when absent or a placeholder)."""

    number: int
    stage: str = ""
    status: str = ""
    latest_milestone: str = ""
    milestones: tuple[tuple[str, str], ...] = ()  # (stage, version) for MILESTONE_KEYS that are set

    @property
    def milestone_map(self) -> dict[str, str]:
        return dict(self.milestones)

    @property
    def target(self) -> str:
        """The release planned for the current stage (`releases.rules.planned_target`)."""
        return planned_target(stage=self.stage, latest=self.latest_milestone, milestones=self.milestone_map)

    @property
    def stage_milestone(self) -> str:
        """The current stage's own milestone, what a slip moves (`keps.plans.stage_milestone`)."""
        return stage_milestone(stage=self.stage, latest=self.latest_milestone, milestones=self.milestone_map)

    def as_list(self) -> list:
        return [self.number, self.stage, self.status, self.latest_milestone, [list(m) for m in self.milestones]]

    @classmethod
    def from_list(cls, data: list) -> Plan:
        number, stage, status, latest, milestones = data
        return cls(number, stage, status, latest, tuple((k, v) for k, v in milestones))


@dataclass(frozen=True)
class PlanRevision:
    """A KEP's plan as it stood after `sha` reached master, and the release it slipped from ('' if no slip).
    `position`: the commit's place on master's first-parent chain (1 = the first commit that touched a kep.yaml),
    the order the plans reached master in; commit dates need not follow it."""

    plan: Plan
    sha: str
    committed_at: datetime.datetime
    path: str
    slipped_from: str = ""
    position: int = 0


@dataclass
class ReplayCounts:
    """How often each upstream quirk was met (the report prints these)."""

    commits: int = 0
    file_changes: int = 0
    blobs_parsed: int = 0
    revisions: int = 0
    slips: int = 0
    skipped_unnumbered: int = 0
    drafts: int = 0
    skipped_unreadable: int = 0
    number_from_directory: int = 0
    number_disagrees_with_directory: int = 0
    multi_document: int = 0
    renames: int = 0
    duplicate_numbers: int = 0
    placeholders: int = 0
    not_a_version: int = 0
    stage_status_corrected: int = 0
    stage_status_unknown: int = 0

    def lines(self) -> list[str]:
        labels = {
            "commits": "first-parent commits read",
            "file_changes": "kep.yaml changes",
            "blobs_parsed": "distinct blobs parsed",
            "revisions": "plan changes recorded",
            "slips": "slips",
            "skipped_unnumbered": "blobs without a KEP number (skipped)",
            "drafts": "draft blobs with no KEP number yet (0000-, NNNN-; listed with -v 2)",
            "skipped_unreadable": "blobs that do not parse (skipped)",
            "number_from_directory": "numbers taken from the directory",
            "number_disagrees_with_directory": "kep-number disagreeing with its directory",
            "multi_document": "multi-document blobs (first mapping read)",
            "renames": "renames (copy, then delete)",
            "duplicate_numbers": "numbers claimed by two live files at once",
            "placeholders": "placeholder versions (TBD, x.y, never...)",
            "not_a_version": "versions that are not a release (v1.yy, pre-1.x, two in one)",
            "stage_status_corrected": "stage/status typos or synonyms corrected",
            "stage_status_unknown": "stage/status values not understood (left empty)",
        }
        return [f"{label}: {getattr(self, name)}" for name, label in labels.items()]


# -- git log -------------------------------------------------------------------------------------------


def _unquote_path(text: str) -> str:
    """git's C-style quoting of an unusual path (`"keps/sig-x/caf\\303\\251/kep.yaml"`) undone."""
    if not (text.startswith('"') and text.endswith('"')):
        return text
    raw = text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", "replace")


def parse_raw_log(text: str) -> list[GitCommit]:
    """Commits of `git log --raw --no-abbrev --no-renames --format='commit %H %cI'`, in the order given.

    A raw line reads `:100644 100644 <old blob> <new blob> M\\t<path>`; a delete's new blob is all zeros.
    """
    commits: list[GitCommit] = []
    sha, at, changes = "", None, []
    for line in text.splitlines():
        if line.startswith("commit "):
            if sha:
                commits.append(GitCommit(sha, at, tuple(changes)))
            _, sha, stamp = line.split(" ", 2)
            at = datetime.datetime.fromisoformat(stamp.strip())
            changes = []
        elif line.startswith(":"):
            meta, _, path = line.partition("\t")
            fields = meta.split()
            blob, status = fields[3], fields[4][:1]
            deleted = blob == _ZERO_SHA or status == "D"
            link = fields[1] == "120000" and not deleted
            changes.append(FileChange(_unquote_path(path), "" if deleted else blob, status, symlink=link))
    if sha:
        commits.append(GitCommit(sha, at, tuple(changes)))
    return commits


# -- one blob ------------------------------------------------------------------------------------------


def _load_first_mapping(text: str, *, source: str) -> tuple[dict, bool]:
    """(the first mapping document of `text`, whether there were several documents)."""
    loader = TextLoader(text)
    documents = 0
    found = None
    try:
        while loader.check_node():
            node = loader.get_node()
            documents += 1
            if found is None and isinstance(node, yaml.MappingNode):
                found = plain_data(node, source=source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ImportFailure(
            "YAML does not parse", source=source, line=mark.line + 1 if mark is not None else None
        ) from None
    except (ValueError, TypeError, RecursionError) as exc:
        raise ImportFailure(f"YAML does not parse: {type(exc).__name__}", source=source) from None
    finally:
        loader.dispose()
    if found is None:
        raise ImportFailure("no YAML mapping in the file", source=source)
    return found, documents > 1


def read_plan(text: str, *, path: str, source: str, counts: ReplayCounts, warnings: list[str]) -> Plan:
    """The plan one kep.yaml blob states; ImportFailure (naming `source`) when it names no KEP or does not parse.

    Unlike `kep_yaml.parse_kep` a missing title or SIG does not matter here: only the number and the plan do.
    """
    data, several = _load_first_mapping(text, source=source)
    if several:
        counts.multi_document += 1
        warnings.append(f"{source}: several YAML documents; the first mapping is read")
    number = _plan_number(data, path=path, source=source, counts=counts, warnings=warnings)
    blob = _PlanFields(source, counts, warnings)
    milestone_map = data.get("milestone")
    if not isinstance(milestone_map, dict):
        milestone_map = {}
    milestones = tuple(
        (key, value) for key in MILESTONE_KEYS if (value := blob.version(f"milestone.{key}", milestone_map.get(key)))
    )
    return Plan(
        number=number,
        stage=blob.choice("stage", data.get("stage"), KEP_STAGES),
        status=blob.choice("status", data.get("status"), KEP_STATUSES),
        latest_milestone=blob.version("latest-milestone", data.get("latest-milestone")),
        milestones=milestones,
    )


def _plan_number(data: dict, *, path: str, source: str, counts: ReplayCounts, warnings: list[str]) -> int:
    """The blob's KEP number by the kep.yaml parser's rule, counted where it came from the directory."""
    directory = path.rsplit("/", 2)[-2] if path.count("/") >= 1 else ""
    try:
        number, message = _kep_number(data.get("kep-number"), directory, source=source)
    except NotAKepYet:
        counts.drafts += 1
        raise
    except ImportFailure:
        counts.skipped_unnumbered += 1
        raise
    if message:
        if "differs" in message:
            counts.number_disagrees_with_directory += 1
        else:
            counts.number_from_directory += 1
        warnings.append(f"{source}: kep-number: {message}")
    return number


@dataclass
class _PlanFields:
    """Reads a blob's plan fields, counting each quirk met and warning about it under `source`."""

    source: str
    counts: ReplayCounts
    warnings: list[str]

    def text_of(self, value, name: str) -> str:
        try:
            return scalar(value, source=self.source, name=name)
        except ImportFailure as failure:  # a list or mapping where a value belongs: read as absent
            self.warnings.append(str(failure) + "; ignored")
            return ""

    def choice(self, name: str, value, vocabulary) -> str:
        raw = self.text_of(value, name)
        result, message = normalise_choice(raw, vocabulary)
        if message:
            self.counts.stage_status_corrected += bool(result)
            self.counts.stage_status_unknown += not result
            self.warnings.append(f"{self.source}: {name}: {message}")
        return result

    def version(self, name: str, value) -> str:
        raw = self.text_of(value, name)
        result, message = normalise_version(raw)
        if message:
            self.counts.not_a_version += 1
            self.warnings.append(f"{self.source}: {name}: {message}")
        elif not result and raw and unquote(raw).lower() in _VERSION_PLACEHOLDERS:
            self.counts.placeholders += 1
        return result


# -- replay --------------------------------------------------------------------------------------------


@dataclass
class ReplayState:
    """What a replay needs to continue from its last commit: each live kep.yaml and each KEP's recorded plan.

    `live`: path -> (plan, sequence number of the commit that added it); `recorded`: number -> the last plan
    recorded; `last_point`: number -> (stage, the stage's own milestone) of the last plan naming one (for the slip
    rule); `sequence`: the first-parent position of the last commit read.
    """

    live: dict[str, tuple[Plan | None, int]] = field(default_factory=dict)
    recorded: dict[int, Plan] = field(default_factory=dict)
    last_point: dict[int, tuple[str, str]] = field(default_factory=dict)
    sequence: int = 0
    #: number -> paths of live files stating it (derived from `live`, kept current by `replay`).
    by_number: dict[int, set[str]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        for path, (plan, _) in self.live.items():
            if plan is not None:
                self.by_number.setdefault(plan.number, set()).add(path)

    def set_live(self, path: str, plan: Plan | None, seq: int) -> None:
        old = self.live.get(path, (None, 0))[0]
        if old is not None:
            self.by_number[old.number].discard(path)
        if plan is not None:
            self.by_number.setdefault(plan.number, set()).add(path)
        self.live[path] = (plan, seq)

    def drop_live(self, path: str) -> None:
        old = self.live.pop(path, (None, 0))[0]
        if old is not None:
            self.by_number[old.number].discard(path)

    def to_bytes(self) -> bytes:
        """The state as stored with the cursor: compact JSON (`to_json`), zlib-compressed (a few dozen kB for
        kubernetes/enhancements rather than a quarter of a MB: a cheap write on every run)."""
        return zlib.compress(json.dumps(self.to_json(), separators=(",", ":")).encode(), 1)

    @staticmethod
    def unpack(stored: bytes | memoryview | None) -> dict:
        """`to_bytes`'s data back (an empty dict for an empty value), for `from_json`."""
        return json.loads(zlib.decompress(stored)) if stored else {}

    def to_json(self) -> dict:
        return {
            "rules": REPLAY_RULES,
            "live": {p: [plan.as_list() if plan else None, seq] for p, (plan, seq) in self.live.items()},
            "recorded": {str(n): plan.as_list() for n, plan in self.recorded.items()},
            "last_point": {str(n): list(point) for n, point in self.last_point.items()},
            "sequence": self.sequence,
        }

    @classmethod
    def from_json(cls, data: Mapping) -> ReplayState:
        if not data:
            return cls()
        return cls(
            live={p: (Plan.from_list(plan) if plan else None, seq) for p, (plan, seq) in data["live"].items()},
            recorded={int(n): Plan.from_list(plan) for n, plan in data["recorded"].items()},
            last_point={int(n): (stage, target) for n, (stage, target) in data["last_point"].items()},
            sequence=data["sequence"],
        )


def _winner(state: ReplayState, number: int) -> tuple[str, Plan] | None:
    """The live file that speaks for KEP `number` (see module doc), or None when none is live."""
    candidates = []
    for path in state.by_number.get(number, ()):
        plan, seq = state.live[path]
        candidates.append((plan.status == "replaced", _directory_of(path) != number, -seq, path, plan))
    if not candidates:
        return None
    best = min(candidates)
    return best[3], best[4]


def _directory_of(path: str) -> int | None:
    from .kep_yaml import directory_number

    parts = path.split("/")
    return directory_number(parts[-2]) if len(parts) >= 2 else None


def replay(
    commits: Iterable[GitCommit],
    plans: Mapping[str, Plan | ImportFailure],
    *,
    state: ReplayState,
    counts: ReplayCounts,
) -> list[PlanRevision]:
    """Apply `commits` (oldest first) to `state`; the plan changes they make, with slips marked.

    `plans` maps each blob to its plan, or to the failure that skipped it (already reported by the caller): a
    file whose new blob fails keeps the plan it had, so one broken commit does not wipe a KEP's history.
    """
    revisions: list[PlanRevision] = []
    for commit in commits:
        counts.commits += 1
        state.sequence += 1
        touched, live_before = _apply_changes(commit, plans, state=state, counts=counts)
        for number in sorted(touched):
            if len(state.by_number.get(number, ())) > 1 and live_before.get(number, 0) <= 1:
                counts.duplicate_numbers += 1
            if revision := _record(number, commit, state=state, counts=counts):
                revisions.append(revision)
    return revisions


def _apply_changes(
    commit: GitCommit, plans: Mapping[str, Plan | ImportFailure], *, state: ReplayState, counts: ReplayCounts
) -> tuple[set[int], dict[int, int]]:
    """One commit's file changes applied to `state.live`: the KEP numbers it touched, and how many live files
    stated each of them before it (a second one appearing is a duplicate number)."""
    touched: set[int] = set()
    live_before: dict[int, int] = {}
    for change in commit.changes:
        before = state.live.get(change.path, (None, 0))[0]
        if before is not None:
            live_before.setdefault(before.number, len(state.by_number.get(before.number, ())))
    # Adds and edits before deletes: a move in one commit (a copy and a delete) is then seen as a rename.
    for change in sorted(commit.changes, key=lambda change: not change.blob):
        counts.file_changes += 1
        before, seq = state.live.get(change.path, (None, state.sequence))
        if before is not None:
            touched.add(before.number)
        if not change.blob:
            state.drop_live(change.path)
            if before is not None and len(state.by_number.get(before.number, ())) >= 1:
                counts.renames += 1  # another live file still states the number: the copy of a move
            continue
        plan = plans.get(change.blob)
        if isinstance(plan, Plan):
            if change.path not in state.live:
                seq = state.sequence
            if plan.number not in live_before:
                live_before[plan.number] = len(state.by_number.get(plan.number, ()))
            state.set_live(change.path, plan, seq)
            touched.add(plan.number)
        elif change.path not in state.live:
            state.set_live(change.path, None, state.sequence)
    return touched, live_before


def _record(number: int, commit: GitCommit, *, state: ReplayState, counts: ReplayCounts) -> PlanRevision | None:
    """The revision of KEP `number` after `commit`, its slip marked; None when its winning plan is unchanged, or
    when every file of the KEP was deleted (its last recorded plan stands)."""
    chosen = _winner(state, number)
    if chosen is None:
        return None
    path, plan = chosen
    if state.recorded.get(number) == plan:
        return None
    state.recorded[number] = plan
    # A slip moves the current stage's own milestone (KEP-1287: milestone.alpha 1.22 -> ... -> 1.27, five slips),
    # not `latest-milestone` while the stage stays put (alpha kept through 1.28-1.31 after shipping in 1.27).
    point = plan.stage_milestone
    slipped_from = ""
    last = state.last_point.get(number)
    if point:
        if last is not None:
            slipped_from = plan_slip(
                before_stage=last[0], before_target=last[1], after_stage=plan.stage, after_target=point
            )
        state.last_point[number] = (plan.stage, point)
    counts.revisions += 1
    counts.slips += bool(slipped_from)
    return PlanRevision(plan, commit.sha, commit.committed_at, path, slipped_from, position=state.sequence)
