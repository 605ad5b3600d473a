"""A person's own deadlines as iCalendar: each freeze ahead at which one of their KEPs still needs something,
with those KEPs and what the freeze asks (releases.rules.REQUIREMENTS). UIDs are the milestone's (releases.ical)
plus the person, so a moved freeze updates the event; served at a secret URL the person can reset."""

import datetime

from django.conf import settings
from django.utils import timezone
from icalendar import Calendar, Event

from community.models import Person
from releases.ical import freeze_alarm, milestone_summary, milestone_uid_base
from releases.rules import REQUIREMENTS

from .selectors import my_deadlines


def my_calendar(*, person: Person, now: datetime.datetime | None = None) -> bytes:
    base_url = settings.SIGTRACKER_BASE_URL.rstrip("/")
    calendar = Calendar()
    calendar.add("prodid", "-//sigtracker//My Kubernetes release deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", f"What @{person.github} owes (sigtracker)")
    calendar.add("refresh-interval", datetime.timedelta(hours=12), parameters={"VALUE": "DURATION"})
    stamp = timezone.now().astimezone(datetime.UTC).replace(microsecond=0)
    for milestone, keps in my_deadlines(person=person, now=now):
        event = Event()
        event.add("uid", f"{milestone_uid_base(milestone)}-person-{person.pk}@sigtracker")
        event.add("dtstamp", stamp)
        numbers = ", ".join(kep.row.subject for kep in keps)
        event.add("summary", f"{milestone_summary(milestone)}: {numbers}")
        event.add("dtstart", milestone.at.astimezone(datetime.UTC))
        lines = [f"{kep.row.display_name} ({kep.row.get_status_display()})" for kep in keps]
        lines += ["", "By then each needs:", *(f"- {need}" for need in REQUIREMENTS[milestone.kind])]
        lines += ["", f"{base_url}/me/"]
        event.add("description", "\n".join(lines))
        event.add("url", f"{base_url}/me/")
        event.add_component(freeze_alarm(milestone))
        calendar.add_component(event)
    return calendar.to_ical()
