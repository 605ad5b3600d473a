"""Sync a release's tracked enhancements from the Release Tracking Board (a GitHub ProjectV2), with its history.

The enhancements handbook calls the board's Enhancements view the source of truth for each KEP's status; its
other columns (Stage, Type, SIG, PRR Status, Enhancements Contact, Note) are what labels cannot say. The board
is read through GitHub's GraphQL API (`github_sync.github.graphql`): 100 items a query with their field values,
their issue's number and that issue's project status-change events, so a board of 150 items costs two queries
(plus one to find the board by title the first time). Reading is bounded and checked item by item
(`github_sync.services.board_read`); an item whose JSON is not as documented is one skip line.

Every issue on the board is tracked, none dropped: one whose KEP is not in the catalogue yet (a fresh install that
syncs before `import_keps`, or a KEP whose kep.yaml merges near the freeze) gets a stub KEP filed under the
board's SIG, as the label sync makes them, filled in by the next import. A status sigtracker has no name for
("Needs Triage") is reported, kept as written in `board_status`, and a new row starts from the handbook's first
status (at risk for enhancements freeze) until the board says a known one.

History. The board keeps none that can be relied on: GitHub writes a `ProjectV2ItemStatusChangedEvent` to the
issue's timeline for some status changes and, since late 2026, not for most. A status differing from the row's
is written through the tracking service, one history row per change: at each event's instant (actor, previous
status) when the timeline has events newer than what sigtracker holds (for a new row, every event of this
board); otherwise once, at this sync's instant,
*observed* (`observed_since` = the previous successful board sync, a `core.Heartbeat` row): it happened in that
window. A change is written only while the row's status differs from the board's, so an event arriving late for
a change already observed is never a second change: it dates it. A later sync that reads the event of an observed
change (the same status, an instant in the observed window) writes a row at the event's instant, by its actor,
superseding the observed row (kept in the record, out of the history as it now stands); once. An unchanged board
writes no tracked enhancement or history row (only the heartbeat's instant moves).
"""

import datetime
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from community.models import Person, Sig
from core.models import Heartbeat
from github_sync.github import GitHubClient, GitHubError, GitHubNotFound
from github_sync.github.graphql import GraphQL
from github_sync.rules import (
    board_prr_status,
    board_sig,
    board_stage,
    board_status,
    board_type,
)
from github_sync.services.board_exceptions import board_exceptions_write
from github_sync.services.board_read import (
    FIND_QUERY,
    ITEMS_QUERY,
    BoardItem,
    BoardTooLarge,
    StatusEvent,
    board_find,
    board_read,
    parse_item,
)
from github_sync.services.github_sync import LOCK_WAIT_SECONDS, GitHubSyncError, github_client, release_lock
from keps.models import Kep
from releases.choices import EnhancementStatus, HistorySource, TargetStage, TrackedSource
from releases.models import Release, TrackedEnhancement
from releases.services.stats import release_stats_request
from releases.services.tracking import RecordedChange, tracked_enhancements_create, tracked_enhancements_record

__all__ = [
    "FIND_QUERY",
    "ITEMS_QUERY",
    "BoardItem",
    "BoardNotFound",
    "BoardReport",
    "BoardTooLarge",
    "GitHubError",
    "GitHubSyncError",
    "StatusEvent",
    "board_current_release_sync",
    "board_find",
    "board_read",
    "board_release_sync",
    "parse_item",
]

logger = logging.getLogger(__name__)

DEFAULT_ORG = "kubernetes"
#: Heartbeat row (core.Heartbeat) holding the instant of the last board sync that read a release's whole board.
BOARD_HEARTBEAT_PREFIX = "board-sync:"
#: The status a new row takes when the board's is one sigtracker has no name for: where the handbook starts
#: every opted-in KEP. The board's own words are kept in `board_status`.
UNKNOWN_STATUS_START = EnhancementStatus.AT_RISK_ENHANCEMENTS


@dataclass
class BoardReport:
    version: str
    project: int | None = None
    items: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    history_added: int = 0
    observed: int = 0
    #: Observed changes dated by their event, read by a later sync (each a row superseding the observed one).
    dated: int = 0
    exceptions_created: int = 0
    exceptions_updated: int = 0
    requests: int = 0
    points: int = 0
    stubs: int = 0
    unknown: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"v{self.version} board #{self.project}: {self.items} items read; tracked enhancements created "
            f"{self.created}, updated {self.updated}, unchanged {self.unchanged}"
            + (f" ({self.stubs} new KEPs as stubs, filled in by import_keps)" if self.stubs else "")
            + "; history rows added "
            f"{self.history_added} ({self.observed} observed"
            + (f", {self.dated} dating an observed change by its event" if self.dated else "")
            + "); exception requests created "
            f"{self.exceptions_created}, updated {self.exceptions_updated}; {self.requests} GraphQL requests, "
            f"{self.points} points."
        )


