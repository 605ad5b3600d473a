"""Writes for the releases domain."""

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from releases.choices import EnhancementStatus
from releases.models import EnhancementStatusChange, TrackedEnhancement
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
) -> TrackedEnhancement:
    """Change one row's status and record the change in its history (no-op when unchanged)."""
    if status not in EnhancementStatus.values:
        raise ValueError(f"status: unknown value {status!r}")
    previous = (
        TrackedEnhancement.objects.filter(pk=tracked_enhancement.pk).values_list("status", flat=True).first()
        if tracked_enhancement.pk
        else ""
    )
    tracked_enhancement.status = status
    tracked_enhancement.save()
    if previous != status:
        EnhancementStatusChange.objects.create(
            tracked_enhancement=tracked_enhancement,
            from_status=previous or "",
            to_status=status,
            changed_at=at or timezone.now(),
            changed_by=user if getattr(user, "pk", None) else None,
            author=author or (user.get_username() if getattr(user, "pk", None) else ""),
            note=note,
        )
        release_stats_request(release_ids=[tracked_enhancement.release_id])
    return tracked_enhancement


@transaction.atomic
def tracked_enhancement_bulk_set_status(
    *, tracked_enhancements: Iterable[TrackedEnhancement], status: str, user=None, note: str = ""
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
        changes.append(
            EnhancementStatusChange(
                tracked_enhancement=row,
                from_status=row.status,
                to_status=status,
                changed_at=now,
                changed_by=user if getattr(user, "pk", None) else None,
                author=user.get_username() if getattr(user, "pk", None) else "",
                note=note,
            )
        )
        row.status = status
        row.updated_at = now
    changed = [change.tracked_enhancement for change in changes]
    TrackedEnhancement.objects.bulk_update(changed, ["status", "updated_at"])
    EnhancementStatusChange.objects.bulk_create(changes)
    release_stats_request(release_ids={row.release_id for row in changed})
    return len(changes)
