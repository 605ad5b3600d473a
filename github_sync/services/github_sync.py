"""Sync a release's tracked enhancements from the release team's KEP tracking issues on GitHub.

The release team's source of truth is kubernetes/enhancements: each KEP's tracking issue (issue number = KEP
number) carries the release milestone and the `lead-opted-in` / `tracked/*` / `stage/*` / `sig/*` labels, and
its timeline says when each changed and who changed it. `github_release_sync` reads them and writes, per issue
and in its own transaction, the tracked enhancement and one status-history row per change at the event's real
instant (`releases.rules.github_issue_verdict` says which changes; `tracked_enhancement_mirror_history` writes
them).

Finding a release's issues. A KEP removed from a release is usually demilestoned afterwards, so the issues
currently in the milestone are not enough (the removed ones would vanish and inflate the merge rate). The
candidates are every issue updated since the cycle began (`since=`; an issue that entered the milestone was
updated then), those now in the milestone, and those an earlier sync kept; each candidate's timeline says
whether it was ever in the milestone.

Cost. Every page is fetched with the ETag it last had (`GitHubCachedResponse`), so a re-sync with nothing
changed costs only 304s, which GitHub does not count, and writes nothing: issues are rebuilt from the cached
bodies and compared with the database. Timelines are fetched by up to 8 threads at once while this thread
writes the issues already fetched; only this thread touches the database.
"""

import contextlib
import datetime
import logging
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from github_sync import metrics
from github_sync.github import (
    CachedPage,
    GitHubAuthError,
    GitHubClient,
    GitHubDeadlineExceeded,
    GitHubError,
    GitHubNotFound,
    GitHubRateLimited,
    Issue,
    MalformedPayload,
    Milestone,
    parse_issue,
    parse_milestone,
)
from github_sync.github.payloads import shape_issues, shape_timeline
from github_sync.rules import (
    GitHubVerdict,
    github_milestone_title,
    is_release_milestone,
)
from keps.models import Kep
from releases.models import (
    Release,
    TrackedEnhancement,
    parse_version,
)
from releases.services.stats import release_stats_request
from releases.services.versions import release_ensure_versions

from .github_sync_apply import SyncContext, apply_issue, create_batch, github_history, issue_verdict
from .github_sync_base import (
    CREATE_BATCH,
    DEFAULT_REPO,
    LOCK_NAMESPACE,
    LOCK_WAIT_SECONDS,
    MAX_IN_FLIGHT,
    SINCE_MARGIN,
    STORE_BATCH,
    GitHubSyncError,
    SyncReport,
    github_client,
    release_cycle,
)
from .github_sync_store import load_cache, release_lock, skip_unchanged, store_pages

__all__ = [
    "LOCK_NAMESPACE",
    "LOCK_WAIT_SECONDS",
    "GitHubClient",
    "GitHubError",
    "GitHubSyncError",
    "SyncReport",
    "github_backfill",
    "github_client",
    "github_current_release_sync",
    "github_release_sync",
    "release_lock",
]

logger = logging.getLogger(__name__)

# --- the sync ---------------------------------------------------------------------------------------------------


