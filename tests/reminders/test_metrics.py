"""The reminders' metrics, scraped from /metrics after the work they count: a reminder run (planned, sent, skipped,
retried, failed, how late, overdue) and the channel each delivery counts under."""

import datetime

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from community.models import Person
from releases.choices import MilestoneKind
from reminders.channels import slack_recipient
from reminders.choices import DeliveryState
from reminders.delivery import reminder_delivery_give_up
from reminders.models import ReminderDelivery
from tests.reminder_board import FREEZE, HOUR, NODE_LIST
from tests.scrape import Delta, scrape

EF = MilestoneKind.ENHANCEMENTS_FREEZE.value


@pytest.mark.django_db(transaction=True)
def test_a_reminder_run_counts_planned_sent_skipped_and_how_late(client, board):
    Person.objects.filter(email="carol@example.com").update(reminders_opt_out=True)
    delta = Delta(client)
    due = FREEZE - 168 * HOUR
    earliest = (timezone.now() - due).total_seconds() / 60
    call_command("send_freeze_reminders", "--now", (due + 10 * datetime.timedelta(minutes=1)).isoformat(), verbosity=0)
    latest = (timezone.now() - due).total_seconds() / 60

    assert ReminderDelivery.objects.filter(state=DeliveryState.SENT).count() == 2
    assert delta("sigtracker_reminders_total", event="planned", channel="email", freeze=EF) == 2
    assert delta("sigtracker_reminders_total", event="sent", channel="email", freeze=EF) == 2
    # Carol opted out: recorded as skipped when planned.
    assert delta("sigtracker_reminders_total", event="skipped", channel="email", freeze=EF) == 1
    assert delta("sigtracker_reminders_total", event="failed") == 0
    # The board's freeze is in 2022: each email went out years after it fell due.
    assert delta("sigtracker_reminder_send_delay_minutes_count", channel="email") == 2
    assert 2 * earliest <= delta("sigtracker_reminder_send_delay_minutes_sum", channel="email") <= 2 * latest

    # A second run plans nothing new: nothing is counted twice.
    again = Delta(client)
    call_command("send_freeze_reminders", "--now", (due + 20 * datetime.timedelta(minutes=1)).isoformat(), verbosity=0)
    assert again("sigtracker_reminders_total") == 0


@pytest.mark.django_db(transaction=True)
def test_smtp_failures_count_as_retried_then_failed_and_unsent_reminders_as_overdue(client, board, smtp_mailbox):
    smtp_mailbox.fail_next = 1
    delta = Delta(client)
    due = timezone.now() - 3 * HOUR
    # Move the board's freeze so that the 7-day reminder fell due three hours ago (inside the catch-up window).
    board_freeze = due + 168 * HOUR
    from releases.models import Milestone

    Milestone.objects.filter(kind=EF).update(at=board_freeze, exception_deadline=board_freeze + 48 * HOUR)
    with pytest.raises(CommandError, match="1 deliveries failed"):
        call_command("send_freeze_reminders", "--now", due.isoformat(), verbosity=0)
    assert delta("sigtracker_reminders_total", event="retried", channel="email", freeze=EF) == 1
    assert delta("sigtracker_reminders_total", event="sent", channel="email", freeze=EF) == 2

    # Due three hours ago, past the 60-minute grace, still waiting: overdue.
    metrics = scrape(client)
    assert metrics.value("sigtracker_reminders_overdue", channel="email") == 1
    assert metrics.value("sigtracker_reminders_overdue", channel="slack") == 0
    assert 175 <= metrics.value("sigtracker_reminder_oldest_overdue_minutes") <= 185

    waiting = ReminderDelivery.objects.get(state=DeliveryState.CLAIMED)
    reminder_delivery_give_up(delivery_id=waiting.pk, error="SMTPServerDisconnected: six times")
    assert delta("sigtracker_reminders_total", event="failed", channel="email", freeze=EF) == 1
    assert scrape(client).value("sigtracker_reminders_overdue") == 0
    assert scrape(client).value("sigtracker_reminder_oldest_overdue_minutes") == 0


def test_slack_digests_are_their_own_channel():
    from reminders.metrics import _channel

    assert _channel(slack_recipient("sig-node")) == "slack"
    assert _channel(NODE_LIST) == "email"
