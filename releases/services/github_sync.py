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
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlparse

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Min
from django.db.models.functions import Lower
from django.utils import timezone

from community.models import Person, Sig
from keps.models import Kep
from releases import metrics
from releases.choices import HistorySource, MilestoneKind, TrackedSource
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
    parse_timeline,
)
from releases.github.payloads import shape_issues, shape_timeline
from releases.models import (
    EnhancementStatusChange,
    GitHubCachedResponse,
    Milestone,
    Release,
    TrackedEnhancement,
    parse_version,
)
from releases.rules import (
    CYCLE_START_KIND,
    RELEASE_KIND,
    GitHubVerdict,
    github_issue_verdict,
    github_milestone_title,
    is_release_milestone,
)
from releases.services.retro import release_ensure_versions
from releases.services.stats import release_stats_request
from releases.services.tracking import (
    HistoryEntry,
    RecordedChange,
    tracked_enhancement_mirror_history,
    tracked_enhancements_create,
)

logger = logging.getLogger(__name__)

DEFAULT_REPO = "kubernetes/enhancements"
#: Requests in flight at once: GitHub asks integrators not to hammer it; 8 keeps a release sync to seconds.
MAX_IN_FLIGHT = 8
#: New tracked enhancements written per transaction, and cached pages stored per statement, while fetching.
CREATE_BATCH = 16
STORE_BATCH = 40
#: How far before the cycle start to look for issues updated (a SIG may opt in before the cycle opens).
SINCE_MARGIN = datetime.timedelta(days=30)
#: Namespace of the PostgreSQL advisory lock that serialises syncs of one release.
LOCK_NAMESPACE = 0x6769  # "gi"
#: The longest a sync waits for another sync of the same release to finish; then it gives up (that one is
#: doing the work) rather than hold a worker slot behind it.
LOCK_WAIT_SECONDS = 30.0


class GitHubSyncError(Exception):
    """A sync that cannot start (no token, unknown release or milestone): one line for the user."""


@dataclass
class SyncReport:
    version: str
    repo: str
    dry_run: bool = False
    issues_read: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    history_added: int = 0
    history_superseded: int = 0
    requests: int = 0
    not_modified: int = 0
    retries: int = 0
    seconds: float = 0.0
    not_opted_in: list[int] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    planned: list[str] = field(default_factory=list)
    stopped: str = ""

    def summary(self) -> str:
        verb = "would create" if self.dry_run else "created"
        return (
            f"v{self.version} from {self.repo}: {self.issues_read} issues read; tracked enhancements {verb} "
            f"{self.created}, updated {self.updated}, unchanged {self.unchanged}; history rows added "
            f"{self.history_added}, superseded {self.history_superseded}; {len(self.not_opted_in)} in milestone, "
            f"not opted in; {self.requests} requests "
            f"({self.not_modified} not modified, {self.retries} retries) in {self.seconds:.1f} s."
        )


def github_settings() -> tuple[str, str]:
    """(token, API URL) from the settings; raises GitHubSyncError naming what to set."""
    token = getattr(settings, "GITHUB_TOKEN", "")
    if not token:
        raise GitHubSyncError("GITHUB_TOKEN is not set: export a GitHub token (public read access is enough).")
    return token, getattr(settings, "GITHUB_API_URL", "") or "https://api.github.com"


def github_client(*, cache: dict | None = None) -> GitHubClient:
    token, api_url = github_settings()
    return GitHubClient(token=token, api_url=api_url, cache=cache, max_in_flight=MAX_IN_FLIGHT)


# --- instants of the release ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Cycle:
    start: datetime.datetime | None
    enhancements_freeze: datetime.datetime | None
    release_day: datetime.datetime | None


def _midnight(day: datetime.date | None) -> datetime.datetime | None:
    return datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC) if day else None


