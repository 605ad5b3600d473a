"""Writes of KEP plan history: `kep_history_import` replays kubernetes/enhancements' master with the git CLI.

One `git log --first-parent --raw` pass over `keps/**/kep.yaml` from the last commit read (all of history the
first time), one `git cat-file --batch` for the blobs it names, each blob parsed once (`keps.importers.
kep_history`), and the plan changes written in one locked transaction with the new cursor. An up-to-date
clone costs two `git rev-parse` calls and one query.
"""

from __future__ import annotations

from pathlib import Path

from core import gitcli
from core.importing import (
    MAX_FILE_BYTES,
    ImportFailure,
    ImportReport,
    ImportUsageError,
    Progress,
    import_in_one_transaction,
    no_progress,
)

from .importers.kep_history import (
    REPLAY_RULES,
    GitCommit,
    Plan,
    PlanRevision,
    ReplayCounts,
    ReplayState,
    parse_raw_log,
    read_plan,
    replay,
)
from .importers.kep_yaml import NotAKepYet
from .models import KepHistoryCursor, KepPlanChange

__all__ = ["HISTORY_BRANCHES", "git_blobs", "git_log", "kep_history_import"]

#: The branch replayed, by the first name the clone has: upstream's default branch is master.
HISTORY_BRANCHES = ("master", "main", "HEAD")
#: kep.yaml at any depth under keps/ (sig folders, and the older flat layout), from the top of the repository
#: even when PATH is a folder inside it (`top`).
KEP_PATHSPEC = ":(top,glob)keps/**/kep.yaml"
LOCK_NAME = "import_keps_history"
#: Seconds one git call of the history import may take (the whole log of kubernetes/enhancements takes ~5 s).
HISTORY_GIT_TIMEOUT = 600.0


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """The output of `git -C root args` through the safe runner (`core.gitcli`: no repository config that names a
    program, no hooks, pager or signature check, a time limit); a git that fails is the user's problem (exit 2),
    naming the command."""
    if args and args[0] == "log":
        args = ("log", "--no-show-signature", *args[1:])
    try:
        return gitcli.git(root, *args, stdin=stdin, timeout=HISTORY_GIT_TIMEOUT)
    except gitcli.GitError as exc:
        raise ImportUsageError(f"{exc} in {root}") from exc


def _head(root: Path) -> tuple[str, str]:
    """(branch name, commit) of the branch replayed."""
    for name in HISTORY_BRANCHES:
        try:
            return name, _git(root, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}").decode().strip()
        except ImportUsageError:
            continue
    raise ImportUsageError(f"{root}: no master, main or HEAD commit to read")


def git_log(root: Path, *, head: str, since: str = "") -> list[GitCommit]:
    """First-parent commits up to `head` (after `since`), oldest first, with the kep.yaml files each changed.

    `--diff-merges=first-parent`: a merge's change is what it brought to master; `--no-renames`: a move is a
    copy and a delete, as the replay expects.
    """
    text = _git(
        root,
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "--raw",
        "--no-abbrev",
        "--no-renames",
        "--reverse",
        "--format=commit %H %cI",
        f"{since}..{head}" if since else head,
        "--",
        KEP_PATHSPEC,
    )
    return parse_raw_log(text.decode("utf-8", "replace"))


class _Blobs(dict):
    """Blob contents by name; a blob refused by the runner (over the importers' size limit, missing) raises the
    ImportFailure that skips the files naming it, with the reason."""

    def __init__(self, contents: dict[str, bytes], refused: dict[str, str]):
        super().__init__(contents)
        self.refused = refused

    def __missing__(self, blob: str) -> bytes:
        raise ImportFailure(self.refused.get(blob, "blob not read"))


def git_blobs(root: Path, blobs: list[str]) -> dict[str, bytes]:
    """The content of each blob, streamed one at a time from `git cat-file --batch` after its size was read with
    `--batch-check`: a blob over `MAX_FILE_BYTES` (the importers' limit) is never loaded, and looking it up
    raises ImportFailure saying so."""
    contents: dict[str, bytes] = {}
    refused: dict[str, str] = {}
    try:
        for read in gitcli.blobs_read(root, blobs, max_bytes=MAX_FILE_BYTES, timeout=HISTORY_GIT_TIMEOUT):
            if read.content is None:
                refused[read.sha] = f"blob {read.sha[:12]}: {read.refused}"
            else:
                contents[read.sha] = read.content
    except gitcli.GitError as exc:
        raise ImportUsageError(f"{exc} in {root}") from exc
    return _Blobs(contents, refused)


