"""Status changes of tracked enhancements: the one write path of their history (admin, imports, sync).

Every new tracked enhancement and every status is written here, with its history row built by `_history_row`
(the one constructor). History is append-only: nothing here updates or deletes a history row; a correction is
a new row that supersedes the old one (`EnhancementStatusChange.supersedes`).
"""

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from releases.choices import EnhancementStatus, HistorySource, TargetStage, TrackedSource
from releases.models import EnhancementStatusChange, TrackedEnhancement, status_writer
from releases.services.stats import release_stats_request


@transaction.atomic
def tracked_enhancement_set_status(
    *,
    tracked_enhancement: TrackedEnhancement,
    status: str,
    user=None,
    author: str = "",
    note: str = "",
    at=None,
    source: str = "",
    link: str = "",
    assumed: bool = False,
    observed_since=None,
) -> TrackedEnhancement:
    """Change one row's status and record the change in its history (no-op when unchanged).

    `source` says where the change was made (`HistorySource`: admin, import, notes, fixture, github, shell;
    "admin" when a user is given and no source), `link` where to see it (e.g. the GitHub issue), `assumed`
    that `at` is a stand-in for an instant nobody recorded.
    """
    if status not in EnhancementStatus.values:
        raise ValueError(f"status: unknown value {status!r}")
    previous = (
        TrackedEnhancement.objects.filter(pk=tracked_enhancement.pk).values_list("status", flat=True).first()
        if tracked_enhancement.pk
        else ""
    )
    tracked_enhancement.status = status
    with status_writer():
        tracked_enhancement.save()
    if previous != status:
        _history_row(
            tracked_enhancement,
            previous or "",
            status,
            at=at,
            user=user,
            author=author,
            note=note,
            source=source,
            link=link,
            assumed=assumed,
            observed_since=observed_since,
        ).save()
        release_stats_request(release_ids=[tracked_enhancement.release_id])
    return tracked_enhancement


@transaction.atomic
def tracked_enhancement_bulk_set_status(
    *,
    tracked_enhancements: Iterable[TrackedEnhancement],
    status: str,
    user=None,
    note: str = "",
    source: str = "",
    link: str = "",
) -> int:
    """Set the same status on many rows, each change kept in history; returns how many changed."""
    if status not in EnhancementStatus.values:
        raise ValueError(f"status: unknown value {status!r}")
    now = timezone.now()
    changes = []
    if hasattr(tracked_enhancements, "select_for_update"):
        # Lock only the rows themselves (of=("self",)): the admin's queryset joins nullable relations.
        rows = list(tracked_enhancements.select_related(None).select_for_update(of=("self",)))
    else:
        rows = list(tracked_enhancements)
    for row in rows:
        if row.status == status:
            continue
        changes.append(_history_row(row, row.status, status, at=now, user=user, note=note, source=source, link=link))
        row.status = status
        row.updated_at = now
    changed = [change.tracked_enhancement for change in changes]
    with status_writer():
        TrackedEnhancement.objects.bulk_update(changed, ["status", "updated_at"])
    EnhancementStatusChange.objects.bulk_create(changes)
    release_stats_request(release_ids={row.release_id for row in changed})
    return len(changes)


def _history_row(
    row,
    from_status: str,
    to_status: str,
    *,
    at=None,
    user=None,
    author="",
    note="",
    source="",
    link="",
    assumed=False,
    supersedes: int | None = None,
    withdrawn: bool = False,
    observed_since=None,
) -> EnhancementStatusChange:
    """One history row, unsaved: who made the change (a user here, else `author`), from where, and when; the
    primary key of the row it `supersedes` when it corrects (or, `withdrawn`, only withdraws) an earlier one."""
    is_user = bool(getattr(user, "pk", None))
    return EnhancementStatusChange(
        supersedes_id=supersedes,
        withdrawn=withdrawn,
        tracked_enhancement=row,
        from_status=from_status,
        to_status=to_status,
        changed_at=at or timezone.now(),
        changed_by=user if is_user else None,
        author=author or (user.get_username() if is_user else ""),
        note=note,
        source=_source(source, user),
        link=link,
        assumed=assumed,
        observed_since=observed_since,
    )