# --- reading ------------------------------------------------------------------------------------------------------


# --- writing ------------------------------------------------------------------------------------------------------


def _text(value) -> str:
    if isinstance(value, list):
        return value[0] if value else ""
    return "" if value is None else str(value)


def _wanted_fields(item: BoardItem, report: BoardReport, people: dict) -> dict:
    """The row's fields the board sets (only those it has a known value for); unknown values reported."""
    wanted: dict[str, object] = {}
    for column, mapper, name in (
        ("type", board_type, "type"),
        ("stage", board_stage, "target_stage"),
        ("prr status", board_prr_status, "prr_status"),
    ):
        raw = _text(item.fields.get(column))
        if not raw:
            continue
        value = mapper(raw)
        if value is None:
            report.unknown.append(f"KEP-{item.number}: unknown {column} {raw!r} on the board; not mapped")
        else:
            wanted[name] = value
    sig = board_sig(_text(item.fields.get("sig")))
    if sig:
        if f"sig:{sig}" not in people:  # looked up once per sync, not once per item
            people[f"sig:{sig}"] = Sig.objects.get_or_create(slug=sig)[0]
        wanted["sig"] = people[f"sig:{sig}"]
    contact = _text(item.fields.get("enhancements contact"))
    if contact:
        if contact.lower() not in people:
            people[contact.lower()] = Person.objects.filter(github__iexact=contact).first() or Person.objects.create(
                github=contact
            )
        wanted["enhancements_contact"] = people[contact.lower()]
    if "note" in item.fields:
        wanted["notes"] = _text(item.fields.get("note"))
    wanted["board_status"] = _text(item.fields.get("status"))[:100]
    if item.url and item.number:
        wanted["github_issue_number"], wanted["github_issue_url"] = item.number, item.url
    return wanted


def _observed_note(since: datetime.datetime | None, now: datetime.datetime) -> str:
    if since is None:
        return f"observed on the board at {now:%Y-%m-%d %H:%M} UTC (first board sync)"
    return f"observed on the board between {since:%Y-%m-%d %H:%M} and {now:%H:%M} UTC"


@dataclass
class _Writes:
    """What the items ask to write, written together: new rows and status changes in bulk, stats queued once."""

    fresh: list[TrackedEnhancement] = field(default_factory=list)
    created: list[RecordedChange] = field(default_factory=list)
    changes: list[RecordedChange] = field(default_factory=list)


def _apply(item, row, kep, release, report, writes: _Writes, *, since, now, people) -> None:
    """Plan what one board item asks: a new row for a KEP the release does not track yet, else the changes of its
    row (fields written now, status changes queued in `writes`)."""
    raw = _text(item.fields.get("status"))
    status = board_status(raw) if raw else None
    if raw and status is None:
        kept = "kept as written" + ("" if row is not None else f", tracked as {UNKNOWN_STATUS_START.label.lower()}")
        report.unknown.append(f"KEP-{item.number}: unknown status {raw!r} on the board; {kept}")
    fields = _wanted_fields(item, report, people)
    observed = {
        "note": _observed_note(since, now),
        "observed_since": since,
        # Seen by the first board sync, no event: when it happened before that is not known.
        "assumed": since is None,
    }
    if row is None:
        if status is None and raw:
            # On the board with a status sigtracker has no name for ("Needs Triage"): tracked from the handbook's
            # first status, its board status kept as written, until the board says a known one.
            status = UNKNOWN_STATUS_START
        _plan_new_row(item, kep, release, report, writes, status=status, fields=fields, observed=observed, now=now)
    else:
        _update_row(item, row, report, writes, status=status, fields=fields, observed=observed, now=now)


def _plan_new_row(item, kep, release, report, writes: _Writes, *, status, fields, observed, now) -> None:
    """A new row for an item the release does not track yet, with its history: each of the item's events in turn,
    then, if they do not end at `status`, the status as observed now."""
    if status is None:
        report.skipped.append(f"KEP-{item.number}: no status on the board; not opted in here")
        return
    fields.setdefault("sig", kep.owning_sig)
    if "target_stage" not in fields and kep.stage in TargetStage.values:
        fields["target_stage"] = kep.stage
    steps = [(e, board_status(e.status)) for e in item.events]
    steps = [(e, mapped) for e, mapped in steps if mapped is not None]
    new = TrackedEnhancement(
        release=release,
        kep=kep,
        status=status,
        source=TrackedSource.SYNC,
        created_at=steps[0][0].at if steps else now,
        **fields,
    )
    writes.fresh.append(new)
    writes.created.extend(
        _status_history(item, new, report, before="", since=None, status=status, observed=observed, now=now)[0]
    )
    report.created += 1


