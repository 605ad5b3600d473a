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

import datetime
import logging
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.utils import timezone

from keps.models import Kep
from releases import metrics
from releases.github import (
    CachedPage,
    GitHubAuthError,
    GitHubClient,
    GitHubDeadlineExceeded,
    GitHubError,
    GitHubNotFound,
    GitHubRateLimited,
    Issue,
    MalformedPayload,
    parse_issue,
    parse_milestone,
)
from releases.github.payloads import shape_issues, shape_timeline
from releases.models import (
    Release,
    TrackedEnhancement,
    parse_version,
)
from releases.rules import (
    GitHubVerdict,
    github_milestone_title,
    is_release_milestone,
)
from releases.services.retro import release_ensure_versions
from releases.services.stats import release_stats_request

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
    GitHubError for what stops it before it starts (token, repo, milestone, the lock, the deadline)."""
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
    client.start_deadline(seconds)
    outcome = "failed"
    try:
        with release_lock(release.pk, timeout=min(LOCK_WAIT_SECONDS, seconds)):
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
    title = github_milestone_title(release.version)
    milestones = client.get_all(f"{base}/milestones", {"state": "all", "per_page": 100})
    found = None
    for item in milestones.items:
        try:
            milestone = parse_milestone(item)
        except MalformedPayload:
            continue
        if is_release_milestone(milestone.title, release.version):
            found = milestone
            break
    if found is None:
        raise GitHubSyncError(f"{repo} has no milestone {title}: check --repo and the release version.")
    cycle = release_cycle(release, found.due_on)

    pools = ThreadPoolExecutor(MAX_IN_FLIGHT, thread_name_prefix="github-sync")
    try:
        lists = [
            pools.submit(
                client.get_all,
                f"{base}/issues",
                {"state": "all", "milestone": found.number, "per_page": 100},
                shape=shape_issues,
            )
        ]
        if cycle.start is not None:
            since = (cycle.start - SINCE_MARGIN).strftime("%Y-%m-%dT%H:%M:%SZ")
            lists.append(
                pools.submit(
                    client.get_all,
                    f"{base}/issues",
                    {"state": "all", "since": since, "per_page": 100},
                    shape=shape_issues,
                )
            )
        issues: dict[int, Issue] = {}
        list_pages: list[CachedPage] = list(milestones.new_pages)
        for future in lists:
            fetched = future.result()
            list_pages.extend(fetched.new_pages)
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

        # A KEP-less feature (an early feature sheet's) has no tracking issue: the sync leaves it alone.
        rows = {
            row.kep.number: row
            for row in TrackedEnhancement.objects.filter(release=release, kep__isnull=False).select_related(
                "kep", "sig", "assignee"
            )
        }
        # Keep an issue once seen: one that left every list (e.g. an old release's) is still read by number.
        kept = sorted({row.github_issue_number for row in rows.values() if row.github_issue_number} - set(issues))
        timeline_path = f"{base}/issues/{{}}/timeline"
        load_cache(
            client,
            [timeline_path.format(n) for n in sorted(set(issues) | set(kept))] + [f"{base}/issues/{n}" for n in kept],
        )
        history = github_history(release)
        context = SyncContext(release=release, rows=rows, history=history, cycle=cycle, now=now, dry_run=dry_run)
        if not dry_run:
            # Looked up once per release rather than once per issue (~25 ms of queries per new issue
            # made the writer, not GitHub, the bottleneck).
            context.keps = {
                kep.number: kep
                for kep in Kep.objects.select_related("owning_sig").filter(number__in=sorted(set(issues) | set(kept)))
            }

        def fetch(number: int):
            issue = issues.get(number)
            pages = []
            if issue is None:
                single = client.get_all(f"{base}/issues/{number}", shape=shape_issues)
                pages.extend(single.new_pages)
                issue = parse_issue(single.body)
            timeline = client.get_all(timeline_path.format(number), {"per_page": 100}, shape=shape_timeline)
            return issue, timeline.items, pages + timeline.new_pages

        pending = {pools.submit(fetch, number): number for number in sorted(set(issues) | set(kept))}
        new_pages: list[CachedPage] = list_pages
        fresh: list[tuple[Issue, GitHubVerdict]] = []
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                number = pending.pop(future)
                try:
                    issue, items, pages = future.result()
                except (GitHubRateLimited, GitHubDeadlineExceeded) as exc:
                    report.stopped = str(exc)
                    for other in pending:
                        other.cancel()
                    pending.clear()
                    break
                except (GitHubAuthError, GitHubNotFound):
                    raise
                except (GitHubError, MalformedPayload) as exc:
                    # e.g. a 5xx that outlasted the retries: this issue waits for the next run.
                    skip_unchanged(report, f"issue #{number}: {exc}", echo)
                    continue
                report.issues_read += 1
                # Pages are stored in batches after the issues are written (also those of a skipped issue:
                # until GitHub's answer changes, it is skipped again for a 304); a sync that dies before
                # storing them only costs the next run full answers.
                new_pages.extend(pages)
                try:
                    verdict = issue_verdict(context, issue, items)
                except (MalformedPayload, ValueError) as exc:
                    skip_unchanged(report, f"issue #{number}: {exc}", echo)  # nothing written for it
                    continue
                if verdict.not_opted_in:
                    report.not_opted_in.append(issue.number)
                if not verdict.tracked:
                    continue
                if issue.number not in context.rows and not dry_run:
                    fresh.append((issue, verdict))  # written in batches below
                    continue
                try:
                    with transaction.atomic():
                        apply_issue(context, issue, verdict, report)
                except (MalformedPayload, ValueError, IntegrityError, DatabaseError) as exc:
                    skip_unchanged(report, f"issue #{number}: {exc}", echo)
            # Write while the other threads fetch: new rows a batch at a time, cached pages in slices small
            # enough that the last one after the final answer is short.
            if fresh and (len(fresh) >= CREATE_BATCH or not pending):
                create_batch(context, fresh, report, echo)
                fresh = []
            if not dry_run and len(new_pages) >= STORE_BATCH:
                store_pages(new_pages)
                new_pages = []
        if fresh:  # a rate limit stopped the loop with some issues read but not written
            create_batch(context, fresh, report, echo)
        if not dry_run:
            store_pages(new_pages)
    finally:
        pools.shutdown(wait=True, cancel_futures=True)
    if context.changed and not dry_run:
        # One stats recompute for the whole sync, not one per issue.
        release_stats_request(release_ids=[release.pk])
    report.not_opted_in.sort()


# --- entry points for the command and the task ------------------------------------------------------------------


def github_backfill(
    *, versions: list[str], repo: str = DEFAULT_REPO, dry_run: bool = False, echo: Callable[[str], None] | None = None
) -> list[SyncReport]:
    """Sync several releases one after another, sharing one client; stops at a rate limit."""
    reports = []
    with github_client() as client:
        for version in versions:
            report = github_release_sync(version=version, repo=repo, dry_run=dry_run, client=client, echo=echo)
            reports.append(report)
            client.requests = client.not_modified = client.retries = 0
            if report.stopped:
                break
    return reports


def github_current_release_sync(*, repo: str | None = None) -> SyncReport | None:
    """Beat: sync the current release; None when there is none."""
    release = Release.objects.current()
    if release is None:
        return None
    return github_release_sync(version=release.version, repo=repo or settings.SIGTRACKER_GITHUB_REPO)