def _cycle(release: Release, due_on: datetime.datetime | None) -> _Cycle:
    first = {
        row["kind"]: row["at"]
        for row in Milestone.objects.filter(release=release, sig__isnull=True)
        .values("kind")
        .annotate(at=Min("at"))
        .order_by()
    }
    return _Cycle(
        start=first.get(CYCLE_START_KIND) or _midnight(release.cycle_start),
        enhancements_freeze=first.get(MilestoneKind.ENHANCEMENTS_FREEZE),
        release_day=first.get(RELEASE_KIND) or _midnight(release.release_date) or due_on,
    )


# --- the ETag cache ---------------------------------------------------------------------------------------------


def _resource(url: str) -> str:
    return urlparse(url).path[:300]


def _load_cache(client: GitHubClient, resources: list[str]) -> None:
    for start in range(0, len(resources), 500):
        for row in GitHubCachedResponse.objects.filter(resource__in=resources[start : start + 500]).values_list(
            "url", "etag", "body", "next_url"
        ):
            client.cache[row[0]] = CachedPage(url=row[0], etag=row[1], body=row[2], next_url=row[3])


def _store_pages(pages: list[CachedPage]) -> None:
    if not pages:
        return
    now = timezone.now()
    if connection.vendor == "postgresql":
        # executemany with one JSON text parameter per page: bulk_create's UNNEST arrays would escape every body
        # into an array literal in Python, which cost over a second for one release's pages in the sync bench.
        table = connection.ops.quote_name(GitHubCachedResponse._meta.db_table)
        with connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO {table} (url, resource, etag, body, next_url, fetched_at) "
                "VALUES (%s, %s, %s, %s::jsonb, %s, %s) ON CONFLICT (url) DO UPDATE SET etag = EXCLUDED.etag, "
                "body = EXCLUDED.body, next_url = EXCLUDED.next_url, fetched_at = EXCLUDED.fetched_at",
                [
                    (page.url, _resource(page.url), page.etag, json.dumps(page.body), page.next_url or "", now)
                    for page in pages
                ],
            )
        return
    GitHubCachedResponse.objects.bulk_create(
        [
            GitHubCachedResponse(
                url=page.url,
                resource=_resource(page.url),
                etag=page.etag,
                body=page.body,
                next_url=page.next_url or "",
                fetched_at=now,
            )
            for page in pages
        ],
        update_conflicts=True,
        unique_fields=["url"],
        update_fields=["etag", "body", "next_url", "fetched_at"],
    )


def _skip(report: SyncReport, line: str, echo: Callable[[str], None] | None) -> None:
    head, _, rest = line.partition(": ")
    if rest.startswith(head + ":"):
        line = rest  # the parser named the issue already
    report.skipped.append(line)
    if echo:
        echo(line)


# --- the lock ---------------------------------------------------------------------------------------------------

_local_locks: dict[int, threading.Lock] = {}