def _update_row(item, row, report, writes: _Writes, *, status, fields, observed, now) -> None:
    """Write the fields of `row` the item changes, and queue its status changes since the row's last one."""
    changes = {name: value for name, value in fields.items() if _current(row, name) != _key(value)}
    if changes:
        for name, value in changes.items():
            setattr(row, name, value)
        row.github_synced_at = now
        row.save(update_fields=[*changes, "github_synced_at", "updated_at"])
    dated = _queue_event_dates(item, row, report, writes) if item.events else 0
    before = row.status
    if status is not None and status != before:
        before = _queue_status_changes(item, row, report, writes, status=status, observed=observed, now=now)
    if changes or dated or before != row.status:
        report.updated += 1
    else:
        report.unchanged += 1


def _queue_status_changes(item, row, report, writes: _Writes, *, status, observed, now) -> str:
    """Queue the history of `row` moving to `status`: the item's events newer than the row's last change, each at
    its own instant, then, if they do not end at `status`, the move as observed now. Returns the last status
    queued."""
    last = row.history.order_by("-changed_at").values_list("changed_at", flat=True).first()
    changes, before = _status_history(
        item, row, report, before=row.status, since=last, status=status, observed=observed, now=now
    )
    writes.changes.extend(changes)
    return before


def _status_history(item, row, report, *, before, since, status, observed, now) -> tuple[list[RecordedChange], str]:
    """The changes taking `row` from `before` to `status`: each of the item's events after `since` (all of them
    when None) at its own instant, then, if they do not end at `status`, the move as observed now; with the last
    status they reach."""
    changes: list[RecordedChange] = []
    for event in item.events:
        mapped = board_status(event.status)
        if mapped is None or mapped == before or (since is not None and event.at <= since):
            continue
        changes.append(
            RecordedChange(
                tracked_enhancement=row,
                from_status=before,
                to_status=mapped,
                at=event.at,
                author=event.actor,
                link=item.url,
            )
        )
        before = mapped
        report.history_added += 1
    if before != status:
        changes.append(
            RecordedChange(
                tracked_enhancement=row, from_status=before, to_status=status, at=now, link=item.url, **observed
            )
        )
        report.history_added += 1
        report.observed += 1
    return changes, before


def _queue_event_dates(item, row, report, writes: _Writes) -> int:
    """Queue, for each change of `row` a sync observed without an event, the item's event for it now read: the
    latest event to the same status inside the observed window (after `observed_since`, by the observation), as a
    row at the event's instant superseding the observed one. Returns how many were queued."""
    observed = row.history.filter(source=HistorySource.BOARD, observed_since__isnull=False).values_list(
        "pk", "from_status", "to_status", "observed_since", "changed_at"
    )
    queued = 0
    for pk, before, after, since, seen in observed:
        matching = [event for event in item.events if board_status(event.status) == after and since < event.at <= seen]
        if not matching:
            continue
        event = max(matching, key=lambda e: e.at)
        writes.changes.append(
            RecordedChange(
                tracked_enhancement=row,
                from_status=before,
                to_status=after,
                at=event.at,
                author=event.actor,
                note=f"dated by its board event, read after the change was observed at {seen:%Y-%m-%d %H:%M} UTC",
                link=item.url,
                supersedes=pk,
            )
        )
        queued += 1
    report.history_added += queued
    report.dated += queued
    return queued


def _current(row, name):
    if name in ("sig", "enhancements_contact"):
        return getattr(row, f"{name}_id")
    return getattr(row, name)


def _key(value):
    return getattr(value, "pk", value)


def board_release_sync(
    *,
    version: str,
    org: str = DEFAULT_ORG,
    project: int | None = None,
    client: GitHubClient | None = None,
    now: datetime.datetime | None = None,
    echo: Callable[[str], None] | None = None,
) -> BoardReport:
    """Read release `version`'s board and write what it says; `project` sets (and remembers) its number.

    A `client` handed in keeps its deadline (one deadline for a whole sync run: labels, then the board); one made
    here gets GITHUB_SYNC_DEADLINE."""
    release = Release.objects.filter(version=version).first()
    if release is None:
        raise GitHubSyncError(f"release {version} is not in the database: run import_schedule first.")
    report = BoardReport(version=release.version)
    own = client is None
    client = client or github_client()
    if own or client.deadline is None:
        client.start_deadline(float(getattr(settings, "GITHUB_SYNC_DEADLINE", 300)))
    gql = GraphQL(client)
    requests_before = client.requests
    now = now or timezone.now()
    try:
        with release_lock(release.pk, timeout=min(LOCK_WAIT_SECONDS, max(1.0, client.deadline - client.now()))):
            _sync(release, report, gql, org=org, project=project, now=now)
    finally:
        report.requests, report.points = client.requests - requests_before, gql.points
        if own:
            client.close()
    for line in report.unknown + report.skipped:
        logger.warning("board sync v%s: %s", release.version, line)
        if echo:
            echo(line)
    return report