def github_release_sync(
    *,
    version: str,
    repo: str = DEFAULT_REPO,
    dry_run: bool = False,
    client: GitHubClient | None = None,
    now: datetime.datetime | None = None,
    echo: Callable[[str], None] | None = None,
    deadline: float | None = None,
) -> SyncReport:
    """Sync release `version` from `repo`'s tracking issues. Per-issue failures are skipped and listed in the
    report; a rate limit far ahead, or the sync's deadline (`deadline` seconds, GITHUB_SYNC_DEADLINE by default)
    passing, stops the sync with `report.stopped` set (what was synced is kept). Raises GitHubSyncError /
    GitHubError for what stops it before it starts (token, repo, milestone, the lock, the deadline).

    A `client` handed in with a deadline keeps it (one deadline for a whole sync run: labels, then the board),
    unless `deadline` is given."""
    started = time.perf_counter()
    seconds = deadline if deadline is not None else float(getattr(settings, "GITHUB_SYNC_DEADLINE", 300))
    release = Release.objects.filter(version=version).first()
    if release is None and not dry_run:
        # A release no schedule import made yet: its milestone's due date stands in for release day.
        release = release_ensure_versions(versions=[version])[0][
            f"{parse_version(version)[0]}.{parse_version(version)[1]}"
        ]
    if release is None:
        raise GitHubSyncError(f"release {version} is not in the database: run import_schedule first.")
    report = SyncReport(version=release.version, repo=repo, dry_run=dry_run)
    own_client = client is None
    client = client or github_client()
    if own_client or deadline is not None or client.deadline is None:
        client.start_deadline(seconds)
    outcome = "failed"
    try:
        with release_lock(release.pk, timeout=min(LOCK_WAIT_SECONDS, max(1.0, client.deadline - client.now()))):
            _sync(release, repo, client, report, dry_run=dry_run, now=now or timezone.now(), echo=echo)
        outcome = "stopped" if report.stopped else "ok"
    finally:
        report.requests, report.not_modified, report.retries = client.requests, client.not_modified, client.retries
        report.seconds = time.perf_counter() - started
        if own_client:
            client.close()
        if not dry_run:
            metrics.github_sync_done(version=release.version, seconds=report.seconds, outcome=outcome)
    return report


def _sync(release, repo, client, report, *, dry_run, now, echo) -> None:
    base = f"/repos/{repo}"
    load_cache(client, [f"{base}/milestones", f"{base}/issues"])
    milestone, milestone_pages = _release_milestone(client, base, release=release, repo=repo)
    cycle = release_cycle(release, milestone.due_on)

    pools = ThreadPoolExecutor(MAX_IN_FLIGHT, thread_name_prefix="github-sync")
    try:
        issues, list_pages = _candidate_issues(pools, client, base, milestone=milestone, cycle=cycle, report=report)
        context, numbers = _sync_context(release, issues, client, base, cycle=cycle, now=now, dry_run=dry_run)
        writer = _IssueWriter(context=context, report=report, echo=echo, new_pages=[*milestone_pages, *list_pages])
        pending = {pools.submit(_fetch_issue, client, base, issues, number): number for number in numbers}
        _write_as_fetched(pending, writer)
        writer.finish()
    finally:
        pools.shutdown(wait=True, cancel_futures=True)
    if context.changed and not dry_run:
        # One stats recompute for the whole sync, not one per issue.
        release_stats_request(release_ids=[release.pk])
    report.not_opted_in.sort()


def _release_milestone(client, base: str, *, release: Release, repo: str) -> tuple[Milestone, list[CachedPage]]:
    """The repo's milestone of `release`, and the milestone list's pages fetched anew."""
    try:
        milestones = client.get_all(f"{base}/milestones", {"state": "all", "per_page": 100})
    except GitHubNotFound as exc:
        # The repository's own 404 (or 410): a usage error, unlike one issue's (a skip, see `_write_as_fetched`).
        raise GitHubSyncError(
            f"GitHub has no repository {repo} ({exc.status}): check the repository name (--repo owner/name)."
        ) from exc
    for item in milestones.items:
        try:
            milestone = parse_milestone(item)
        except MalformedPayload:
            continue
        if is_release_milestone(milestone.title, release.version):
            return milestone, list(milestones.new_pages)
    title = github_milestone_title(release.version)
    raise GitHubSyncError(f"{repo} has no milestone {title}: check --repo and the release version.")


