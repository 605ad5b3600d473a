"""The reminders' Celery tasks, run eagerly as they are without CELERY_BROKER_URL (the demo, and these tests)."""

import datetime

import pytest
from django.core import mail

from reminders import tasks
from reminders.choices import DeliveryState
from reminders.leases import reminder_deliveries_claim
from reminders.models import ReminderDelivery
from tests.factories import PersonFactory
from tests.reminder_board import FREEZE, HOUR, NODE_LIST

WEEK_BEFORE = FREEZE - 168 * HOUR


def test_reminder_tasks_are_acks_late():
    assert tasks.send_due_freeze_reminders.acks_late is True
    assert tasks.deliver_reminders.acks_late is True


@pytest.mark.django_db(transaction=True)
def test_send_due_freeze_reminders_task_queues_and_delivers(board):
    assert tasks.send_due_freeze_reminders.delay(WEEK_BEFORE.isoformat()).get() == 3
    assert sorted(m.to[0] for m in mail.outbox) == sorted([NODE_LIST, "alice@example.com", "carol@example.com"])
    # A second beat within the grace period finds everything sent.
    assert (
        tasks.send_due_freeze_reminders.delay((WEEK_BEFORE + 15 * 60 * datetime.timedelta(seconds=1)).isoformat()).get()
        == 0
    )
    assert len(mail.outbox) == 3


@pytest.mark.django_db(transaction=True)
def test_task_rejects_a_bad_instant():
    with pytest.raises(ValueError, match="now: not an ISO date-time"):
        tasks.send_due_freeze_reminders.delay("next tuesday").get()


@pytest.mark.django_db(transaction=True)
def test_eager_transient_failure_is_left_for_the_next_run(board, smtp_mailbox):
    """Without a broker there is nowhere to hold a delayed retry: the claim is released instead and the
    next beat (or command) run within the grace period sends it."""
    smtp_mailbox.fail_next = 1
    assert tasks.send_due_freeze_reminders.delay(WEEK_BEFORE.isoformat()).get() == 3
    assert len(smtp_mailbox.messages) == 2
    waiting = ReminderDelivery.objects.get(state=DeliveryState.CLAIMED)
    assert waiting.claimed_at is None
    later = WEEK_BEFORE + datetime.timedelta(minutes=15)
    assert tasks.send_due_freeze_reminders.delay(later.isoformat()).get() == 1
    assert sorted(r for m in smtp_mailbox.messages for r in m.rcpt_tos) == sorted(
        [NODE_LIST, "alice@example.com", "carol@example.com"]
    )


@pytest.mark.django_db(transaction=True)
def test_deliver_gives_up_after_its_last_retry(board, smtp_mailbox):
    smtp_mailbox.fail_next = 1
    ids = reminder_deliveries_claim(now=WEEK_BEFORE)
    result = tasks.deliver_reminders.apply(
        args=[ids, WEEK_BEFORE.isoformat()], retries=tasks.deliver_reminders.max_retries
    )
    assert result.get() == {"sent": 2, "skipped": 0, "elsewhere": 0, "failed": 1, "retrying": 0}
    failed = ReminderDelivery.objects.get(state=DeliveryState.FAILED)
    assert "451" in failed.error and failed.claimed_at is None
    assert len(smtp_mailbox.messages) == 2


@pytest.mark.django_db(transaction=True)
def test_deliver_does_not_retry_a_permanent_refusal(board, smtp_mailbox):
    smtp_mailbox.fail_next = 1
    smtp_mailbox.fail_reply = "554 5.7.1 rejected"
    ids = reminder_deliveries_claim(now=WEEK_BEFORE)
    summary = tasks.deliver_reminders.delay(ids, WEEK_BEFORE.isoformat()).get()
    assert summary == {"sent": 2, "skipped": 0, "elsewhere": 0, "failed": 1, "retrying": 0}
    failed = ReminderDelivery.objects.get(state=DeliveryState.FAILED)
    assert failed.attempts == 1 and "554" in failed.error
    # The batch went on after the refusal, on a fresh connection.
    assert len(smtp_mailbox.messages) == 2


@pytest.mark.django_db(transaction=True)
def test_beat_task_queues_deliveries_in_batches(board, monkeypatch):
    for n in range(30):
        board.rows[0].kep.authors.add(PersonFactory(github=f"author{n}", email=f"author{n}@example.com"))
    batches = []
    monkeypatch.setattr(tasks.deliver_reminders, "delay", lambda ids, as_of: batches.append(len(ids)))
    assert tasks.send_due_freeze_reminders(WEEK_BEFORE.isoformat()) == 33
    assert batches == [25, 8]