def board_current_release_sync(*, client: GitHubClient | None = None) -> BoardReport | None:
    """Beat: sync the current release's board; None when there is no current release or it has no board."""
    release = Release.objects.current()
    if release is None:
        return None
    try:
        return board_release_sync(version=release.version, client=client)
    except BoardNotFound:
        return None
    except GitHubNotFound:
        if release.board_project_number:
            raise  # a board was named: its absence is news
        return None  # no GraphQL here (an enterprise server without it): labels only, quietly


class BoardNotFound(GitHubSyncError):
    """No project number set for the release and no board with its title."""


def _sync(release, report, gql, *, org, project, now) -> None:
    """Find the board, read it, write it (one transaction), then move the heartbeat."""
    if project is not None and project != release.board_project_number:
        release.board_project_number = project
        release.save(update_fields=["board_project_number"])
    number = release.board_project_number or board_find(gql=gql, org=org, version=release.version)
    if number is None:
        raise BoardNotFound(
            f"{org} has no project titled 'v{release.version} Enhancements Tracking': set it with --project N."
        )
    if release.board_project_number != number:
        release.board_project_number = number
        release.save(update_fields=["board_project_number"])
    report.project = number
    read = board_read(gql=gql, org=org, number=number)
    report.items = len(read.items)
    report.skipped.extend(read.skipped)
    # Read first, then write in one transaction: no transaction stays open across GitHub's answers.
    with transaction.atomic():
        _write(release, report, read.items, now=now)


def _write(release, report, items, *, now) -> None:
    numbers = {item.number for item in items if item.number}
    rows = {
        row.kep.number: row
        for row in TrackedEnhancement.objects.filter(release=release, kep__number__in=numbers).select_related("kep")
    }
    keps = {kep.number: kep for kep in Kep.objects.select_related("owning_sig").filter(number__in=numbers)}
    people: dict = {}  # Person by lower-cased login, Sig by "sig:<slug>"
    keps.update(_stub_keps([item for item in items if item.number and item.number not in keps], report, people))
    writes = _Writes()
    heartbeat = f"{BOARD_HEARTBEAT_PREFIX}{release.version}"
    since = Heartbeat.objects.filter(name=heartbeat).values_list("at", flat=True).first()
    for item in items:
        kep = keps.get(item.number) if item.number else None
        if kep is None:
            continue
        _apply(item, rows.get(item.number), kep, release, report, writes, since=since, now=now, people=people)
    if writes.fresh:
        tracked_enhancements_create(
            rows=writes.fresh, changes=writes.created, source=HistorySource.BOARD, request_stats=False
        )
    if writes.changes:
        tracked_enhancements_record(changes=writes.changes, source=HistorySource.BOARD, request_stats=False)
    if writes.fresh or writes.changes:
        release_stats_request(release_ids=[release.pk])  # once for the board, not once per row
    with transaction.atomic():
        board_exceptions_write(release=release, items=items, report=report, now=now)
    # The window of the next sync's observations starts here, and only at a sync that read the whole board.
    # A heartbeat row, not a column of the release: pages are cached until a watched table changes, and a
    # board that did not change must not invalidate them every 15 minutes.
    Heartbeat.objects.update_or_create(name=heartbeat, defaults={"at": now})


def _stub_keps(items: list[BoardItem], report: BoardReport, people: dict) -> dict[int, Kep]:
    """A stub KEP for each issue on the board that the catalogue does not have yet (a fresh install, or a KEP
    whose kep.yaml merges near the freeze), as the label sync makes them: filed under the board's SIG, titled as
    the issue; `import_keps` fills it in later (same row, by number)."""
    stubs: dict[int, Kep] = {}
    for item in items:
        if item.number in stubs:
            continue
        slug = board_sig(_text(item.fields.get("sig")))
        if not slug:
            report.skipped.append(
                f"#{item.number}: no SIG on the board and no KEP {item.number} in sigtracker to file it under; "
                "set its SIG on the board or run import_keps"
            )
            continue
        if f"sig:{slug}" not in people:
            people[f"sig:{slug}"] = Sig.objects.get_or_create(slug=slug)[0]
        stubs[item.number] = Kep(
            number=item.number,
            title=(item.title or f"KEP {item.number}")[:300],
            owning_sig=people[f"sig:{slug}"],
            tracking_issue_url=item.url[:200] if item.url.startswith("https://") else "",
            is_stub=True,
        )
    Kep.objects.bulk_create(stubs.values())
    report.stubs = len(stubs)
    return stubs
