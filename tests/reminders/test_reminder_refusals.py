"""Reminders the mail server refuses (5xx): recorded with the answer, counted, shown in the admin, and tried
again by a later run after a back-off or by the admin's "Retry now"; never lost, never sent twice. Against a real
SMTP server on loopback that answers 500, then 250."""

import datetime

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from releases.models import Milestone
from reminders.choices import DeliveryState
from reminders.delivery import reminder_deliver_batch
from reminders.leases import reminder_deliveries_claim
from reminders.models import ReminderDelivery
from reminders.refusals import reminder_refused_release
from reminders.services import freeze_reminders_send
from tests.reminder_board import DAY, FREEZE, HOUR, NODE_LIST

REFUSAL = "500 5.0.0 mailbox unavailable for policy reasons"
ANSWER = f"SMTP {REFUSAL}"
EVERYONE = sorted([NODE_LIST, "alice@example.com", "carol@example.com"])


def delivered(mailbox) -> list[str]:
    return sorted(r for m in mailbox.messages for r in m.rcpt_tos)


def back_off_runs_out():
    """Time passes: every waiting refusal's back-off is over (real time; `--now` replays the board only)."""
    ReminderDelivery.objects.filter(retry_at__isnull=False).update(
        retry_at=timezone.now() - datetime.timedelta(seconds=1)
    )


@pytest.fixture
def refusing_server(smtp_mailbox):
    smtp_mailbox.fail_reply = REFUSAL
    smtp_mailbox.fail_next = 3
    return smtp_mailbox


@pytest.mark.django_db(transaction=True)
def test_refused_reminders_are_recorded_counted_and_sent_once_by_a_later_run(board, refusing_server, capsys):
    now = (FREEZE - 168 * HOUR).isoformat()
    with pytest.raises(CommandError, match="3 deliveries failed"):
        call_command("send_freeze_reminders", "--now", now, verbosity=1)
    out, err = capsys.readouterr()
    assert "Sent 0, skipped 0, already handled elsewhere 0, failed 3" in out
    assert err.count(ANSWER) >= 3
    refused = ReminderDelivery.objects.order_by("recipient")
    assert [d.state for d in refused] == [DeliveryState.FAILED] * 3
    for delivery in refused:
        assert delivery.error == ANSWER and delivery.refusals == 1
        assert delivery.retry_at > timezone.now() + datetime.timedelta(minutes=29)

    # The next run, inside the back-off: nothing sent, and the summary says what waits and why.
    call_command("send_freeze_reminders", "--now", now, verbosity=1)
    out, err = capsys.readouterr()
    assert "Sent 0" in out and "refused and waiting to be retried 3." in out
    assert err.count("refused, will retry: delivery") == 3 and "alice@example.com" in err
    assert refusing_server.messages == []

    # The server answers 250 now; past the back-off the next run sends each once.
    back_off_runs_out()
    call_command("send_freeze_reminders", "--now", now, verbosity=1)
    out, _ = capsys.readouterr()
    assert "Sent 3" in out and "retried after a refusal 3" in out and "waiting to be retried 0." in out
    assert delivered(refusing_server) == EVERYONE
    assert set(ReminderDelivery.objects.values_list("state", flat=True)) == {DeliveryState.SENT}

    # And never again.
    back_off_runs_out()
    call_command("send_freeze_reminders", "--now", now, verbosity=1)
    assert "Sent 0" in capsys.readouterr().out
    assert delivered(refusing_server) == EVERYONE


@pytest.mark.django_db(transaction=True)
def test_two_runs_past_the_back_off_hand_a_refusal_out_once(board, refusing_server):
    now = FREEZE - 168 * HOUR
    freeze_reminders_send(now=now)
    back_off_runs_out()
    first = reminder_refused_release(now=now)
    second = reminder_refused_release(now=now)
    assert len(first) == 3 and second == []
    # Both runs' senders get the ids; the lease lets one of them send each.
    reminder_deliver_batch(delivery_ids=first, as_of=now)
    assert reminder_deliver_batch(delivery_ids=first, as_of=now).sent == []
    assert delivered(refusing_server) == EVERYONE


@pytest.mark.django_db(transaction=True)
def test_back_off_doubles_and_automatic_retries_stop(board, refusing_server, settings):
    settings.SIGTRACKER_REMINDER_REFUSED_RETRIES = 2
    refusing_server.fail_next = 100
    now = FREEZE - 168 * HOUR
    waits = []
    for _ in range(3):
        back_off_runs_out()
        before = timezone.now()
        freeze_reminders_send(now=now)
        alice = ReminderDelivery.objects.get(recipient="alice@example.com")
        waits.append(None if alice.retry_at is None else round((alice.retry_at - before).total_seconds() / 60))
    assert waits == [30, 60, None]
    assert alice.state == DeliveryState.FAILED and alice.refusals == 3 and alice.error == ANSWER
    back_off_runs_out()
    assert reminder_deliveries_claim(now=now) == []
    assert refusing_server.messages == []


@pytest.mark.django_db(transaction=True)
def test_no_automatic_retry_once_the_freeze_has_passed(board, refusing_server):
    freeze_reminders_send(now=FREEZE - 168 * HOUR)
    back_off_runs_out()
    assert reminder_refused_release(now=FREEZE + HOUR) == []
    alice = ReminderDelivery.objects.get(recipient="alice@example.com")
    assert alice.state == DeliveryState.FAILED and alice.retry_at is None and alice.error == ANSWER
    assert refusing_server.messages == []


@pytest.mark.django_db(transaction=True)
def test_admin_shows_the_answer_and_retry_now_sends_once(board, refusing_server, admin_client):
    freeze_reminders_send(now=FREEZE - 168 * HOUR)
    changelist = reverse("admin:reminders_reminderdelivery_changelist")
    page = admin_client.get(changelist, {"state__exact": "failed"}).content.decode()
    assert page.count(ANSWER) == 3 and "Retry now the selected failed deliveries" in page

    # The curator retries a week before the freeze (the board's freeze is a fixed date: move it a week ahead).
    shift = timezone.now() - FREEZE + 7 * DAY
    Milestone.objects.update(at=F("at") + shift, exception_deadline=F("exception_deadline") + shift)
    failed = list(ReminderDelivery.objects.values_list("pk", flat=True))
    response = admin_client.post(changelist, {"action": "retry_now", "_selected_action": failed}, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["3 delivery(ies) handed out again for sending."]
    assert delivered(refusing_server) == EVERYONE
    assert set(ReminderDelivery.objects.values_list("state", flat=True)) == {DeliveryState.SENT}

    # A second click on rows already sent sends nothing and says why.
    response = admin_client.post(changelist, {"action": "retry_now", "_selected_action": failed}, follow=True)
    assert "not retried: it is sent, not failed" in str(list(response.context["messages"]))
    assert delivered(refusing_server) == EVERYONE
