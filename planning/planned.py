"""What kep.yaml planned at an instant, from the plan history (`import_keps --history`): read by the plan's
candidates after a release's enhancements freeze and by the plan against outcome."""

import datetime

from keps.choices import KepStatus
from keps.models import KepPlanChange
from keps.plans import plan_names_release

#: KEPs that are never counted as planned, whatever kep.yaml says: listed with their status as a flag.
NOT_PLANNED_STATUSES = (KepStatus.WITHDRAWN, KepStatus.REJECTED, KepStatus.REPLACED)


def plans_at(*, numbers, cutoff: datetime.datetime) -> dict[int, KepPlanChange]:
    """Each KEP's (of `numbers`, a list or subquery) last plan change committed before `cutoff`: its kep.yaml on
    master then. One query."""
    latest: dict[int, KepPlanChange] = {}
    for change in (
        KepPlanChange.objects.filter(kep_number__in=numbers, committed_at__lt=cutoff)
        .only("kep_number", "stage", "status", "latest_milestone", "milestones", "committed_at")
        .order_by("kep_number", "committed_at", "pk")
    ):
        latest[change.kep_number] = change
    return latest


def planned_in(changes: dict[int, KepPlanChange], version: str) -> dict[int, KepPlanChange]:
    """The plan changes among `changes` whose kep.yaml names `version`."""
    return {
        number: change
        for number, change in changes.items()
        if plan_names_release(
            stage=change.stage, latest=change.latest_milestone, milestones=change.milestones, version=version
        )
    }
