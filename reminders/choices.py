"""Choices of the reminders domain. Until the delivery model moves here they are defined beside it in
`releases.choices`; every reminder module takes them from here."""

from releases.choices import DeliveryState, ReminderKind

__all__ = ["DeliveryState", "ReminderKind"]