def _plans(
    root: Path, commits: list[GitCommit], report: ImportReport, counts: ReplayCounts, progress: Progress
) -> dict[tuple[str, str], Plan | ImportFailure]:
    """Each (blob, path's directory) parsed once: a kep.yaml without `kep-number` takes its directory's."""
    first_seen: dict[tuple[str, str], tuple[str, str]] = {}
    links: set[str] = set()
    for commit in commits:
        for change in commit.changes:
            if change.blob:
                key = (change.blob, change.path.rsplit("/", 2)[-2] if "/" in change.path else "")
                first_seen.setdefault(key, (change.path, commit.sha))
                if change.symlink:
                    links.add(change.blob)
    contents = git_blobs(root, sorted({blob for blob, _ in first_seen} - links))
    plans: dict[tuple[str, str], Plan | ImportFailure] = {}
    # A file keeps its quirk through many commits: each warning is reported once per file, at its first commit.
    warned: set[str] = set()
    for key, (path, sha) in progress(list(first_seen.items())):
        source = f"{path}@{sha[:12]}"
        counts.blobs_parsed += 1
        warnings: list[str] = []
        try:
            if key[0] in links:
                # A kep.yaml committed as a symbolic link: its blob is a path; nothing is read through it.
                counts.skipped_unreadable += 1
                raise ImportFailure("a symbolic link in the repository; not read", source=source)
            raw = contents[key[0]]
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                counts.skipped_unreadable += 1
                raise ImportFailure(f"not valid UTF-8 (byte {exc.start})", source=source) from None
            try:
                plans[key] = read_plan(text, path=path, source=source, counts=counts, warnings=warnings)
            except ImportFailure as failure:
                if "kep-number" != failure.field:
                    counts.skipped_unreadable += 1
                raise
            for warning in warnings:
                general = warning.replace(source, path, 1)
                if general not in warned:
                    warned.add(general)
                    report.warn(warning)
        except NotAKepYet as draft:
            # A draft waiting for its number (`0000-…`, `NNNN-…`) is no KEP yet: listed, not a failure.
            plans[key] = draft
            report.note(f"not a KEP yet: {draft.located(source)}", verbosity=2)
        except ImportFailure as failure:
            plans[key] = failure
            report.skip(failure.located(source))
    return plans


def _replay(
    commits: list[GitCommit],
    plans: dict[tuple[str, str], Plan | ImportFailure],
    *,
    state: ReplayState,
    counts: ReplayCounts,
) -> list[PlanRevision]:
    revisions: list[PlanRevision] = []
    for commit in commits:
        lookup = {
            change.blob: plans[(change.blob, change.path.rsplit("/", 2)[-2] if "/" in change.path else "")]
            for change in commit.changes
            if change.blob
        }
        revisions.extend(replay([commit], lookup, state=state, counts=counts))
    return revisions


def _row(revision: PlanRevision) -> KepPlanChange:
    plan = revision.plan
    return KepPlanChange(
        kep_number=plan.number,
        commit_sha=revision.sha,
        committed_at=revision.committed_at,
        position=revision.position,
        path=revision.path[-300:],
        stage=plan.stage,
        status=plan.status,
        latest_milestone=plan.latest_milestone,
        milestones=plan.milestone_map,
        target_milestone=plan.target,
        slipped_from=revision.slipped_from,
    )


def kep_history_import(
    *, root: Path, dry_run: bool = False, progress: Progress = no_progress, master: str = ""
) -> ImportReport:
    """Record each KEP's plan changes from the master history of the kubernetes/enhancements clone at `root`.

    Reads only the commits after the cursor; replays from the start when there is no cursor or its commit is
    not on the branch any more (then rows the new replay does not produce are removed). Idempotent: a row per
    KEP and commit, so a replay over rows already stored creates none. `master`, the commit the caller has just
    checked `master` out at (a full object name), spares asking git for it.
    """
    root = Path(root)
    if not root.is_dir():
        raise ImportUsageError(f"{root}: not a folder")
    if gitcli.is_sha(master):
        branch, head = "master", master
    else:
        _git(root, "rev-parse", "--git-dir")
        branch, head = _head(root)
    report = ImportReport()
    cursor = KepHistoryCursor.objects.filter(branch=branch).first()
    stored = ReplayState.unpack(cursor.state) if cursor is not None else {}
    if cursor is not None and stored.get("rules") != REPLAY_RULES:
        report.note("the history rules changed since the last run (slips, order, numbers); replaying all", verbosity=1)
        cursor.last_commit = ""  # not continued from: every stored row is checked against the new replay
    if cursor is not None and cursor.last_commit == head:
        report.note(f"{branch} at {head[:12]}: no new commits since the last run", verbosity=1)
        return report
    since = _resume_after(root, cursor, branch=branch, head=head, report=report)
    state = ReplayState.from_json(stored) if since else ReplayState()
    commits = git_log(root, head=head, since=since)
    counts = ReplayCounts()
    plans = _plans(root, commits, report, counts, progress)
    revisions = _replay(commits, plans, state=state, counts=counts)
    report.files_read = counts.blobs_parsed
    if not since:
        report.note(
            "history starts with the first kep.yaml (2020): KEPs of the markdown era have no earlier plan", verbosity=1
        )
    for line in counts.lines():
        report.note(line, verbosity=1)

    def write() -> None:
        _plan_changes_write(revisions, replayed_all=not since, branch=branch, report=report)
        _cursor_write(cursor, branch=branch, head=head, commits=commits, state=state)

    return import_in_one_transaction(lock_name=LOCK_NAME, dry_run=dry_run, report=report, write=write)


