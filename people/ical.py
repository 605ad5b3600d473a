"""A person's own deadlines as iCalendar: each freeze ahead at which one of their KEPs still needs something,
with those KEPs and what the freeze asks (releases.rules.REQUIREMENTS). UIDs are the milestone's (releases.ical)
plus the person, so a moved freeze updates the event; served at a secret URL the person can reset. Written by the
site's one iCalendar writer (core/ical.py)."""

import datetime

from django.conf import settings
from django.utils import timezone

from community.models import Person
from core import ical
from releases.ical import freeze_alarm, milestone_summary, milestone_uid_base
from releases.rules import REQUIREMENTS

from .selectors import my_deadlines


def my_calendar(*, person: Person, now: datetime.datetime | None = None) -> bytes:
    base_url = settings.SIGTRACKER_BASE_URL.rstrip("/")
    cal = ical.calendar(
        prodid="-//sigtracker//My Kubernetes release deadlines//EN",
        name=f"What @{person.github} owes (sigtracker)",
        refresh=datetime.timedelta(hours=12),
        gregorian=False,
    )
    stamp = timezone.now()
    for milestone, keps in my_deadlines(person=person, now=now):
        numbers = ", ".join(kep.row.subject for kep in keps)
        description = [f"{kep.row.display_name} ({kep.row.get_status_display()})" for kep in keps]
        description += ["", "By then each needs:", *(f"- {need}" for need in REQUIREMENTS[milestone.kind])]
        description += ["", f"{base_url}/me/"]
        event = ical.event(
            uid=f"{milestone_uid_base(milestone)}-person-{person.pk}@sigtracker",
            stamp=stamp,
            summary=f"{milestone_summary(milestone)}: {numbers}",
            start=milestone.at,
            description="\n".join(description),
            url=f"{base_url}/me/",
        )
        event.add_component(freeze_alarm(milestone))
        cal.add_component(event)
    return ical.to_bytes(cal)
