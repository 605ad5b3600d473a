"""Whether a reminder may go to an address: one-click unsubscribes and people's own preferences.

Imported by releases.services.reminders (planning and, again, right before sending), so it imports no releases
module but the choices."""

from keps.models import Person
from releases.choices import ReminderKind

from .models import Unsubscription


def _span(hours: int) -> str:
    if hours == 0:
        return "at the freeze"
    return f"{hours // 24} days before" if hours % 24 == 0 else f"{hours} hours before"


def reminder_refusal(*, kind: str, address: str, offset_hours: int | None = None) -> str:
    """Why a reminder of `kind` must not go to `address` (a skip reason), or "" when it may.

    A one-click unsubscribe of that address from that kind; for personal notes, also the settings of the people
    with that address: email switched off, or not one of the offsets they chose. As with opting out, an address
    shared by several people is skipped only when every one of them has said so."""
    unsubscribed = Unsubscription.objects.filter(address__iexact=address, kind=kind).first()
    if unsubscribed:
        return f"unsubscribed from {ReminderKind(kind).label.lower()}s with one click on {unsubscribed.at:%Y-%m-%d}"
    if kind != ReminderKind.PERSONAL:
        return ""
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