@contextmanager
def _release_lock(release_id: int, *, timeout: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """One sync of a release at a time (beat and a manual run): the second waits up to `timeout` seconds, then
    finds little to do; past it, GitHubDeadlineExceeded. The lock is the session's: a worker killed mid-sync
    loses its connection, and PostgreSQL releases the lock with it."""
    if connection.vendor == "postgresql":
        ends = time.monotonic() + timeout
        with connection.cursor() as cursor:
            while True:
                cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [LOCK_NAMESPACE, release_id])
                if cursor.fetchone()[0]:
                    break
                if time.monotonic() >= ends:
                    raise GitHubDeadlineExceeded(
                        f"another sync of this release has held its lock for over {timeout:.0f} s; not started."
                    )
                time.sleep(0.25)
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [LOCK_NAMESPACE, release_id])
    else:
        # SQLite serialises writers anyway; this keeps two threads of one process from interleaving.
        with _local_locks.setdefault(release_id, threading.Lock()):
            yield


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
        with _release_lock(release.pk, timeout=min(LOCK_WAIT_SECONDS, seconds)):
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
    _load_cache(client, [f"{base}/milestones", f"{base}/issues"])
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
    cycle = _cycle(release, found.due_on)

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
        _load_cache(
            client,
            [timeline_path.format(n) for n in sorted(set(issues) | set(kept))] + [f"{base}/issues/{n}" for n in kept],
        )
        history = _github_history(release)
        context = _Context(release=release, rows=rows, history=history, cycle=cycle, now=now, dry_run=dry_run)
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
                    _skip(report, f"issue #{number}: {exc}", echo)
                    continue
                report.issues_read += 1
                # Pages are stored in batches after the issues are written (also those of a skipped issue:
                # until GitHub's answer changes, it is skipped again for a 304); a sync that dies before
                # storing them only costs the next run full answers.
                new_pages.extend(pages)
                try:
                    verdict = _verdict(context, issue, items)
                except (MalformedPayload, ValueError) as exc:
                    _skip(report, f"issue #{number}: {exc}", echo)  # nothing written for it
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
                        _apply_issue(context, issue, verdict, report)
                except (MalformedPayload, ValueError, IntegrityError, DatabaseError) as exc:
                    _skip(report, f"issue #{number}: {exc}", echo)
            # Write while the other threads fetch: new rows a batch at a time, cached pages in slices small
            # enough that the last one after the final answer is short.
            if fresh and (len(fresh) >= CREATE_BATCH or not pending):
                _create_batch(context, fresh, report, echo)
                fresh = []
            if not dry_run and len(new_pages) >= STORE_BATCH:
                _store_pages(new_pages)
                new_pages = []
        if fresh:  # a rate limit stopped the loop with some issues read but not written
            _create_batch(context, fresh, report, echo)
        if not dry_run:
            _store_pages(new_pages)
    finally:
        pools.shutdown(wait=True, cancel_futures=True)
    if context.changed and not dry_run:
        # One stats recompute for the whole sync, not one per issue.
        release_stats_request(release_ids=[release.pk])
    report.not_opted_in.sort()


@dataclass
class _Context:
    release: Release
    rows: dict[int, TrackedEnhancement]
    history: dict[int, set]
    cycle: _Cycle
    now: datetime.datetime
    dry_run: bool
    changed: bool = False
    keps: dict[int, Kep] = field(default_factory=dict)


def _github_history(release: Release) -> dict[int, set]:
    history: dict[int, set] = {}
    for te_id, at, status, author in EnhancementStatusChange.objects.filter(
        tracked_enhancement__release=release, source=HistorySource.GITHUB
    ).values_list("tracked_enhancement_id", "changed_at", "to_status", "author"):
        history.setdefault(te_id, set()).add((at, status, author))
    return history


def _verdict(context: _Context, issue: Issue, items) -> GitHubVerdict:
    """What one issue's timeline says about the release (no database; raises MalformedPayload)."""
    return github_issue_verdict(
        version=context.release.version,
        events=parse_timeline(items, issue=issue.number),
        labels_now=issue.labels,
        enhancements_freeze=context.cycle.enhancements_freeze,
        release_day=context.cycle.release_day,
        cycle_start=context.cycle.start,
        now=context.now,
    )


