"""A person's own reminder preferences as a skip reason: the check the reminders app asks before each personal
note (named in SIGTRACKER_REMINDER_PREFERENCE_CHECKS, so that the reminders app needs no import of this one)."""

from community.models import Person


def _span(hours: int) -> str:
    if hours == 0:
        return "at the freeze"
    return f"{hours // 24} days before" if hours % 24 == 0 else f"{hours} hours before"


def preference_refusal(*, address: str, offset_hours: int | None = None) -> str:
    """Why the people with `address` want no personal note at `offset_hours` (a skip reason), or "" when they do:
    email switched off, or not one of the offsets they chose. As with opting out, an address shared by several
    people is skipped only when every one of them has said so; a person without a profile gets every note."""
    people = list(Person.objects.filter(email__iexact=address).select_related("profile"))
    reasons = []
    for person in people:
        profile = getattr(person, "profile", None)
        if profile is None:
            return ""
        if not profile.email_reminders:
            reasons.append("switched reminder emails off")
        elif offset_hours is not None and profile.reminder_offsets and offset_hours not in profile.reminder_offsets:
            reasons.append(f"chose not to be reminded {_span(offset_hours)}")
        else:
            return ""
    return reasons[0] if reasons else ""