def _resume_after(root: Path, cursor: KepHistoryCursor | None, *, branch: str, head: str, report: ImportReport) -> str:
    """The commit to read on from: the cursor's when it is still on the branch, else '' (replay everything)."""
    if cursor is None or not cursor.last_commit:
        return ""
    try:
        _git(root, "merge-base", "--is-ancestor", cursor.last_commit, head)
    except ImportUsageError:
        report.note(f"the last commit read ({cursor.last_commit[:12]}) is not on {branch}; replaying all", verbosity=1)
        return ""
    return cursor.last_commit


#: What a replay derives for a row beyond its commit's plan: corrected in place when the rules change.
_DERIVED = ("position", "path", "stage", "status", "latest_milestone", "milestones", "target_milestone", "slipped_from")


def _plan_changes_write(
    revisions: list[PlanRevision], *, replayed_all: bool, branch: str, report: ImportReport
) -> None:
    """The rows of `revisions` not stored yet; after a replay of everything, the stored rows it did not produce
    (commits no longer on the branch) removed."""
    rows = [_row(revision) for revision in revisions]
    numbers = {row.kep_number for row in rows}
    stored = KepPlanChange.objects.all() if replayed_all else KepPlanChange.objects.filter(kep_number__in=numbers)
    existing = {
        (number, sha): (pk, values)
        for pk, number, sha, *values in stored.values_list("pk", "kep_number", "commit_sha", *_DERIVED)
    }
    new = [row for row in rows if (row.kep_number, row.commit_sha) not in existing]
    KepPlanChange.objects.bulk_create(new, batch_size=1000, ignore_conflicts=True)
    # A row stored under older rules (its slip, its position) is corrected in place: same KEP, same commit.
    changed = []
    for row in rows:
        pk, values = existing.get((row.kep_number, row.commit_sha), (None, None))
        if pk is not None and list(values) != [getattr(row, name) for name in _DERIVED]:
            row.pk = pk
            changed.append(row)
    KepPlanChange.objects.bulk_update(changed, _DERIVED, batch_size=1000)
    report.count("created", len(new))
    report.count("updated", len(changed))
    report.count("unchanged", len(rows) - len(new) - len(changed))
    if replayed_all:
        stale = set(existing) - {(row.kep_number, row.commit_sha) for row in rows}
        if stale:
            KepPlanChange.objects.filter(pk__in=[existing[key][0] for key in stale]).delete()
            report.note(f"{len(stale)} plan changes no longer on {branch} removed", verbosity=1)


def _cursor_write(
    cursor: KepHistoryCursor | None, *, branch: str, head: str, commits: list[GitCommit], state: ReplayState
) -> None:
    """The branch's cursor moved to `head`, with the replay state to continue from."""
    last_at = commits[-1].committed_at if commits else None
    if last_at is None:
        last_at = cursor.last_committed_at if cursor is not None else None
    if last_at is None:
        from django.utils import timezone

        last_at = timezone.now()
    values = {"last_commit": head, "last_committed_at": last_at, "state": state.to_bytes()}
    # The row read at the start is updated in one statement (the import's lock keeps others off it), without
    # reading its large replay state back first as update_or_create would.
    if cursor is None or not KepHistoryCursor.objects.filter(pk=cursor.pk, branch=branch).update(**values):
        KepHistoryCursor.objects.update_or_create(branch=branch, defaults=values)
