"""Exception requests recorded from the tracked enhancement itself (the freeze-day admin's one action)."""

import datetime

from django.db import transaction
from django.utils import timezone

from releases.choices import EnhancementStatus, ExceptionDecision, Freeze
from releases.models import EnhancementException, Milestone, TrackedEnhancement
from releases.rules import FREEZE_MILESTONE, STATUS_FREEZE, freeze_missed
from releases.services.tracking import tracked_enhancement_set_status


def exception_freeze_for(*, tracked_enhancement: TrackedEnhancement, at: datetime.datetime) -> Freeze:
    """The freeze a KEP asks an exception to at `at`: the one it missed (`rules.freeze_missed`, from its board
    status and the latest release-wide freeze that has passed), else the one its status works towards, else
    the enhancements freeze (the handbook's most common request). A row already in an exception asks again
    for the freeze of its latest request."""
    if tracked_enhancement.status in (EnhancementStatus.EXCEPTION_PENDING, EnhancementStatus.EXCEPTION_APPROVED):
        # Already in an exception: the status names no freeze any more, its latest request does.
        asked = tracked_enhancement.exceptions.order_by("-requested_at", "-pk").values_list("freeze", flat=True).first()
        if asked:
            return Freeze(asked)
    kinds = {kind: freeze for freeze, kind in FREEZE_MILESTONE.items()}
    passed = (
        Milestone.objects.filter(release_id=tracked_enhancement.release_id, sig=None, kind__in=kinds, at__lte=at)
        .order_by("-at")
        .values_list("kind", flat=True)
        .first()
    )
    return (
        freeze_missed(last_status=tracked_enhancement.status, passed=kinds.get(passed))
        or STATUS_FREEZE.get(tracked_enhancement.status)
        or Freeze.ENHANCEMENTS
    )


@transaction.atomic
def exception_request_create(
    *, tracked_enhancement: TrackedEnhancement, user=None, at: datetime.datetime | None = None
) -> EnhancementException | None:
    """Record a pending exception request of this row, asked now, for the freeze it missed; None when it already
    asked for that freeze (one request per freeze). The board status follows, as the handbook's board does
    (*Exception pending*, through the tracking service), except on a synced row, whose status GitHub owns."""
    at = at or timezone.now()
    freeze = exception_freeze_for(tracked_enhancement=tracked_enhancement, at=at)
    request, created = EnhancementException.objects.get_or_create(
        tracked_enhancement=tracked_enhancement,
        freeze=freeze,
        defaults={"requested_at": at, "decision": ExceptionDecision.PENDING},
    )
    if not created:
        return None
    if not tracked_enhancement.is_synced and tracked_enhancement.status != EnhancementStatus.EXCEPTION_PENDING:
        tracked_enhancement_set_status(
            tracked_enhancement=tracked_enhancement,
            status=EnhancementStatus.EXCEPTION_PENDING,
            user=user,
            note=f"exception requested for {freeze.label.lower()}",
            at=at,
        )
    return request
