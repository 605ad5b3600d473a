"""Reads of the people app: a person's "what I owe by when" and their deadlines for the calendar.
(Whether a person's preferences stop a reminder is `people.refusals`, which the reminders app asks.)"""

import datetime
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from community.meeting_schedule import NextMeeting, sig_next_meetings
from community.models import Person
from keps.models import Kep
from meetings.models import Meeting
from releases.models import Milestone, Release, TrackedEnhancement
from releases.prr import prr_of, with_prr
from releases.rules import FREEZE_KINDS, MILESTONE_FREEZE, PACIFIC, REQUIREMENTS, is_in_play, is_ready_for
from releases.selectors import milestone_is_past
from retros.choices import ActionStatus, RetroCategory
from retros.models import RetroItem

from .models import Profile


@dataclass
class Deadline:
    """The next freeze a tracked KEP faces, and whether it already meets it."""

    milestone: Milestone
    ready: bool
    requirements: list[str]
    #: The instant in UTC, US Pacific and the person's own zone (None when they set none).
    utc: datetime.datetime
    pacific: datetime.datetime
    local: datetime.datetime | None


@dataclass
class MyKep:
    row: TrackedEnhancement
    roles: list[str]
    deadline: Deadline | None


@dataclass
class MyWork:
    person: Person
    profile: Profile | None
    releases: list[Release]
    keps: list[MyKep] = field(default_factory=list)
    action_items: list[RetroItem] = field(default_factory=list)
    meetings: list[Meeting] = field(default_factory=list)
    #: The next meeting of every SIG the person leads or belongs to, from sigs.yaml (as the home page lists them).
    sig_meetings: list[NextMeeting] = field(default_factory=list)


def current_and_next_releases(*, now: datetime.datetime | None = None) -> list[Release]:
    """The current release at `now` (by its dates, `releases.rules.current_release`) and the one after it."""
    current = Release.objects.current(now=now)
    if current is None:
        return []
    following = (
        Release.objects.filter(Q(major__gt=current.major) | Q(major=current.major, minor__gt=current.minor))
        .order_by("major", "minor")
        .first()
    )
    return [current, following] if following else [current]


def _freezes_ahead(release_ids: list[int], now: datetime.datetime) -> dict[int, list[Milestone]]:
    by_release: dict[int, list[Milestone]] = {pk: [] for pk in release_ids}
    candidates = (
        Milestone.objects.filter(
            release_id__in=release_ids, kind__in=FREEZE_KINDS, at__gt=now - datetime.timedelta(days=1)
        )
        .select_related("release", "sig")
        .order_by("at", "pk")
    )
    for milestone in candidates:
        if not milestone_is_past(milestone, now):
            by_release[milestone.release_id].append(milestone)
    return by_release


def _deadline(row: TrackedEnhancement, freezes: list[Milestone], zone) -> Deadline | None:
    """The first freeze ahead that applies to the row's SIG (all-SIG freezes and its own SIG's): what the row
    still needs for it (the rules' REQUIREMENTS) unless its status already meets it."""
    milestone = next((m for m in freezes if m.sig_id in (None, row.sig_id)), None)
    if milestone is None:
        return None
    ready = is_ready_for(row.status, MILESTONE_FREEZE[milestone.kind], prr=prr_of(row))
    return Deadline(
        milestone=milestone,
        ready=ready,
        requirements=[] if ready else list(REQUIREMENTS[milestone.kind]),
        utc=milestone.at.astimezone(datetime.UTC),
        pacific=milestone.at.astimezone(PACIFIC),
        local=milestone.at.astimezone(zone) if zone else None,
    )