def _source(source: str, user) -> str:
    if source and source not in HistorySource.values:
        raise ValueError(f"source: unknown value {source!r}")
    return source or (HistorySource.ADMIN if getattr(user, "pk", None) else "")


@dataclass(frozen=True)
class HistoryEntry:
    """One change as its source recorded it: when, to what, by whom."""

    at: datetime.datetime
    status: str
    author: str = ""
    note: str = ""
    #: `at` stands in for an instant nobody recorded (a feature sheet's release day).
    assumed: bool = False


def _pair_corrections(stale: list[tuple[int, tuple]], missing: list[HistoryEntry]) -> tuple[dict[int, int], list]:
    """Which new entry corrects which stale row: the same change by a renamed actor first (same instant and
    status), then the same status at another instant, then the same instant with another status. Returns
    ({id(entry): stale pk}, stale pks left over, which the record withdrew)."""
    corrects: dict[int, int] = {}
    free = list(missing)
    for same in (
        lambda key, e: (e.at, e.status) == key[:2],
        lambda key, e: e.status == key[1],
        lambda key, e: e.at == key[0],
    ):
        left = []
        for pk, key in stale:
            match = next((entry for entry in free if same(key, entry)), None)
            if match is None:
                left.append((pk, key))
                continue
            corrects[id(match)] = pk
            free.remove(match)
        stale = left
    return corrects, [pk for pk, _ in stale]


def _timeline(tracked_enhancement: TrackedEnhancement, entries: Sequence[HistoryEntry], source: str) -> list:
    """(instant, status) of the row's whole history once `source`'s rows are `entries`, oldest first."""
    others = tracked_enhancement.history.exclude(source=source).values_list("changed_at", "to_status")
    return sorted([*others, *((entry.at, entry.status) for entry in entries)], key=lambda item: item[0])


def _require_known_statuses(statuses) -> None:
    for status in statuses:
        if status not in EnhancementStatus.values:
            raise ValueError(f"status: unknown value {status!r}")


def _statuses_before(timeline: list) -> dict:
    """The status each (instant, status) of `timeline` changed from: the one before it ("" for the first)."""
    previous_of, before = {}, ""
    for at, status in timeline:
        previous_of.setdefault((at, status), before)
        before = status
    return previous_of


def _withdrawals(
    tracked_enhancement: TrackedEnhancement, existing: list, withdrawn: list[int], *, source: str, link: str
) -> list[EnhancementStatusChange]:
    """A row superseding each of `withdrawn` (pks of `existing`, the source's rows as
    (pk, at, status, author, from status)) that no new entry replaces: history is never deleted."""
    old = {pk: (at, status, author, before) for pk, at, status, author, before in existing if pk in withdrawn}
    return [
        _history_row(
            tracked_enhancement,
            old[pk][3],
            old[pk][1],
            at=old[pk][0],
            author=old[pk][2],
            note="withdrawn: no longer in the record it was mirrored from",
            source=source,
            link=link,
            supersedes=pk,
            withdrawn=True,
        )
        for pk in withdrawn
    ]


