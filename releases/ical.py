"""iCalendar (RFC 5545) feeds of release milestones, written by the site's one writer (core/ical.py).

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
from icalendar import Alarm

from core import ical

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
    """A reminder on the calendar a day (`ALARM_BEFORE`) before a freeze: a VALARM, to go inside its event."""
    return ical.display_alarm(description=f"Tomorrow: {milestone_summary(milestone)}", before=ALARM_BEFORE)


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
    # Subscribing clients are asked to refresh twice a day, so a moved freeze reaches them quickly.
    cal = ical.calendar(prodid=PRODID, name=name, refresh=datetime.timedelta(hours=12), published_ttl="PT12H")
    stamp = timezone.now()
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
        is_freeze = milestone.kind in FREEZE_KINDS
        event = ical.event(
            uid=f"{uid}@{domain}",
            stamp=stamp,
            summary=milestone_summary(milestone),
            # All day: a DATE event to the next day, shown as free time. Timed: a UTC instant with no DTEND.
            start=milestone.date if milestone.all_day else milestone.at,
            transparent=milestone.all_day,
            description=_description(milestone, page_url),
            url=page_url,
            categories=["freeze" if is_freeze else "milestone"],
        )
        if is_freeze:
            event.add_component(freeze_alarm(milestone))
        cal.add_component(event)
    return ical.to_bytes(cal)