def _candidate_issues(
    pools: ThreadPoolExecutor, client, base: str, *, milestone: Milestone, cycle, report: SyncReport
) -> tuple[dict[int, Issue], list[CachedPage]]:
    """The issues in the milestone and those updated since the cycle began (both lists fetched at once), less pull
    requests and issues opened after release day; with the lists' pages fetched anew."""
    lists = [
        pools.submit(
            client.get_all,
            f"{base}/issues",
            {"state": "all", "milestone": milestone.number, "per_page": 100},
            shape=shape_issues,
        )
    ]
    if cycle.start is not None:
        since = (cycle.start - SINCE_MARGIN).strftime("%Y-%m-%dT%H:%M:%SZ")
        lists.append(
            pools.submit(
                client.get_all, f"{base}/issues", {"state": "all", "since": since, "per_page": 100}, shape=shape_issues
            )
        )
    issues: dict[int, Issue] = {}
    pages: list[CachedPage] = []
    for future in lists:
        fetched = future.result()
        pages.extend(fetched.new_pages)
        for item in fetched.items:
            try:
                issue = parse_issue(item)
            except MalformedPayload as exc:
                report.skipped.append(f"issue list: {exc}")
                continue
            if issue.is_pull_request:
                continue
            if cycle.release_day and issue.created_at and issue.created_at > cycle.release_day:
                continue  # opened after release day: cannot have been in this release
            issues[issue.number] = issue
    return issues, pages


def _sync_context(
    release: Release, issues: dict[int, Issue], client, base: str, *, cycle, now, dry_run: bool
) -> tuple[SyncContext, list[int]]:
    """What the writes need (the release's rows by KEP number, their GitHub history, the KEPs), and the numbers of
    the issues to read: the candidates and those an earlier sync kept; their cached pages are loaded."""
    # A KEP-less feature (an early feature sheet's) has no tracking issue: the sync leaves it alone.
    rows = {
        row.kep.number: row
        for row in TrackedEnhancement.objects.filter(release=release, kep__isnull=False).select_related(
            "kep", "sig", "assignee"
        )
    }
    # Keep an issue once seen: one that left every list (e.g. an old release's) is still read by number.
    kept = sorted({row.github_issue_number for row in rows.values() if row.github_issue_number} - set(issues))
    numbers = sorted(set(issues) | set(kept))
    load_cache(client, [_timeline_path(base, n) for n in numbers] + [f"{base}/issues/{n}" for n in kept])
    history = github_history(release)
    context = SyncContext(release=release, rows=rows, history=history, cycle=cycle, now=now, dry_run=dry_run)
    if not dry_run:
        # Looked up once per release rather than once per issue (~25 ms of queries per new issue
        # made the writer, not GitHub, the bottleneck).
        context.keps = {kep.number: kep for kep in Kep.objects.select_related("owning_sig").filter(number__in=numbers)}
    return context, numbers


def _timeline_path(base: str, number: int) -> str:
    return f"{base}/issues/{number}/timeline"


def _fetch_issue(client, base: str, issues: dict[int, Issue], number: int):
    """(issue, timeline items, pages fetched anew) of issue `number`, read by number when no list had it. Runs in
    a pool thread: no database."""
    issue = issues.get(number)
    pages = []
    if issue is None:
        single = client.get_all(f"{base}/issues/{number}", shape=shape_issues)
        pages.extend(single.new_pages)
        issue = parse_issue(single.body)
        if issue.number != number:
            # A 301 (followed within the API) to an issue transferred to another repository, where it has another
            # number: no longer this KEP's tracking issue.
            raise GitHubNotFound(f"issue #{number} was transferred", 301)
    timeline = client.get_all(_timeline_path(base, number), {"per_page": 100}, shape=shape_timeline)
    return issue, timeline.items, pages + timeline.new_pages


def _write_as_fetched(pending: dict, writer: "_IssueWriter") -> None:
    """Write each issue as its fetch completes while the other threads fetch; a rate limit or the deadline stops
    the sync (`report.stopped`), a token or repo GitHub refuses raises, any other failure skips the issue."""
    while pending:
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            number = pending.pop(future)
            try:
                issue, items, pages = future.result()
            except (GitHubRateLimited, GitHubDeadlineExceeded) as exc:
                writer.report.stopped = str(exc)
                for other in pending:
                    other.cancel()
                pending.clear()
                break
            except GitHubNotFound as exc:
                # One issue deleted, transferred out of reach or hidden: named and skipped, the rest synced.
                writer.skip(number, f"GitHub has it no more ({exc.status}: deleted, transferred or hidden); skipped")
                continue
            except GitHubAuthError:
                raise
            except (GitHubError, MalformedPayload) as exc:
                # e.g. a 5xx that outlasted the retries: this issue waits for the next run.
                writer.skip(number, exc)
                continue
            writer.take(number, issue, items, pages)
        writer.flush(last=not pending)