@transaction.atomic
def tracked_enhancement_mirror_history(
    *,
    tracked_enhancement: TrackedEnhancement,
    entries: Sequence[HistoryEntry],
    source: str,
    link: str = "",
    request_stats: bool = True,
    keep_status: bool = False,
) -> tuple[int, int]:
    """Make the row's current history from `source` equal `entries` (a mirror of an outside record, e.g. a
    GitHub timeline, at the instants it gives), leaving rows from other sources as they are; then set the row's
    status to the latest change of all sources. Returns (rows added, rows superseded); (0, 0) writes nothing.

    A row of `source` that the outside record no longer implies (an actor renamed, an event rewritten, a freeze
    moved so a change falls on the other side of it) is never changed or deleted: the entry that replaces it is
    a new row superseding it, and one with no replacement is superseded by a withdrawal.
    """
    _require_known_statuses(entry.status for entry in entries)
    wanted = {(entry.at, entry.status, entry.author) for entry in entries}
    existing = list(
        tracked_enhancement.history.filter(source=source)
        .order_by("changed_at", "pk")
        .values_list("pk", "changed_at", "to_status", "author", "from_status")
    )
    have = {(at, status, author): pk for pk, at, status, author, _ in existing}
    stale = [(pk, (at, status, author)) for pk, at, status, author, _ in existing if (at, status, author) not in wanted]
    missing = [entry for entry in entries if (entry.at, entry.status, entry.author) not in have]
    if not stale and not missing:
        return 0, 0
    corrects, withdrawn = _pair_corrections(stale, missing)
    stale_pks = {pk for pk, _ in stale}
    timeline = _timeline(tracked_enhancement, entries, source)
    previous_of = _statuses_before(timeline)
    rows = [
        _history_row(
            tracked_enhancement,
            previous_of.get((entry.at, entry.status), ""),
            entry.status,
            at=entry.at,
            author=entry.author,
            note=entry.note,
            source=source,
            link=link,
            assumed=entry.assumed,
            supersedes=corrects.get(id(entry)),
        )
        for entry in missing
    ]
    rows += _withdrawals(tracked_enhancement, existing, withdrawn, source=source, link=link)
    EnhancementStatusChange.objects.bulk_create(rows)
    latest = timeline[-1][1] if timeline else tracked_enhancement.status
    # `keep_status`: another source owns the status (the tracking board wins over labels); history still kept.
    if latest != tracked_enhancement.status and not keep_status:
        tracked_enhancement.status = latest
        with status_writer():
            tracked_enhancement.save(update_fields=["status", "updated_at"])
    if request_stats:  # a caller syncing many rows asks once, when it is done
        release_stats_request(release_ids=[tracked_enhancement.release_id])
    return len(missing), len(stale_pks)


@transaction.atomic
def tracked_enhancement_create(
    *,
    release,
    kep=None,
    feature_name: str = "",
    status: str = EnhancementStatus.AT_RISK_ENHANCEMENTS,
    user=None,
    author: str = "",
    note: str = "",
    source: str = "",
    link: str = "",
    at=None,
    observed_since=None,
    assumed: bool = False,
    **fields,
) -> TrackedEnhancement:
    """Opt `kep` into `release` with its first status, kept as the first history row (`assumed`: at an instant
    nobody recorded). Without a KEP, `feature_name` names the feature (a feature sheet's row naming no KEP) and
    `sig` must be given.

    The SIG defaults to the KEP's owning SIG and the target stage (when not given at all) to the KEP's stage, as
    the release team fills in the board from kep.yaml. The row's own `source` (where it came from) follows the history's
    `source` unless given.
    """
    if status not in EnhancementStatus.values:
        raise ValueError(f"status: unknown value {status!r}")
    if kep is None and not feature_name:
        raise ValueError("a tracked enhancement names its KEP or, without one, its feature")
    _default_sig_and_stage(kep, fields)
    fields.setdefault("source", _ROW_SOURCE.get(source, TrackedSource.ADMIN))
    row = TrackedEnhancement(
        release=release, kep=kep, feature_name="" if kep is not None else feature_name, status=status, **fields
    )
    if at is not None:
        row.created_at = at
    with status_writer():
        row.save()
    _history_row(
        row,
        "",
        status,
        at=at,
        user=user,
        author=author,
        note=note,
        source=source,
        link=link,
        observed_since=observed_since,
        assumed=assumed,
    ).save()
    release_stats_request(release_ids=[row.release_id])
    return row


