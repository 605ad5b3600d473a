"""A release cycle around the day the demo runs, so that `make demo` shows the tracker at work.

The curated fixtures are history (1.22–1.27, all released): on their own the dashboard says "No upcoming freeze".
`demo_cycle_ensure` adds one more release, marked as demo data in its name, milestones and rows, whose cycle
surrounds `now`: its PRR freeze has just passed, its enhancements freeze is a few days ahead (the countdown and
the at-risk list), code, test and docs freezes and release day follow. It tracks the SIG Node KEPs of the same
fixtures, some at risk and some tracked, and links the demo admin to the person who owns the most of them, so
`/me/` has work to show. Run again on a later day, it moves the cycle's dates to that day: the demo stays alive.
"""

import datetime
from dataclasses import dataclass

from django.db import transaction

from community.models import Person, Sig
from keps.models import Kep
from people.models import Profile
from releases.choices import EnhancementStatus, HistorySource, MilestoneKind, ReleaseState
from releases.models import Milestone, Release
from releases.services.tracking import tracked_enhancement_create

#: The demo release's name: how it (and only it) is recognised as demo data.
DEMO_NAME = "Demo cycle (synthetic dates around today; not a real release)"
DEMO_NOTE = "demo data: `manage.py demo` places this cycle around the day it runs"
#: Where its digest would go: an address that can never deliver (RFC 2606), set only on a SIG without a list.
DEMO_MAILING_LIST = "sig-node-demo@example.invalid"
#: Each milestone of the demo cycle, days from the day the demo runs (UTC), at 02:00 UTC as the schedules quote.
SCHEDULE = (
    (MilestoneKind.CYCLE_START, "Release cycle begins", -21, True),
    (MilestoneKind.PRR_FREEZE, "Production Readiness Freeze", -2, False),
    (MilestoneKind.ENHANCEMENTS_FREEZE, "Enhancements Freeze", 6, False),
    (MilestoneKind.CODE_FREEZE, "Code Freeze", 41, False),
    (MilestoneKind.TEST_FREEZE, "Test Freeze", 48, False),
    (MilestoneKind.DOCS_FREEZE, "Docs Freeze", 55, False),
    (MilestoneKind.RELEASE, "Release day", 70, True),
)
#: How many of the fixtures' SIG Node KEPs the demo cycle tracks, and which statuses they take in turn.
KEPS_TRACKED = 10
STATUSES = (EnhancementStatus.AT_RISK_ENHANCEMENTS, EnhancementStatus.TRACKED_ENHANCEMENTS)
DEMO_SIG = "sig-node"


@dataclass
class DemoCycle:
    release: Release
    created: bool
    enhancements_freeze: Milestone
    person: Person | None


def _instant(today: datetime.date, days: int, all_day: bool) -> datetime.datetime:
    day = today + datetime.timedelta(days=days)
    return datetime.datetime.combine(day, datetime.time(0 if all_day else 2), datetime.UTC)


@transaction.atomic
def demo_cycle_ensure(*, now: datetime.datetime, user=None) -> DemoCycle | None:
    """Create the demo cycle around `now`, or move an existing one there; None without any release to follow.

    `user` (the demo admin), when given and not yet linked to a person, is linked to the person owning the most
    KEPs of the cycle, so that `/me/` shows them.
    """
    today = now.astimezone(datetime.UTC).date()
    release = Release.objects.filter(name=DEMO_NAME).first()
    created = release is None
    if created:
        newest = Release.objects.order_by("-major", "-minor").first()
        if newest is None:
            return None
        release = Release(version=f"{newest.major}.{newest.minor + 1}", name=DEMO_NAME)
    release.cycle_start = today + datetime.timedelta(days=SCHEDULE[0][2])
    release.planned_release_date = today + datetime.timedelta(days=SCHEDULE[-1][2])
    release.actual_release_date = None
    release.state = ReleaseState.ACTIVE
    release.save()
    existing = {m.kind: m for m in release.milestones.filter(sig__isnull=True)}
    for kind, label, days, all_day in SCHEDULE:
        milestone = existing.get(kind) or Milestone(release=release, kind=kind, label=label, source_text=DEMO_NOTE)
        milestone.at, milestone.all_day = _instant(today, days, all_day), all_day
        milestone.quoted_timezone = "" if all_day else "UTC"
        milestone.save()
        existing[kind] = milestone

    sig = Sig.objects.filter(slug=DEMO_SIG).first()
    if created and sig is not None:
        keps = list(Kep.objects.filter(owning_sig=sig).prefetch_related("authors").order_by("-number")[:KEPS_TRACKED])
        for index, kep in enumerate(keps):
            author = next(iter(kep.authors.all()), None)
            tracked_enhancement_create(
                release=release,
                kep=kep,
                status=STATUSES[index % len(STATUSES)],
                assignee=author,
                note=DEMO_NOTE,
                source=HistorySource.FIXTURE,
                notes=DEMO_NOTE,
                at=release_start(release),
            )
        if not sig.mailing_list:
            sig.mailing_list = DEMO_MAILING_LIST
            sig.save(update_fields=["mailing_list"])
    person = _link_user(user=user, release=release)
    return DemoCycle(
        release=release,
        created=created,
        enhancements_freeze=existing[MilestoneKind.ENHANCEMENTS_FREEZE],
        person=person,
    )


def release_start(release: Release) -> datetime.datetime:
    return datetime.datetime.combine(release.cycle_start, datetime.time(), datetime.UTC)


def _link_user(*, user, release: Release) -> Person | None:
    """Link `user` to the person who is assigned the most KEPs of `release` (or keep their existing link)."""
    if user is None:
        return None
    linked = Profile.objects.filter(user=user).select_related("person").first()
    if linked is not None:
        return linked.person
    rows = release.tracked_enhancements.exclude(assignee=None).values_list("assignee", flat=True)
    counts: dict[int, int] = {}
    for person_id in rows:
        counts[person_id] = counts.get(person_id, 0) + 1
    for person_id in sorted(counts, key=lambda pk: (-counts[pk], pk)):
        profile, _ = Profile.objects.get_or_create(person_id=person_id)
        if profile.user_id is None:
            profile.user = user
            profile.save(update_fields=["user"])
            return profile.person
    return None
