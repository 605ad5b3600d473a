"""How the reminders word things: instants as the release team quotes them, spans, names, lists of roles, the
headline of an email, what a KEP still needs, and one line naming a reminder (for the dry run and skip reasons)."""

import datetime

from django.conf import settings

from core.text import one_line
from releases.choices import EnhancementStatus
from releases.models import Milestone
from releases.rules import AOE, PACIFIC

from .due import Anchor, DueReminder

ROLE_LABELS = {
    "author": "author",
    "assignee": "assignee",
    "contact": "enhancements contact",
    "chair": "SIG chair",
    "tech_lead": "tech lead",
}


def describe_due(due: DueReminder) -> str:
    """One line naming a reminder, e.g. "v1.26 Code freeze, in 7 days" (for the dry run and skip reasons)."""
    version, name = due.milestone.release.version, freeze_name(due.milestone)
    if due.anchor == Anchor.RETRO_MIDPOINT:
        return f"v{version} retro input is open (midpoint of the cycle)"
    if due.anchor == Anchor.RETRO_WEEK_BEFORE:
        return f"v{version} retro input is open (a week before the retro)"
    if due.anchor == Anchor.EXCEPTION_CLOSE:
        when = "closes now" if due.offset_hours == 0 else f"closes in {span(due.offset_hours)}"
        return f"v{version} exception window after {name}, {when}"
    if due.anchor == Anchor.EXCEPTION_DEADLINE:
        when = "now" if due.offset_hours == 0 else f"in {span(due.offset_hours)}"
        return f"v{version} exception deadline ({name}, {due.anchor_at:%Y-%m-%d %H:%M} UTC), {when}"
    return f"v{version} {name}, " + ("now in effect" if due.offset_hours == 0 else f"in {span(due.offset_hours)}")


def quoted_times(at: datetime.datetime, milestone: Milestone) -> dict:
    """The instant as the release team quotes it: UTC, US Pacific (PST or PDT as the date has it), AoE."""
    utc = at.astimezone(datetime.UTC)
    pacific = at.astimezone(PACIFIC)
    offset = pacific.utcoffset().total_seconds() / 3600
    when = {
        "utc": utc.strftime("%a %Y-%m-%d %H:%M UTC"),
        "pacific": pacific.strftime("%a %Y-%m-%d %H:%M ") + f"{pacific.tzname()} (UTC{offset:+.0f})".replace("-", "−"),
        "aoe": "",
        "all_day": milestone.all_day,
    }
    if (milestone.quoted_timezone or "").upper() == "AOE":
        when["aoe"] = at.astimezone(AOE).strftime("%a %Y-%m-%d %H:%M AoE")
    return when


def span(hours: int) -> str:
    if hours % 24 == 0:
        days = hours // 24
        return "1 day" if days == 1 else f"{days} days"
    return "1 hour" if hours == 1 else f"{hours} hours"


def freeze_name(milestone: Milestone) -> str:
    """The milestone's name as the emails quote it: its label, else its kind ("Feature blog freeze")."""
    return one_line(milestone.label or milestone.get_kind_display())


def role_order(role: str) -> int:
    return list(ROLE_LABELS).index(role) if role in ROLE_LABELS else len(ROLE_LABELS)


def or_list(names: list[str]) -> str:
    """ "an author", "an author or tech lead", "an author, assignee or SIG chair": the roles a note is sent for."""
    if not names:
        return ""
    words = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return ("an " if words[0] in "aeiou" else "a ") + words


def and_list(names: list[str]) -> str:
    """ "A", "A and b", "A, b and c": names after the first lose a capital that only starts a sentence."""
    names = [names[0], *(n[0].lower() + n[1:] if n[1:2].islower() else n for n in names[1:])]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def headline_of(dues: list[DueReminder]) -> str:
    """What falls due, in one line: "Code freeze and test freeze for v1.26 are in 7 days"; reminders at the
    same instant that count down differently are joined with "; "."""
    parts: dict[tuple, list[DueReminder]] = {}
    for due in dues:
        parts.setdefault((due.anchor, due.offset_hours, due.milestone.release.version), []).append(due)
    lines = []
    for (anchor, hours, version), group in parts.items():
        names, one = and_list([freeze_name(due.milestone) for due in group]), len(group) == 1
        if anchor == Anchor.EXCEPTION_CLOSE:
            windows, verb = ("Exception window", "closes") if one else ("Exception windows", "close")
            when = f"{verb} now" if hours == 0 else f"{verb} in {span(hours)}"
            lines.append(f"{windows} after {names} (v{version}) {when}")
        else:
            verb = "is" if one else "are"
            when = f"{verb} now in effect" if hours == 0 else f"{verb} in {span(hours)}"
            lines.append(f"{names} for v{version} {when}")
    return "; ".join(lines)


def needs_of(status: str, due: DueReminder) -> str:
    """What a KEP in `status`, not ready for `due`'s freeze, still needs for it (the requirements themselves
    are listed once per email, under the freeze)."""
    milestone = due.milestone
    name = freeze_name(milestone)
    if status == EnhancementStatus.EXCEPTION_PENDING:
        return (
            "its exception request awaits the release team's decision; if granted, the remaining work must "
            "merge before the exception window closes"
        )
    if status == EnhancementStatus.EXCEPTION_APPROVED:
        return "its approved exception: the remaining work must merge before the exception window closes"
    if due.anchor == Anchor.FREEZE and due.offset_hours == 0:
        deadline = milestone.exception_deadline
        if deadline:
            return (
                f"missed {name}: request an exception before {deadline.astimezone(datetime.UTC):%Y-%m-%d %H:%M} "
                "UTC, or it is removed from the milestone"
            )
        return f"missed {name}: it is removed from the milestone unless the release team grants an exception"
    return f"everything {name} requires (listed above)"


def base_url() -> str:
    return settings.SIGTRACKER_BASE_URL.rstrip("/")
