"""One refresh of the upstream sources: fetch, map the changed paths to imports, run them, keep the run on record.

Per source, steps 1-3's git work in a thread of its own, started for every source at once; the imports in
`SOURCE_SETTINGS` order, each source's as soon as its checkout is ready:
1. the URL is checked (`sources.url_check`); the clone is made or fetched (`repository`);
2. the fetched head equals the cursor: "nothing to change", nothing imported (the source's `last_success_at` is
   the only write: freshness is "checked and current", not "changed");
3. else the paths changed since the cursor (every path of the tree on the first run, with `--full`, or when the
   cursor is not in the fetched history any more: a force-push, said as "rewritten") are mapped to imports
   (`plans.import_plan`), the working tree is checked out at the head and each import service runs (the plan
   history import, which reads git's objects and not the working tree, as soon as the paths are mapped, while
   the checkout is made);
4. the cursor moves to the head only when every import ran: a file an importer skipped as bad input is reported
   (outcome `skipped`, exit 1) and does not hold it back; an import that raised (a usage error, a database error,
   a time-out of git or of the task) leaves it where it was, so the next run reads the same changes again.
One source failing is recorded and the others go on. Two refreshes never import at once: a session advisory lock
(`core.db.locks`) is tried, and a second refresh waits at most SIGTRACKER_UPSTREAM_LOCK_WAIT seconds, then skips.
"""

from __future__ import annotations

import datetime
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from community.services import sigs_yaml_import
from core import gitcli
from core.db.locks import LockTimeout, session_lock
from core.importing import ImportReport, ImportUsageError
from keps.services import kep_tree_import
from keps.services_history import kep_history_import
from meetings.services import meeting_notes_import_files
from releases.services.release_dirs import release_directories_import

from . import metrics, repository
from .choices import RunOutcome, SourceStatus
from .models import UpstreamRun, UpstreamSource
from .plans import ImportStep, import_plan
from .sources import Source, UrlRefused, configured_sources, public_url, url_check

logger = logging.getLogger(__name__)

__all__ = ["RefreshBusy", "SourceResult", "upstream_refresh", "upstream_refresh_lock"]

LOCK_NAMESPACE = 0x7570  # "up"
LOCK_KEY = 1


class RefreshBusy(Exception):
    """Another refresh holds the lock."""


@dataclass
class SourceResult:
    """What one source's refresh did, as the command prints it and the run row keeps it."""

    name: str
    outcome: str = RunOutcome.FAILED
    from_commit: str = ""
    to_commit: str = ""
    full: bool = False
    files_read: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: list[str] = field(default_factory=list)
    warnings: int = 0
    imports: list[str] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.outcome in (RunOutcome.CURRENT, RunOutcome.IMPORTED, RunOutcome.REWRITTEN)

    def add(self, report: ImportReport) -> None:
        self.files_read += report.files_read
        self.created += report.created
        self.updated += report.updated
        self.unchanged += report.unchanged
        self.skipped += [str(failure) for failure in report.skipped]
        self.warnings += len(report.warnings)


@contextmanager
def upstream_refresh_lock(*, timeout: float) -> Iterator[None]:
    """Held while a refresh runs; RefreshBusy when another one kept it for `timeout` seconds."""
    try:
        with session_lock(LOCK_NAMESPACE, LOCK_KEY, timeout=timeout):
            yield
    except LockTimeout as exc:
        raise RefreshBusy("another refresh of the upstream sources is running") from exc


def upstream_refresh(
    *, names: Sequence[str] = (), full: bool = False, dry_run: bool = False, wait: float | None = None
) -> list[SourceResult]:
    """Refresh the configured sources (those named, or all), each recorded as an UpstreamRun unless `dry_run`.

    The git work of every source (fetch, comparison with the cursor, checkout) starts at once, one thread per
    source, and the imports run one source after the other in refresh order as their checkouts are ready: the
    fetches (network-bound) overlap each other and the imports of the sources before them. Nothing leaves this
    function while a git of it still runs (the pool is waited for), so the lock covers every git call.

    Raises RefreshBusy when another refresh kept the lock past `wait` (default SIGTRACKER_UPSTREAM_LOCK_WAIT)."""
    sources = [source for source in configured_sources() if not names or source.name in names]
    notes_sigs = tuple(settings.SIGTRACKER_UPSTREAM_NOTES_SIGS)
    allow_file = settings.SIGTRACKER_UPSTREAM_ALLOW_FILE
    with upstream_refresh_lock(timeout=settings.SIGTRACKER_UPSTREAM_LOCK_WAIT if wait is None else wait):
        records = {
            source.name: UpstreamSource.objects.filter(name=source.name).first() or UpstreamSource(name=source.name)
            for source in sources
        }
        with ThreadPoolExecutor(max_workers=max(len(sources), 1), thread_name_prefix="upstream-git") as pool:
            prepared = {}
            for source in sources:
                git_work = _GitWork()
                since = records[source.name].last_commit
                future = pool.submit(
                    _source_prepare,
                    source,
                    git_work,
                    since=since,
                    full=full,
                    notes_sigs=notes_sigs,
                    allow_file=allow_file,
                )
                prepared[source.name] = (git_work, future)
            return [
                _source_refresh(source, records[source.name], *prepared[source.name], dry_run=dry_run)
                for source in sources
            ]


