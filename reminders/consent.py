"""Whether a reminder may go to an address: one-click unsubscribes, and the preferences people set for themselves.

Asked when planning and again right before sending (someone may unsubscribe in between). The preferences belong
to the people app, which sits above this one: it names its checks in SIGTRACKER_REMINDER_PREFERENCE_CHECKS (dotted
paths of callables `(*, address, offset_hours) -> str`, a skip reason or ""), so this module imports no app above
it and still hears every refusal."""

import functools

from django.conf import settings
from django.utils.module_loading import import_string

from .choices import ReminderKind
from .models import Unsubscription


@functools.cache
def _preference_checks(paths: tuple[str, ...]) -> list:
    return [import_string(path) for path in paths]


def reminder_refusal(*, kind: str, address: str, offset_hours: int | None = None) -> str:
    """Why a reminder of `kind` must not go to `address` (a skip reason), or "" when it may.

    A one-click unsubscribe of that address from that kind; for personal notes, also the preferences of the people
    with that address (`SIGTRACKER_REMINDER_PREFERENCE_CHECKS`): email switched off, or not one of the offsets they
    chose."""
    unsubscribed = Unsubscription.objects.filter(address__iexact=address, kind=kind).first()
    if unsubscribed:
        return f"unsubscribed from {ReminderKind(kind).label.lower()}s with one click on {unsubscribed.at:%Y-%m-%d}"
    if kind != ReminderKind.PERSONAL:
        return ""
    for check in _preference_checks(tuple(getattr(settings, "SIGTRACKER_REMINDER_PREFERENCE_CHECKS", ()))):
        reason = check(address=address, offset_hours=offset_hours)
        if reason:
            return reason
    return ""
