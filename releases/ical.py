"""iCalendar (RFC 5545) feeds of release milestones, built with the `icalendar` package.

- Timed milestones have a UTC DTSTART (the `Z` form), so every client shows them in its own zone correctly.
- All-day milestones are DATE events (DTSTART;VALUE=DATE, DTEND the next day), as the schedule gives no time.
- UIDs are derived from what the milestone *is* (release, kind, SIG, label), never from its date or row id, so a
  moved freeze updates the subscriber's event instead of adding a second one, and a re-import keeps the UIDs.
- Each freeze carries a VALARM one day before it.
"""

import datetime
from collections import Counter
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone
from django.utils.text import slugify
from icalendar import Alarm, Calendar, Event

from .choices import MilestoneKind
from .models import Milestone
from .rules import FREEZE_KINDS

#: How long before a freeze the calendar alarm fires.
ALARM_BEFORE = datetime.timedelta(days=1)
PRODID = "-//sigtracker//Kubernetes release milestones//EN"
#: Kinds that occur more than once in a cycle (e.g. "Release retrospective part 1/2/3"): their label is part of the UID.
REPEATABLE_KINDS = (MilestoneKind.RETROSPECTIVE, MilestoneKind.OTHER)


def _uid_domain() -> str:
    return urlsplit(settings.SIGTRACKER_BASE_URL).hostname or "sigtracker"


def milestone_uid_base(milestone: Milestone) -> str:
    """The stable part of a milestone's UID: release, kind, SIG, and the label for kinds that repeat in a cycle
    (retro parts, "other" dates); a freeze keeps its UID when its wording is edited."""
    parts = ["release", milestone.release.version, milestone.kind]
    if milestone.sig_id:
        parts.append(milestone.sig.slug)
    if milestone.kind in REPEATABLE_KINDS and milestone.label:
        parts.append(slugify(milestone.label)[:60])
    return "-".join(parts)


def freeze_alarm(milestone: Milestone) -> Alarm:
    """A reminder on the calendar a day (`ALARM_BEFORE`) before a freeze."""
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("trigger", -ALARM_BEFORE)
    alarm.add("description", f"Tomorrow: {milestone_summary(milestone)}")
    return alarm


def milestone_summary(milestone: Milestone) -> str:
    title = milestone.label or milestone.get_kind_display()
    sig = f" ({milestone.sig.slug})" if milestone.sig_id else ""
    return f"Kubernetes v{milestone.release.version}: {title}{sig}"


def _description(milestone: Milestone, page_url: str) -> str:
    lines = []
    if milestone.source_text:
        lines.append(f"Schedule: {milestone.source_text}")
    if milestone.quoted_timezone:
        lines.append(f"Quoted in {milestone.quoted_timezone}.")
    if milestone.exception_deadline:
        closes = milestone.exception_deadline.astimezone(datetime.UTC)
        lines.append(f"Exception requests close {closes:%Y-%m-%d %H:%M} UTC.")
    lines.append(page_url)
    return "\n".join(lines)


def milestones_calendar(*, milestones: Iterable[Milestone], name: str, base_url: str = "") -> bytes:
    """Serialise milestones (with `release` and `sig` loaded) as one VCALENDAR.

    `base_url` (scheme and host) prefixes the release page links; it defaults to SIGTRACKER_BASE_URL.
    """
    base_url = (base_url or settings.SIGTRACKER_BASE_URL).rstrip("/")
    domain = _uid_domain()
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", name)
    # Ask subscribing clients to refresh twice a day, so a moved freeze reaches them quickly.
    calendar.add("refresh-interval", datetime.timedelta(hours=12), parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", "PT12H")
    stamp = timezone.now().astimezone(datetime.UTC).replace(microsecond=0)
    seen: Counter[str] = Counter()
    release_urls: dict[int, str] = {}
    for milestone in milestones:
        base = milestone_uid_base(milestone)
        seen[base] += 1
        # Two milestones alike in every way (e.g. two unlabelled "other" rows): number them in time order.
        uid = base if seen[base] == 1 else f"{base}-{seen[base]}"
        # Milestone.get_absolute_url(), with its release's address resolved once per release, not per milestone.
        if milestone.release_id not in release_urls:
            release_urls[milestone.release_id] = milestone.release.get_absolute_url()
        page_url = f"{base_url}{release_urls[milestone.release_id]}#milestone-{milestone.pk}"
        event = Event()
        event.add("uid", f"{uid}@{domain}")
        event.add("dtstamp", stamp)
        event.add("summary", milestone_summary(milestone))
        if milestone.all_day:
            event.add("dtstart", milestone.date)
            event.add("dtend", milestone.date + datetime.timedelta(days=1))
            event.add("transp", "TRANSPARENT")
        else:
            # No DTEND: RFC 5545 §3.6.1 — a DATE-TIME event without one ends when it starts (a deadline instant).
            event.add("dtstart", milestone.at.astimezone(datetime.UTC))
        event.add("description", _description(milestone, page_url))
        event.add("url", page_url)
        event.add("categories", ["freeze" if milestone.kind in FREEZE_KINDS else "milestone"])
        if milestone.kind in FREEZE_KINDS:
            event.add_component(freeze_alarm(milestone))
        calendar.add_component(event)
    return calendar.to_ical()