@dataclass
class _GitWork:
    """What a source's git work found, filled in by its thread as it goes (so a failure after the fetch still
    records the commit fetched)."""

    head: str = ""
    commit_at: datetime.datetime | None = None
    current: bool = False
    full: bool = False
    rewritten: bool = False
    steps: list[ImportStep] = field(default_factory=list)
    #: Set once `steps` is final (the checkout may still run), or when the git work ended early (current, failed).
    planned: threading.Event = field(default_factory=threading.Event)


#: Steps that read only git's objects at the fetched commit, never the working tree: they run while it is checked
#: out (the plan history import walks the commits and their blobs).
_STEPS_FROM_OBJECTS = frozenset({"kep-history"})


def _source_prepare(
    source: Source, work: _GitWork, *, since: str, full: bool, notes_sigs: Sequence[str], allow_file: bool
) -> None:
    """In a worker thread, no database: check the URL, fetch, map the changed paths to imports (`work.planned`
    is set then) and check the working tree out at the head when there is something to import."""
    try:
        url_check(source.url, setting=source.setting, allow_file=allow_file)
        checkout = source.checkout
        work.head, work.commit_at = repository.repository_fetch(checkout=checkout, url=source.url)
        head = work.head
        if since == head and not full:
            work.current = True
            return
        work.rewritten = bool(since) and not repository.is_ancestor(checkout=checkout, older=since, newer=head)
        work.full = full or work.rewritten or not since
        if work.full:
            paths = repository.all_paths(checkout=checkout, head=head)
        else:
            paths = repository.changed_paths(checkout=checkout, since=since, head=head)
        work.steps = import_plan(source.name, paths, notes_sigs=notes_sigs, full=work.full)
        work.planned.set()
        if work.steps:
            repository.repository_checkout(checkout=checkout, commit=head)
    finally:
        work.planned.set()  # never left waiting on a git work that failed or found nothing to do


def _source_refresh(
    source: Source, record: UpstreamSource, work: _GitWork, future: Future, *, dry_run: bool
) -> SourceResult:
    """Wait for the source's git work, run its imports, record the run. `seconds` is the time this source held
    the refresh up (its git work not yet done when its turn came, and its imports)."""
    started_at = timezone.now()
    started = time.monotonic()
    result = SourceResult(name=source.name, from_commit=record.last_commit)
    try:
        try:
            work.planned.wait()
            early = [step for step in work.steps if step.kind in _STEPS_FROM_OBJECTS]
            _steps_run(early, source, work, dry_run=dry_run, result=result)  # the checkout may still run
            future.result()
        finally:
            result.to_commit = work.head
        _import_changes(source, work, dry_run=dry_run, result=result, done=early)
    except (UrlRefused, gitcli.GitError, ImportUsageError) as exc:
        result.outcome, result.error = RunOutcome.FAILED, str(exc)
    except Exception as exc:  # a database error, a bug in one importer: recorded, the next source goes on
        logger.exception("upstream refresh of %s failed", source.name)
        result.outcome, result.error = RunOutcome.FAILED, f"{exc.__class__.__name__}: {exc}"[:2000]
        if exc.__class__.__name__ == "SoftTimeLimitExceeded":  # the task's time is up: record, then stop
            result.error = "the refresh task ran out of time"
            result.seconds = time.monotonic() - started
            if not dry_run:
                _record(record, source, result, started_at=started_at, commit_at=work.commit_at)
            raise
    result.seconds = time.monotonic() - started
    result.error = result.error.replace(source.url, public_url(source.url))
    if not dry_run:
        _record(record, source, result, started_at=started_at, commit_at=work.commit_at)
        metrics.run_observe(source=source.name, seconds=result.seconds, outcome=result.outcome)
    return result


def _steps_run(
    steps: Sequence[ImportStep], source: Source, work: _GitWork, *, dry_run: bool, result: SourceResult
) -> None:
    for step in steps:
        result.imports.append(step.describe())
        report = _STEPS[step.kind](step, source.checkout, dry_run, work.head)
        if report is None:
            continue
        if report.refused:
            raise ImportUsageError(f"{step.kind}: {report.refused}")
        result.add(report)