def _default_sig_and_stage(kep, fields: dict) -> None:
    """Fill in `fields`' SIG from the KEP's owning SIG and, when not given at all, its target stage from the KEP's
    stage, as the release team fills in the board from kep.yaml."""
    fields.setdefault("sig_id", None)
    if not fields.get("sig") and not fields.get("sig_id") and kep is not None:
        fields["sig_id"] = kep.owning_sig_id
    # Only when the caller says nothing: an importer that passes "" knows the stage then is unknown (kep.yaml's stage
    # today is not what a KEP targeted in a release years ago).
    if "target_stage" not in fields and kep is not None and kep.stage in TargetStage.values:
        fields["target_stage"] = kep.stage
    if fields.get("sig") is not None:
        fields.pop("sig_id", None)


#: The row source a first status change's source implies.
_ROW_SOURCE = {
    HistorySource.GITHUB: TrackedSource.SYNC,
    HistorySource.NOTES: TrackedSource.NOTES,
    HistorySource.FEATURE_SHEET: TrackedSource.FEATURE_SHEET,
    HistorySource.EXCEPTION_FILE: TrackedSource.EXCEPTION_FILE,
    HistorySource.BOARD: TrackedSource.SYNC,
}


@dataclass(frozen=True)
class RecordedChange:
    """A status change recorded elsewhere (a retro table in meeting notes, a board export) at its own instant."""

    tracked_enhancement: TrackedEnhancement
    from_status: str
    to_status: str
    at: datetime.datetime
    author: str = ""
    note: str = ""
    assumed: bool = False
    link: str = ""
    observed_since: datetime.datetime | None = None  # seen by a sync: it happened after this, by `at`
    #: The primary key of the row this change corrects (e.g. a change observed by a sync, now dated by the event
    #: read later): a new row superseding it, the old one kept. A correction re-dates a change already made, so it
    #: never moves the row's status.
    supersedes: int | None = None


@transaction.atomic
def tracked_enhancements_record(*, changes: Sequence[RecordedChange], source: str, request_stats: bool = True) -> int:
    """Write changes recorded elsewhere, many rows at once: one history row per change, each row's status set
    to its latest change (corrections aside: they supersede a row, `RecordedChange.supersedes`, and move no
    status), stats queued once. The rows must be saved already. Returns how many changes."""
    if not changes:
        return 0
    for change in changes:
        if change.to_status not in EnhancementStatus.values:
            raise ValueError(f"status: unknown value {change.to_status!r}")
    source = _source(source, None)
    latest: dict[int, RecordedChange] = {}
    for change in sorted(changes, key=lambda c: c.at):
        if change.supersedes is None:
            latest[change.tracked_enhancement.pk] = change
    now = timezone.now()
    rows = []
    for change in latest.values():
        row = change.tracked_enhancement
        row.status, row.updated_at = change.to_status, now
        rows.append(row)
    with status_writer():
        TrackedEnhancement.objects.bulk_update(rows, ["status", "updated_at"])
    EnhancementStatusChange.objects.bulk_create(
        _history_row(
            change.tracked_enhancement,
            change.from_status,
            change.to_status,
            at=change.at,
            author=change.author,
            note=change.note,
            source=source,
            link=change.link,
            assumed=change.assumed,
            observed_since=change.observed_since,
            supersedes=change.supersedes,
        )
        for change in changes
    )
    if request_stats:
        release_stats_request(release_ids={change.tracked_enhancement.release_id for change in changes})
    return len(changes)


@transaction.atomic
def tracked_enhancements_create(
    *, rows: Sequence[TrackedEnhancement], changes: Sequence[RecordedChange], source: str, request_stats: bool = True
) -> int:
    """Create many new rows at once, each with its history from `changes` (at least one per row): each row's
    status is its latest change. For imports and syncs that open many rows; returns how many history rows."""
    changed = {id(change.tracked_enhancement) for change in changes}
    if any(id(row) not in changed for row in rows):
        raise ValueError("every new tracked enhancement needs at least one recorded change")
    with status_writer():
        TrackedEnhancement.objects.bulk_create(rows)
    return tracked_enhancements_record(changes=changes, source=source, request_stats=request_stats)
