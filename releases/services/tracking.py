"""Status changes of tracked enhancements: the one write path of their history (admin, imports, sync)."""

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
    row, from_status: str, to_status: str, *, at=None, user=None, author="", note="", source="", link="", assumed=False
) -> EnhancementStatusChange:
    """One history row, unsaved: who made the change (a user here, else `author`), from where, and when."""
    is_user = bool(getattr(user, "pk", None))
    return EnhancementStatusChange(
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


@transaction.atomic
def tracked_enhancement_mirror_history(
    *,
    tracked_enhancement: TrackedEnhancement,
    entries: Sequence[HistoryEntry],
    source: str,
    link: str = "",
    request_stats: bool = True,
) -> tuple[int, int]:
    """Make the row's history from `source` equal `entries` (a mirror of an outside record, e.g. a GitHub
    timeline, at the instants it gives), leaving rows from other sources as they are; then set the row's
    status to the latest change of all sources. Returns (rows added, rows removed); (0, 0) writes nothing.

    Rows of `source` that the outside record no longer implies (e.g. a freeze moved, so a change now falls on
    the other side of it) are replaced: they mirror that record, and are not anyone's local edit.
    """
    for entry in entries:
        if entry.status not in EnhancementStatus.values:
            raise ValueError(f"status: unknown value {entry.status!r}")
    wanted = [(entry.at, entry.status, entry.author) for entry in entries]
    existing = list(
        tracked_enhancement.history.filter(source=source)
        .order_by("changed_at", "pk")
        .values_list("pk", "changed_at", "to_status", "author")
    )
    have = {(at, status, author): pk for pk, at, status, author in existing}
    stale = [pk for key, pk in have.items() if key not in set(wanted)]
    missing = [entry for entry in entries if (entry.at, entry.status, entry.author) not in have]
    if not stale and not missing:
        return 0, 0
    if stale:
        EnhancementStatusChange.objects.filter(pk__in=stale).delete()
    timeline = sorted(
        [
            *(
                (at, status)
                for at, status in tracked_enhancement.history.exclude(source=source).values_list(
                    "changed_at", "to_status"
                )
            ),
            *((entry.at, entry.status) for entry in entries),
        ],
        key=lambda item: item[0],
    )
    previous_of = {}
    before = ""
    for at, status in timeline:
        previous_of.setdefault((at, status), before)
        before = status
    EnhancementStatusChange.objects.bulk_create(
        EnhancementStatusChange(
            tracked_enhancement=tracked_enhancement,
            from_status=previous_of.get((entry.at, entry.status), ""),
            to_status=entry.status,
            changed_at=entry.at,
            author=entry.author,
            note=entry.note,
            source=source,
            link=link,
        )
        for entry in missing
    )
    latest = timeline[-1][1] if timeline else tracked_enhancement.status
    if latest != tracked_enhancement.status:
        tracked_enhancement.status = latest
        with status_writer():
            tracked_enhancement.save(update_fields=["status", "updated_at"])
    if request_stats:  # a caller syncing many rows asks once, when it is done
        release_stats_request(release_ids=[tracked_enhancement.release_id])
    return len(missing), len(stale)


@transaction.atomic
def tracked_enhancement_create(
    *,
    release,
    kep,
    status: str = EnhancementStatus.AT_RISK_ENHANCEMENTS,
    user=None,
    author: str = "",
    note: str = "",
    source: str = "",
    link: str = "",
    at=None,
    **fields,
) -> TrackedEnhancement:
    """Opt `kep` into `release` with its first status, kept as the first history row.

    The SIG defaults to the KEP's owning SIG and the target stage to the KEP's stage, as the release team
    fills in the board from kep.yaml. The row's own `source` (where it came from) follows the history's
    `source` unless given.
    """
    if status not in EnhancementStatus.values:
        raise ValueError(f"status: unknown value {status!r}")
    fields.setdefault("sig_id", None)
    if not fields.get("sig") and not fields.get("sig_id"):
        fields["sig_id"] = kep.owning_sig_id
    if not fields.get("target_stage") and kep.stage in TargetStage.values:
        fields["target_stage"] = kep.stage
    if fields.get("sig") is not None:
        fields.pop("sig_id", None)
    fields.setdefault("source", _ROW_SOURCE.get(source, TrackedSource.ADMIN))
    row = TrackedEnhancement(release=release, kep=kep, status=status, **fields)
    if at is not None:
        row.created_at = at
    row.save()
    _history_row(row, "", status, at=at, user=user, author=author, note=note, source=source, link=link).save()
    release_stats_request(release_ids=[row.release_id])
    return row


#: The row source a first status change's source implies.
_ROW_SOURCE = {
    HistorySource.GITHUB: TrackedSource.SYNC,
    HistorySource.NOTES: TrackedSource.NOTES,
    HistorySource.FEATURE_SHEET: TrackedSource.FEATURE_SHEET,
    HistorySource.EXCEPTION_FILE: TrackedSource.EXCEPTION_FILE,
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


@transaction.atomic
def tracked_enhancements_record(*, changes: Sequence[RecordedChange], source: str) -> int:
    """Write changes recorded elsewhere, many rows at once: one history row per change, each row's status set
    to its latest change, stats queued once. The rows must be saved already. Returns how many changes."""
    if not changes:
        return 0
    for change in changes:
        if change.to_status not in EnhancementStatus.values:
            raise ValueError(f"status: unknown value {change.to_status!r}")
    source = _source(source, None)
    latest: dict[int, RecordedChange] = {}
    for change in sorted(changes, key=lambda c: c.at):
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
        EnhancementStatusChange(
            tracked_enhancement=change.tracked_enhancement,
            from_status=change.from_status,
            to_status=change.to_status,
            changed_at=change.at,
            author=change.author,
            note=change.note,
            source=source,
            assumed=change.assumed,
        )
        for change in changes
    )
    release_stats_request(release_ids={change.tracked_enhancement.release_id for change in changes})
    return len(changes)