def _apply_issue(context: _Context, issue: Issue, verdict: GitHubVerdict, report: SyncReport) -> None:
    """Write what one issue says about the release (inside the caller's per-issue transaction): updates of
    rows synced before, and the dry run's plan. New rows are written by `_create_batch` (the caller hands only
    the dry run's new rows here)."""
    entries = [HistoryEntry(at=c.at, status=c.status, author=c.author, note=c.note) for c in verdict.changes]
    row = context.rows.get(issue.number)
    if row is None:
        report.created += 1
        report.history_added += len(entries)
        report.planned.append(f"create KEP-{issue.number} ({verdict.status}, {len(entries)} history rows)")
        return
    else:
        wanted = {(e.at, e.status, e.author) for e in entries}
        fields = _field_changes(row, issue, verdict)
        same_history = context.history.get(row.pk, set()) == wanted
        if same_history and not fields:
            report.unchanged += 1
            return
        report.updated += 1
        if context.dry_run:
            have = context.history.get(row.pk, set())
            report.history_added += len(wanted - have)
            report.history_superseded += len(have - wanted)
            report.planned.append(f"update KEP-{issue.number}: {', '.join(fields) or 'history'}")
            return
        for name, value in fields.items():
            setattr(row, name, value)
        if fields:
            row.github_synced_at = timezone.now()
            row.save(update_fields=[*fields, "github_synced_at", "updated_at"])
    context.changed = True
    added, superseded = tracked_enhancement_mirror_history(
        tracked_enhancement=row,
        entries=entries,
        source=HistorySource.GITHUB,
        link=issue.html_url,
        request_stats=False,
        keep_status=bool(row.board_status),  # the board, once read, wins for status
    )
    report.history_added += added
    report.history_superseded += superseded
    context.history[row.pk] = {(e.at, e.status, e.author) for e in entries}


def _person(login: str) -> Person:
    person = Person.objects.filter(github__iexact=login).first()
    return person or Person.objects.create(github=login)


def _labelled_sig(verdict: GitHubVerdict) -> Sig | None:
    """The SIG the issue's first `sig/*` label names (created when the catalogue lacks it)."""
    if not verdict.sigs:
        return None
    return Sig.objects.get_or_create(slug=verdict.sigs[0])[0]


def _field_changes(row: TrackedEnhancement, issue: Issue, verdict: GitHubVerdict) -> dict:
    wanted = {"github_issue_number": issue.number, "github_issue_url": issue.html_url}
    # A row on the tracking board takes its stage and SIG from the board's columns: labels saying otherwise would
    # flip them back and forth at every sync.
    on_board = bool(row.board_status)
    if verdict.target_stage and not on_board:
        wanted["target_stage"] = verdict.target_stage
    if verdict.sigs and row.sig.slug not in verdict.sigs and not on_board:
        wanted["sig"] = _labelled_sig(verdict)
    if issue.assignees and (row.assignee is None or row.assignee.github.lower() != issue.assignees[0].lower()):
        wanted["assignee"] = _person(issue.assignees[0])
    return {name: value for name, value in wanted.items() if getattr(row, name) != value}


def _create_batch(
    context: _Context, batch: list[tuple[Issue, GitHubVerdict]], report: SyncReport, echo: Callable | None
) -> None:
    """Write new tracked enhancements (with their stub KEPs and history) for a batch of issues, in one
    transaction. Issues that failed to parse never reach a batch, so each batch holds only issues that parsed
    whole. If the database refuses the batch (e.g. a concurrent edit), each issue is written again in its own
    transaction, so only the one at fault is skipped, with one line, and writes nothing."""
    try:
        _create_group(context, batch, report, echo)
    except (ValueError, IntegrityError, DatabaseError) as exc:
        if len(batch) == 1:
            _skip(report, f"issue #{batch[0][0].number}: {exc}", echo)
            return
        for one in batch:
            try:
                _create_group(context, [one], report, echo)
            except (ValueError, IntegrityError, DatabaseError) as exc_one:
                _skip(report, f"issue #{one[0].number}: {exc_one}", echo)


