"""Write a parsed release schedule: the Release and its Milestones, updated in place.

Milestones are matched by `releases.importers.schedule.milestone_key` — ``(release, kind, slot)`` — so a
re-import updates rows instead of adding new ones, and unchanged rows are not written at all. Milestones
the schedule does not mention (curated by hand, or SIG freezes) are left alone. When milestones of a
release with tracked enhancements change, its stats are queued for recomputation (on commit).
"""

import datetime
from dataclasses import dataclass, field

from django.db import transaction

from releases.choices import ReleaseState
from releases.importers.schedule import Schedule, milestone_key
from releases.models import Milestone, Release
from releases.services.stats import release_stats_request

#: Milestone fields the schedule owns; `sends_reminders` and `sig` stay as curated.
MILESTONE_FIELDS = ("label", "at", "all_day", "quoted_timezone", "source_text", "exception_deadline")


@dataclass
class ScheduleOutcome:
    """Rows created, updated and left unchanged by one schedule import (the release counts as a row)."""

    release: Release
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    changes: list[str] = field(default_factory=list)


def release_state_at(
    *, cycle_start: datetime.date | None, release_date: datetime.date | None, now: datetime.datetime
) -> str:
    """The state of a release at `now`: released once its release day has come (UTC), active from its cycle
    start, planning before that or when the schedule gives no dates."""
    today = now.astimezone(datetime.UTC).date()
    if release_date is not None and release_date <= today:
        return ReleaseState.RELEASED
    if cycle_start is not None and cycle_start <= today:
        return ReleaseState.ACTIVE
    return ReleaseState.PLANNING


@transaction.atomic
def release_schedule_import(*, schedule: Schedule, now: datetime.datetime) -> ScheduleOutcome:
    """Create or update `schedule`'s Release and Milestones; return what changed.

    The release's name is only replaced by a non-empty one, so a curated name survives a schedule
    without one. The state is recomputed from the dates at `now` (see `release_state_at`).
    """
    release = Release.objects.select_for_update().filter(version=schedule.version).first()
    # Only what the schedule states is written: a date or name it leaves out keeps its curated value.
    given = {
        "name": schedule.name,
        "cycle_start": schedule.cycle_start,
        "planned_release_date": schedule.planned_release_date,
        "source_url": schedule.source_url,
    }
    wanted = {name: value for name, value in given.items() if value}
    wanted["state"] = release_state_at(
        cycle_start=wanted.get("cycle_start", release.cycle_start if release else None),
        release_date=wanted.get("planned_release_date", release.release_date if release else None),
        now=now,
    )
    if release is None:
        release = Release.objects.create(version=schedule.version, **wanted)
        outcome = ScheduleOutcome(release=release, created=1, changes=[f"release {release.version} created"])
    else:
        outcome = ScheduleOutcome(release=release)
        changed = [name for name, value in wanted.items() if getattr(release, name) != value]
        if changed:
            for name in changed:
                setattr(release, name, wanted[name])
            release.save(update_fields=changed)
            outcome.updated += 1
            outcome.changes.append(f"release {release.version}: {', '.join(changed)} updated")
        else:
            outcome.unchanged += 1

    existing: dict[tuple[str, str], Milestone] = {}
    for milestone in release.milestones.filter(sig__isnull=True).order_by("pk"):
        existing.setdefault(milestone_key(milestone.kind, milestone.label), milestone)
    to_create, to_update, fields_changed = [], [], set()
    for item in schedule.milestones:
        values = {name: getattr(item, name) for name in MILESTONE_FIELDS}
        current = existing.get(item.key)
        if current is None:
            to_create.append(Milestone(release=release, kind=item.kind, **values))
            continue
        changed = [name for name, value in values.items() if getattr(current, name) != value]
        if not changed:
            outcome.unchanged += 1
            continue
        for name in changed:
            setattr(current, name, values[name])
        fields_changed.update(changed)
        to_update.append(current)
        outcome.changes.append(f"{release.version} {item.label}: {', '.join(changed)} updated")
    if to_create:
        Milestone.objects.bulk_create(to_create)
        outcome.created += len(to_create)
    if to_update:
        Milestone.objects.bulk_update(to_update, sorted(fields_changed))
        outcome.updated += len(to_update)
    # The funnel of a release's stats is cut at its freeze instants: recompute when they move.
    if (to_create or to_update) and release.tracked_enhancements.exists():
        release_stats_request(release_ids=[release.pk])
    return outcome