@dataclass
class _IssueWriter:
    """The writing side of a sync, in this thread only: each fetched issue's verdict applied, new rows a batch at a
    time, fetched pages stored in slices."""

    context: SyncContext
    report: SyncReport
    echo: Callable[[str], None] | None
    new_pages: list[CachedPage]
    fresh: list[tuple[Issue, GitHubVerdict]] = field(default_factory=list)

    def skip(self, number: int, exc: Exception) -> None:
        skip_unchanged(self.report, f"issue #{number}: {exc}", self.echo)

    def take(self, number: int, issue: Issue, items, pages: list[CachedPage]) -> None:
        """Write what issue `number` says (a row synced before, at once; a new one, with its batch)."""
        self.report.issues_read += 1
        # Pages are stored in batches after the issues are written (also those of a skipped issue:
        # until GitHub's answer changes, it is skipped again for a 304); a sync that dies before
        # storing them only costs the next run full answers.
        self.new_pages.extend(pages)
        try:
            verdict = issue_verdict(self.context, issue, items)
        except (MalformedPayload, ValueError) as exc:
            self.skip(number, exc)  # nothing written for it
            return
        if verdict.not_opted_in:
            self.report.not_opted_in.append(issue.number)
        if not verdict.tracked:
            return
        if issue.number not in self.context.rows and not self.context.dry_run:
            self.fresh.append((issue, verdict))  # written in batches by `flush`
            return
        try:
            with transaction.atomic():
                apply_issue(self.context, issue, verdict, self.report)
        except (MalformedPayload, ValueError, IntegrityError, DatabaseError) as exc:
            self.skip(number, exc)

    def flush(self, *, last: bool) -> None:
        """Write while the other threads fetch: new rows a batch at a time, cached pages in slices small enough
        that the last one after the final answer is short."""
        if self.fresh and (len(self.fresh) >= CREATE_BATCH or last):
            create_batch(self.context, self.fresh, self.report, self.echo)
            self.fresh = []
        if not self.context.dry_run and len(self.new_pages) >= STORE_BATCH:
            store_pages(self.new_pages)
            self.new_pages = []

    def finish(self) -> None:
        if self.fresh:  # a rate limit stopped the loop with some issues read but not written
            create_batch(self.context, self.fresh, self.report, self.echo)
        if not self.context.dry_run:
            store_pages(self.new_pages)


# --- entry points for the command and the task ------------------------------------------------------------------


def github_backfill(
    *,
    versions: list[str],
    repo: str = DEFAULT_REPO,
    dry_run: bool = False,
    echo: Callable[[str], None] | None = None,
    client: GitHubClient | None = None,
) -> list[SyncReport]:
    """Sync several releases one after another, sharing one client (`client`, else one made here); stops at a
    rate limit. Each of several releases gets a deadline of its own; a single one keeps the client's."""
    reports = []
    with contextlib.nullcontext(client) if client is not None else github_client() as client:
        for version in versions:
            if len(versions) > 1:
                client.deadline = None
            report = github_release_sync(version=version, repo=repo, dry_run=dry_run, client=client, echo=echo)
            reports.append(report)
            client.requests = client.not_modified = client.retries = 0
            if report.stopped:
                break
    return reports


def github_current_release_sync(*, repo: str | None = None, client: GitHubClient | None = None) -> SyncReport | None:
    """Beat: sync the current release; None when there is none. A `client` handed in keeps its deadline."""
    release = Release.objects.current()
    if release is None:
        return None
    return github_release_sync(version=release.version, repo=repo or settings.SIGTRACKER_GITHUB_REPO, client=client)
