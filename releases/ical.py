"""iCalendar (RFC 5545) feeds of release milestones, written line by line (core/ical.py says why and how).

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


def freeze_alarm(milestone: Milestone) -> list[str]:
    """The content lines of a reminder on the calendar a day (`ALARM_BEFORE`) before a freeze: a VALARM, to go
    inside its event."""
    return [
        "BEGIN:VALARM",
        "ACTION:DISPLAY",
        ical.content_line("DESCRIPTION", ical.text(f"Tomorrow: {milestone_summary(milestone)}")),
        ical.content_line("TRIGGER", ical.duration(-ALARM_BEFORE)),
        "END:VALARM",
    ]


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
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        ical.content_line("PRODID", ical.text(PRODID)),
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        ical.content_line("X-WR-CALNAME", ical.text(name)),
        # Ask subscribing clients to refresh twice a day, so a moved freeze reaches them quickly.
        ical.content_line("REFRESH-INTERVAL", ical.duration(datetime.timedelta(hours=12)), value="DURATION"),
        "X-PUBLISHED-TTL:PT12H",
    ]
    stamp = ical.utc(timezone.now())
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
        lines += [
            "BEGIN:VEVENT",
            ical.content_line("UID", ical.text(f"{uid}@{domain}")),
            f"DTSTAMP:{stamp}",
            ical.content_line("SUMMARY", ical.text(milestone_summary(milestone))),
        ]
        if milestone.all_day:
            lines += [
                f"DTSTART;VALUE=DATE:{ical.date(milestone.date)}",
                f"DTEND;VALUE=DATE:{ical.date(milestone.date + datetime.timedelta(days=1))}",
                "TRANSP:TRANSPARENT",
            ]
        else:
            # No DTEND: RFC 5545 §3.6.1 — a DATE-TIME event without one ends when it starts (a deadline instant).
            lines.append(f"DTSTART:{ical.utc(milestone.at)}")
        lines += [
            ical.content_line("DESCRIPTION", ical.text(_description(milestone, page_url))),
            ical.content_line("URL", page_url),
            f"CATEGORIES:{'freeze' if is_freeze else 'milestone'}",
        ]
        if is_freeze:
            lines += freeze_alarm(milestone)
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return ical.calendar_bytes(lines)
