"""A person's own deadlines as iCalendar: each freeze ahead at which one of their KEPs still needs something,
with those KEPs and what the freeze asks (releases.rules.REQUIREMENTS). UIDs are the milestone's (releases.ical)
plus the person, so a moved freeze updates the event; served at a secret URL the person can reset. Written line by
line, as releases.ical is (core/ical.py)."""

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
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//sigtracker//My Kubernetes release deadlines//EN",
        "METHOD:PUBLISH",
        ical.content_line("X-WR-CALNAME", ical.text(f"What @{person.github} owes (sigtracker)")),
        ical.content_line("REFRESH-INTERVAL", ical.duration(datetime.timedelta(hours=12)), value="DURATION"),
    ]
    stamp = ical.utc(timezone.now())
    for milestone, keps in my_deadlines(person=person, now=now):
        numbers = ", ".join(kep.row.subject for kep in keps)
        description = [f"{kep.row.display_name} ({kep.row.get_status_display()})" for kep in keps]
        description += ["", "By then each needs:", *(f"- {need}" for need in REQUIREMENTS[milestone.kind])]
        description += ["", f"{base_url}/me/"]
        lines += [
            "BEGIN:VEVENT",
            ical.content_line("UID", ical.text(f"{milestone_uid_base(milestone)}-person-{person.pk}@sigtracker")),
            f"DTSTAMP:{stamp}",
            ical.content_line("SUMMARY", ical.text(f"{milestone_summary(milestone)}: {numbers}")),
            f"DTSTART:{ical.utc(milestone.at)}",
            ical.content_line("DESCRIPTION", ical.text("\n".join(description))),
            ical.content_line("URL", f"{base_url}/me/"),
            *freeze_alarm(milestone),
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return ical.calendar_bytes(lines)