def _create_group(context: _Context, batch, report: SyncReport, echo) -> None:
    now = timezone.now()
    with transaction.atomic():
        plan, skipped = [], []
        slugs: set[str] = set()
        for issue, verdict in batch:
            kep = context.keps.get(issue.number)
            if kep is not None and (not verdict.sigs or kep.owning_sig.slug in verdict.sigs):
                plan.append((issue, verdict, kep, kep.owning_sig.slug))
            elif verdict.sigs:
                plan.append((issue, verdict, kep, verdict.sigs[0]))
                slugs.add(verdict.sigs[0])
            else:
                skipped.append(f"issue #{issue.number}: no sig/* label and no KEP in the catalogue to file it under")
        sigs = _sigs_by_slug(slugs)
        people = _people_by_login({login for issue, *_ in plan for login in issue.assignees})
        # A stub until import_keps reads its kep.yaml (which then updates this same row by number).
        stubs = {
            issue.number: Kep(
                number=issue.number,
                title=(issue.title or f"KEP {issue.number}")[:300],
                owning_sig=sigs[slug],
                tracking_issue_url=issue.html_url,
                is_stub=True,
            )
            for issue, _, kep, slug in plan
            if kep is None
        }
        Kep.objects.bulk_create(stubs.values())
        authors = Kep.authors.through
        authors.objects.bulk_create(
            [
                authors(kep_id=stub.pk, person_id=people[login.lower()].pk)
                for number, stub in stubs.items()
                for login in dict.fromkeys(next(i for i, *_ in plan if i.number == number).assignees)
            ],
            ignore_conflicts=True,
        )
        rows = []
        for issue, verdict, kep, slug in plan:
            kep = kep or stubs[issue.number]
            sig = kep.owning_sig if kep.owning_sig.slug == slug else sigs[slug]
            rows.append(
                TrackedEnhancement(
                    release=context.release,
                    kep=kep,
                    sig=sig,
                    source=TrackedSource.SYNC,
                    target_stage=verdict.target_stage,
                    # The latest change (tracked_enhancements_create sets the same), with no other source.
                    status=sorted(verdict.changes, key=lambda change: change.at)[-1].status,
                    assignee=people[issue.assignees[0].lower()] if issue.assignees else None,
                    created_at=verdict.opted_in_at,
                    github_issue_number=issue.number,
                    github_issue_url=issue.html_url,
                    github_synced_at=now,
                )
            )
        changes = []
        for row, (issue, verdict, *_) in zip(rows, plan, strict=True):
            before = ""
            for change in sorted(verdict.changes, key=lambda change: change.at):
                changes.append(
                    RecordedChange(
                        row,
                        before,
                        change.status,
                        change.at,
                        author=change.author,
                        note=change.note,
                        link=issue.html_url,
                    )
                )
                before = change.status
        # The tracking service writes the rows and their history (one stats request for the sync, at its end).
        tracked_enhancements_create(rows=rows, changes=changes, source=HistorySource.GITHUB, request_stats=False)
    # Committed: only now does the sync's picture of the database include them.
    for line in skipped:
        _skip(report, line, echo)
    for row, (issue, verdict, *_) in zip(rows, plan, strict=True):
        context.rows[issue.number] = row
        context.history[row.pk] = {(change.at, change.status, change.author) for change in verdict.changes}
    context.keps.update(stubs)
    context.changed = context.changed or bool(rows)
    report.created += len(rows)
    report.history_added += len(changes)


def _sigs_by_slug(slugs: set[str]) -> dict[str, Sig]:
    """The SIGs named, created (bare, by slug) where missing; two queries at most, three when creating."""
    found = {sig.slug: sig for sig in Sig.objects.filter(slug__in=slugs)} if slugs else {}
    missing = slugs - set(found)
    if missing:
        Sig.objects.bulk_create([Sig(slug=slug) for slug in sorted(missing)], ignore_conflicts=True)
        found.update({sig.slug: sig for sig in Sig.objects.filter(slug__in=missing)})
    return found


def _people_by_login(logins: set[str]) -> dict[str, Person]:
    """People by lower-cased GitHub handle (handles are unique regardless of case), created where missing."""
    wanted = {login.lower(): login for login in logins}
    if not wanted:
        return {}
    query = Person.objects.alias(handle=Lower("github"))
    found = {person.github.lower(): person for person in query.filter(handle__in=list(wanted))}
    missing = set(wanted) - set(found)
    if missing:
        Person.objects.bulk_create([Person(github=wanted[key]) for key in sorted(missing)], ignore_conflicts=True)
        found.update({person.github.lower(): person for person in query.filter(handle__in=list(missing))})
    return found


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