def _import_changes(
    source: Source, work: _GitWork, *, dry_run: bool, result: SourceResult, done: Sequence[ImportStep]
) -> None:
    """The source's steps but those `done` (run while the checkout was made), then the run's outcome."""
    if work.current:
        result.outcome = RunOutcome.CURRENT
        return
    result.full = work.full
    _steps_run([step for step in work.steps if step not in done], source, work, dry_run=dry_run, result=result)
    if result.skipped:
        result.outcome = RunOutcome.SKIPPED_FILES
    else:
        result.outcome = RunOutcome.REWRITTEN if work.rewritten else RunOutcome.IMPORTED


def _existing(checkout: Path, step: ImportStep) -> list[Path]:
    """The step's paths still in the tree (a deleted file or folder has nothing to import)."""
    return [checkout / path for path in step.paths if (checkout / path).exists()]


def _keps(step: ImportStep, checkout: Path, dry_run: bool, head: str) -> ImportReport | None:
    if step.paths and not _existing(checkout, step):
        return None
    # The checkout's own list of its files (the working tree is exactly the index after the checkout) spares
    # the import a walk of every folder of keps/.
    listing = repository.checked_out_paths(checkout=checkout, folder="keps")
    return kep_tree_import(root=checkout, dry_run=dry_run, only=step.paths or None, listing=listing)


def _kep_history(step: ImportStep, checkout: Path, dry_run: bool, head: str) -> ImportReport:
    return kep_history_import(root=checkout, dry_run=dry_run, master=head)  # checked out on `master` at `head`


def _releases(step: ImportStep, checkout: Path, dry_run: bool, head: str) -> ImportReport | None:
    """Whole release folders, and folders of which only files read alone changed (`release_files_read_alone`)."""
    wanted: dict[Path, set[str] | None] = {}  # folder -> the file names to read, None for all
    for path in step.paths:
        parts = path.split("/", 2)
        folder = checkout / parts[0] / parts[1]
        if len(parts) == 2:
            wanted[folder] = None
        elif wanted.get(folder, set()) is not None:
            wanted.setdefault(folder, set()).add(parts[2])
    folders = [folder for folder in wanted if folder.is_dir()]  # a directory gone has nothing to import
    if not folders:
        return None
    only = {folder: wanted[folder] for folder in folders if wanted[folder] is not None}
    return release_directories_import(paths=folders, dry_run=dry_run, only=only)


def _sigs(step: ImportStep, checkout: Path, dry_run: bool, head: str) -> ImportReport | None:
    return sigs_yaml_import(path=checkout / "sigs.yaml", dry_run=dry_run) if _existing(checkout, step) else None


def _notes(step: ImportStep, checkout: Path, dry_run: bool, head: str) -> ImportReport | None:
    files = _existing(checkout, step)
    if not files:
        return None
    # A changed notes file re-reads only its meetings whose section changed; a full run reads every one.
    return meeting_notes_import_files(paths=files, sig=step.sig, dry_run=dry_run, skip_unchanged=not step.full)


#: Each step: (the step, the checkout, dry run, the commit checked out) -> its report, or None (nothing to read).
_STEPS: dict[str, Callable[[ImportStep, Path, bool, str], ImportReport | None]] = {
    "keps": _keps,
    "kep-history": _kep_history,
    "releases": _releases,
    "sigs": _sigs,
    "notes": _notes,
}


@transaction.atomic
def _record(record: UpstreamSource, source: Source, result: SourceResult, *, started_at, commit_at) -> None:
    """The run on record; the source's cursor and freshness moved when the run succeeded or only skipped files."""
    now = timezone.now()
    record.url = public_url(source.url)
    record.last_run_at = now
    if result.outcome == RunOutcome.FAILED:
        record.status, record.error = SourceStatus.FAILED, result.error
    else:
        record.last_commit = result.to_commit
        record.last_commit_date = commit_at
        record.last_success_at = now
        record.error = ""
        if result.outcome != RunOutcome.CURRENT:
            record.status = SourceStatus.SKIPPED_FILES if result.skipped else SourceStatus.OK
        elif record.status in (SourceStatus.NEVER, SourceStatus.FAILED):
            record.status = SourceStatus.OK
    record.save()
    UpstreamRun.objects.create(
        source=record,
        started_at=started_at,
        duration_seconds=max(result.seconds, 0),
        from_commit=result.from_commit,
        to_commit=result.to_commit,
        outcome=result.outcome,
        full=result.full,
        files_read=result.files_read,
        created=result.created,
        updated=result.updated,
        unchanged=result.unchanged,
        skipped=len(result.skipped),
        skipped_reasons=result.skipped[:500],
        imports=result.imports,
        error=result.error,
    )