def my_work(*, person: Person, now: datetime.datetime | None = None) -> MyWork:
    """Every KEP the person owns or reviews (author, reviewer, approver, assignee, enhancements contact) tracked in
    the current and next release, with its next deadline; their open retro action items; their SIGs' next meetings."""
    now = now or timezone.now()
    profile = Profile.objects.filter(person=person).first()
    zone = profile.zone if profile else None
    releases = current_and_next_releases(now=now)
    work = MyWork(person=person, profile=profile, releases=releases)
    rows = _tracked_of(person, releases)
    freezes = _freezes_ahead([r.pk for r in releases], now)
    for row in rows:
        deadline = _deadline(row, freezes[row.release_id], zone) if is_in_play(row.status) else None
        work.keps.append(MyKep(row=row, roles=_roles(row, person), deadline=deadline))
    work.action_items = list(
        RetroItem.objects.filter(
            owner=person,
            category=RetroCategory.ACTION_ITEM,
            status__in=[ActionStatus.OPEN, ActionStatus.IN_PROGRESS],
            hidden_at__isnull=True,
        )
        .select_related("retrospective__release", "retrospective__sig", "due_release")
        .order_by("due_release__major", "due_release__minor", "pk")
    )
    # The SIGs the person leads (sigs.yaml) or belongs to: those of their KEPs, on a board or not.
    sig_ids = (
        {kep.row.sig_id for kep in work.keps}
        | set(person.sig_leaderships.values_list("sig_id", flat=True))
        | set(Kep.objects.filter(authors=person, owning_sig__isnull=False).values_list("owning_sig_id", flat=True))
    )
    work.sig_meetings = sig_next_meetings(now=now, sig_ids=sig_ids)
    work.meetings = _next_meetings(sig_ids, today=now.date())
    return work


def _tracked_of(person: Person, releases: list[Release]) -> QuerySet[TrackedEnhancement]:
    """The rows of `releases` whose KEP the person authors, reviews or approves, or that they are assigned or the
    enhancements contact of, with the KEP's people prefetched."""
    return with_prr(
        TrackedEnhancement.objects.filter(release__in=releases)
        .filter(
            Q(kep__authors=person)
            | Q(kep__reviewers=person)
            | Q(kep__approvers=person)
            | Q(assignee=person)
            | Q(enhancements_contact=person)
        )
        .distinct()
        .select_related("release", "kep", "sig")
        .prefetch_related("kep__authors", "kep__reviewers", "kep__approvers")
        .order_by("release__major", "release__minor", "kep__number")
    )


def _roles(row: TrackedEnhancement, person: Person) -> list[str]:
    """What the person is to the row: author, reviewer, approver (of its KEP), assignee, enhancements contact."""
    roles = [
        label
        for label, people in (
            ("author", row.kep.authors.all() if row.kep_id else ()),
            ("reviewer", row.kep.reviewers.all() if row.kep_id else ()),
            ("approver", row.kep.approvers.all() if row.kep_id else ()),
        )
        if person in people
    ]
    roles += ["assignee"] if row.assignee_id == person.pk else []
    roles += ["enhancements contact"] if row.enhancements_contact_id == person.pk else []
    return roles


def _next_meetings(sig_ids: set[int], *, today: datetime.date) -> list[Meeting]:
    """Each SIG's next meeting on record that is not cancelled, soonest first."""
    meetings = []
    for sig_id in sorted(sig_ids):
        meeting = (
            Meeting.objects.filter(sig_id=sig_id, date__gte=today, cancelled=False)
            .select_related("sig")
            .order_by("date")
            .first()
        )
        if meeting:
            meetings.append(meeting)
    meetings.sort(key=lambda m: (m.date, m.sig.slug))
    return meetings


def my_deadlines(*, person: Person, now: datetime.datetime | None = None) -> list[tuple[Milestone, list[MyKep]]]:
    """The freezes ahead at which the person's KEPs still need something, each with those KEPs (the calendar)."""
    grouped: dict[int, tuple[Milestone, list[MyKep]]] = {}
    for kep in my_work(person=person, now=now).keps:
        if kep.deadline and not kep.deadline.ready:
            grouped.setdefault(kep.deadline.milestone.pk, (kep.deadline.milestone, []))[1].append(kep)
    return sorted(grouped.values(), key=lambda item: (item[0].at, item[0].pk))


def default_offsets() -> list[int]:
    return sorted(set(settings.SIGTRACKER_REMINDER_OFFSETS_HOURS), reverse=True)
