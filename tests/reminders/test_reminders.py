"""Freeze reminders: what is due when (offsets, per-SIG overrides, daylight saving), who gets what,
opt-out, one delivery record per recipient, the send_freeze_reminders command, and real SMTP delivery."""

import datetime

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.db import transaction

from releases.choices import EnhancementStatus as S
from releases.choices import MilestoneKind
from reminders.choices import DeliveryState, ReminderKind
from reminders.delivery import reminder_deliver_batch
from reminders.due import reminders_due
from reminders.leases import reminder_deliveries_claim
from reminders.models import ReminderDelivery
from reminders.planning import reminder_deliveries_plan
from reminders.render_email import render_digest, render_personal
from reminders.services import freeze_reminders_send
from retros.choices import ActionStatus, RetroCategory
from tests.concurrency import run_together
from tests.factories import (
    KepFactory,
    MilestoneFactory,
    PersonFactory,
    ReleaseFactory,
    RetroItemFactory,
    RetrospectiveFactory,
    SigFactory,
    TrackedEnhancementFactory,
)
from tests.reminder_board import DAY, FREEZE, HOUR, NODE_LIST, PACIFIC, UTC, on_board  # noqa: F401 - shared names


def recipients(planned):
    return sorted((item.kind, item.recipient, item.skip_reason) for item in planned)


# --- what is due ----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_default_offsets_fall_due_at_the_right_instants(board):
    for hours in (336, 168, 48, 24, 0):
        instant = FREEZE - datetime.timedelta(hours=hours)
        due = reminders_due(now=instant)
        assert [(d.anchor, d.offset_hours, d.due_at) for d in due] == [("freeze", hours, instant)]
    # Between offsets nothing is due but what a run may have missed in the last day (the delivery rows
    # stop a second send).
    assert reminders_due(now=FREEZE - 100 * HOUR) == []
    assert [d.offset_hours for d in reminders_due(now=FREEZE - 24 * HOUR + 5 * HOUR)] == [24]
    # A beat 15 minutes late still sends it.
    assert [d.offset_hours for d in reminders_due(now=FREEZE - 24 * HOUR + datetime.timedelta(minutes=15))] == [24]


@pytest.mark.django_db
def test_exception_window_closing_is_reminded(board):
    closes = FREEZE + 2 * DAY
    due = reminders_due(now=closes - 24 * HOUR)
    assert [(d.anchor, d.offset_hours) for d in due] == [("exception_close", 24)]


@pytest.mark.django_db
def test_sig_offsets_override_the_defaults(board):
    board.node.reminder_offsets = [72, 6]
    board.node.save()
    assert [d.offset_hours for d in reminders_due(now=FREEZE - 72 * HOUR)] == [72]
    assert reminders_due(now=FREEZE - 168 * HOUR) == []
    # Another SIG on the same board keeps the defaults: the 7-day reminder goes to it alone.
    storage = SigFactory(slug="sig-storage", mailing_list="storage@example.com")
    TrackedEnhancementFactory(release=board.release, kep=KepFactory(owning_sig=storage), created_at=FREEZE - 30 * DAY)
    due = reminders_due(now=FREEZE - 168 * HOUR)
    assert [(d.offset_hours, d.sig_ids) for d in due] == [(168, [storage.pk])]


@pytest.mark.django_db
def test_settings_offsets_apply_when_the_sig_has_none(board, settings):
    settings.SIGTRACKER_REMINDER_OFFSETS_HOURS = [5]
    assert [d.offset_hours for d in reminders_due(now=FREEZE - 5 * HOUR)] == [5]
    assert reminders_due(now=FREEZE - 24 * HOUR) == []


@pytest.mark.django_db
def test_daylight_saving_one_day_is_24_hours_in_utc(board):
    """18:00 PST after the fall-back and 18:00 PDT before it land on different UTC hours; "2 days before"
    the PST freeze is 48 h before in UTC, which Pacific clocks show as 19:00 PDT."""
    assert FREEZE.astimezone(UTC) == datetime.datetime(2022, 11, 8, 2, 0, tzinfo=UTC)
    pdt_freeze = datetime.datetime(2022, 11, 1, 18, 0, tzinfo=PACIFIC)
    assert pdt_freeze.astimezone(UTC) == datetime.datetime(2022, 11, 2, 1, 0, tzinfo=UTC)

    two_days = reminders_due(now=datetime.datetime(2022, 11, 6, 2, 0, tzinfo=UTC))
    assert [(d.offset_hours, d.due_at) for d in two_days] == [(48, datetime.datetime(2022, 11, 6, 2, tzinfo=UTC))]
    assert two_days[0].due_at.astimezone(PACIFIC).strftime("%H:%M %Z") == "19:00 PDT"
    # 18:00 Pacific two calendar days before is 47 hours before: the 48-hour reminder has not waited for it.
    wall_clock = datetime.datetime(2022, 11, 5, 18, 0, tzinfo=PACIFIC)
    assert [d.offset_hours for d in reminders_due(now=wall_clock)] == []

    digest = render_digest(dues=two_days[0], sig_ids=[board.node.pk], recipient=NODE_LIST, as_of=two_days[0].due_at)
    assert "Tue 2022-11-08 02:00 UTC" in digest.text
    assert "Mon 2022-11-07 18:00 PST (UTC−8)" in digest.text

    board.freeze.at = pdt_freeze
    board.freeze.exception_deadline = pdt_freeze + 2 * DAY
    board.freeze.save()
    due = reminders_due(now=pdt_freeze - 24 * HOUR)
    assert due[0].due_at == datetime.datetime(2022, 11, 1, 1, 0, tzinfo=UTC)
    digest = render_digest(dues=due[0], sig_ids=[board.node.pk], recipient=NODE_LIST, as_of=due[0].due_at)
    assert "Wed 2022-11-02 01:00 UTC" in digest.text
    assert "Tue 2022-11-01 18:00 PDT (UTC−7)" in digest.text


@pytest.mark.django_db
def test_aoe_is_explained_only_where_the_schedule_uses_it(board):
    due = reminders_due(now=FREEZE - 24 * HOUR)[0]
    text = render_digest(dues=due, sig_ids=[board.node.pk], recipient=NODE_LIST, as_of=due.due_at).text
    assert "AoE" not in text
    board.freeze.quoted_timezone = "AoE"
    board.freeze.save()
    due = reminders_due(now=FREEZE - 24 * HOUR)[0]
    text = render_digest(dues=due, sig_ids=[board.node.pk], recipient=NODE_LIST, as_of=due.due_at).text
    assert "Mon 2022-11-07 14:00 AoE" in text
    assert "Anywhere on Earth" in text


@pytest.mark.django_db
def test_milestones_without_reminders_and_non_freezes_send_nothing(board):
    board.freeze.sends_reminders = False
    board.freeze.save()
    MilestoneFactory(release=board.release, kind=MilestoneKind.RELEASE, at=FREEZE)
    assert reminders_due(now=FREEZE - 24 * HOUR) == []


# --- who gets what ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_plan_digest_to_list_and_notes_to_people_with_keps_not_ready(board):
    planned = reminder_deliveries_plan(now=FREEZE - 168 * HOUR)
    # alice (author of the at-risk 2001) and carol (its contact); bob's KEPs are ready or removed.
    assert recipients(planned) == [
        ("digest", NODE_LIST, ""),
        ("personal", "alice@example.com", ""),
        ("personal", "carol@example.com", ""),
    ]
    assert next(p for p in planned if p.recipient == "alice@example.com").keps == [2001]


@pytest.mark.django_db
def test_opted_out_people_get_nothing_and_it_is_recorded(board):
    board.carol.reminders_opt_out = True
    board.carol.save()
    planned = reminder_deliveries_plan(now=FREEZE - 168 * HOUR)
    assert ("personal", "carol@example.com", "opted out of reminder emails") in recipients(planned)


@pytest.mark.django_db
def test_later_freeze_levels_decide_who_is_ready(board):
    code_freeze = MilestoneFactory(release=board.release, kind=MilestoneKind.CODE_FREEZE, at=FREEZE + 30 * DAY)
    board.freeze.delete()
    # 2002 is tracked for enhancements freeze, not yet for code freeze: now bob and alice need to act.
    planned = reminder_deliveries_plan(now=code_freeze.at - 24 * HOUR)
    assert [r[1] for r in recipients(planned)] == [
        NODE_LIST,
        "alice@example.com",
        "bob@example.com",
        "carol@example.com",
    ]
    bob = next(p for p in planned if p.recipient == "bob@example.com")
    assert bob.keps == [2002]


@pytest.mark.django_db
def test_digest_content_at_risk_first_with_action_items(board):
    retro = RetrospectiveFactory(release=ReleaseFactory(version="1.25"), sig=board.node)
    RetroItemFactory(
        retrospective=retro,
        category=RetroCategory.ACTION_ITEM,
        status=ActionStatus.OPEN,
        text="Write the sidecar test plan earlier",
        owner=board.alice,
        due_release=board.release,
    )
    RetroItemFactory(
        retrospective=retro,
        category=RetroCategory.ACTION_ITEM,
        status=ActionStatus.DONE,
        text="Already done item",
        due_release=board.release,
    )
    due = reminders_due(now=FREEZE - 168 * HOUR)[0]
    message = render_digest(dues=due, sig_ids=[board.node.pk], recipient=NODE_LIST, as_of=due.due_at)
    assert message.subject == "[sig-node] Enhancements freeze for v1.26 is in 7 days: 1 KEP not ready"
    text = message.text
    assert text.index("KEP-2001") < text.index("KEP-2002") < text.index("KEP-2003")
    assert "AT RISK" in text and "No longer in this release" in text
    assert "Write the sidecar test plan earlier (@alice, open; from the v1.25 retro of sig-node)" in text
    assert "Already done item" not in text
    assert "  * kep.yaml merged into kubernetes/enhancements with status implementable" in text
    assert "To stop it" in text and "/me/preferences/" in text
    assert "<td><a href=" in message.html and "KEP-2001" in message.html


@pytest.mark.django_db
def test_personal_note_lists_only_their_keps_and_what_each_needs(board):
    due = reminders_due(now=FREEZE)[0]  # the freeze is now in effect
    message = render_personal(dues=due, person=board.alice, recipient="alice@example.com", as_of=FREEZE)
    assert message.subject == "Enhancements freeze for v1.26 is now in effect: 1 of your KEPs needs attention"
    assert "Hello Alice Liddell" in message.text
    assert "KEP-2001 Sidecar containers" in message.text and "KEP-2002" not in message.text
    assert "you are its author" in message.text
    assert "Still needs: missed Enhancements freeze: request an exception before 2022-11-10 02:00 UTC" in message.text
    # The footer gives the reason the body gives, and where to change it: preferences and the one-click link.
    assert "because you are an author of the KEP above" in message.text
    assert "/me/preferences/" in message.text and "/unsubscribe/personal/" in message.text
    assert "curator" not in message.text
    assert "because you are an author of the KEP above" in message.html and "/me/preferences/" in message.html


# --- sending, once per recipient -------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_command_sends_once_and_a_second_run_sends_nothing(board, capsys):
    now = (FREEZE - 168 * HOUR).isoformat()
    call_command("send_freeze_reminders", "--now", now, verbosity=1)
    assert sorted(m.to[0] for m in mail.outbox) == sorted([NODE_LIST, "alice@example.com", "carol@example.com"])
    assert "Sent 3, skipped 0" in capsys.readouterr().out
    for message in mail.outbox:
        assert message.alternatives[0][1] == "text/html"
        # Digests and personal notes alike send people to their own preferences, not to a curator.
        assert "/me/preferences/" in message.body

    call_command("send_freeze_reminders", "--now", now, verbosity=1)
    assert len(mail.outbox) == 3
    assert "Sent 0, skipped 0, already handled elsewhere 0" in capsys.readouterr().out
    assert set(ReminderDelivery.objects.values_list("state", flat=True)) == {DeliveryState.SENT}
    assert ReminderDelivery.objects.count() == 3


@pytest.mark.django_db(transaction=True)
def test_dry_run_prints_and_records_nothing(board, capsys):
    call_command("send_freeze_reminders", "--dry-run", "--now", (FREEZE - 168 * HOUR).isoformat(), verbosity=1)
    out = capsys.readouterr().out
    assert "would send 3 reminder email(s)" in out
    assert f"send: digest to {NODE_LIST}" in out and "send: personal to alice@example.com" in out
    assert mail.outbox == []
    assert not ReminderDelivery.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_now_replays_the_board_as_it_was(board):
    # Since that week, 2001 was made tracked: today's board has nothing at risk.
    later = FREEZE - 2 * DAY
    on_board(board.rows[0], (later, S.TRACKED_ENHANCEMENTS))
    call_command("send_freeze_reminders", "--now", (FREEZE - 168 * HOUR).isoformat(), verbosity=0)
    assert sorted(m.to[0] for m in mail.outbox) == sorted([NODE_LIST, "alice@example.com", "carol@example.com"])
    alice = next(m for m in mail.outbox if m.to == ["alice@example.com"])
    assert "At risk for enhancements freeze" in alice.body

    # One day before the freeze the board had changed: no personal notes any more.
    mail.outbox.clear()
    call_command("send_freeze_reminders", "--now", (FREEZE - 24 * HOUR).isoformat(), verbosity=0)
    assert [m.to[0] for m in mail.outbox] == [NODE_LIST]


@pytest.mark.django_db(transaction=True)
def test_now_rejects_junk():
    with pytest.raises(CommandError, match="--now: not an ISO date-time: 'tuesday'"):
        call_command("send_freeze_reminders", "--now", "tuesday", verbosity=0)


@pytest.mark.django_db(transaction=True)
def test_opted_out_person_gets_no_email(board):
    board.alice.reminders_opt_out = True
    board.alice.save()
    call_command("send_freeze_reminders", "--now", (FREEZE - 168 * HOUR).isoformat(), verbosity=0)
    assert "alice@example.com" not in [m.to[0] for m in mail.outbox]
    skipped = ReminderDelivery.objects.get(recipient="alice@example.com")
    assert skipped.state == DeliveryState.SKIPPED and skipped.sent_at is None


@pytest.mark.django_db(transaction=True)
def test_stale_claim_of_a_dead_sender_is_sent_once_fresh_one_left_alone(board, settings):
    settings.SIGTRACKER_REMINDER_LEASE_SECONDS = 60
    now = FREEZE - 168 * HOUR
    ids = reminder_deliveries_claim(now=now)
    assert len(ids) == 3
    # A sender took alice's delivery 5 minutes ago and died; another holds carol's right now.
    from django.utils import timezone

    alice = ReminderDelivery.objects.get(recipient="alice@example.com")
    carol = ReminderDelivery.objects.get(recipient="carol@example.com")
    ReminderDelivery.objects.filter(pk=alice.pk).update(
        claimed_at=timezone.now() - datetime.timedelta(minutes=5), attempts=1
    )
    ReminderDelivery.objects.filter(pk=carol.pk).update(claimed_at=timezone.now(), attempts=1)

    again = reminder_deliveries_claim(now=now)
    assert carol.pk not in again and alice.pk in again
    assert reminder_deliver_batch(delivery_ids=[carol.pk, alice.pk], as_of=now).elsewhere == [carol.pk]
    assert reminder_deliver_batch(delivery_ids=[alice.pk], as_of=now).elsewhere == [alice.pk]
    assert [m.to[0] for m in mail.outbox] == ["alice@example.com"]
    assert ReminderDelivery.objects.get(pk=alice.pk).attempts == 2


@pytest.mark.django_db(transaction=True)
def test_never_sends_inside_a_transaction(board):
    ids = reminder_deliveries_claim(now=FREEZE - 168 * HOUR)
    with pytest.raises(RuntimeError, match="inside a transaction"), transaction.atomic():
        reminder_deliver_batch(delivery_ids=ids[:1], as_of=FREEZE - 168 * HOUR)
    assert mail.outbox == []


@pytest.mark.django_db(transaction=True)
def test_real_smtp_delivery_headers_parts_and_recipients(board, smtp_mailbox):
    call_command("send_freeze_reminders", "--now", (FREEZE - 168 * HOUR).isoformat(), verbosity=0)
    assert sorted(r for m in smtp_mailbox.messages for r in m.rcpt_tos) == sorted(
        [NODE_LIST, "alice@example.com", "carol@example.com"]
    )
    (alice,) = smtp_mailbox.to("alice@example.com")
    headers = alice.message
    assert headers["To"] == "alice@example.com"
    assert headers["From"] == "sigtracker <sigtracker@localhost>"
    assert headers["Subject"] == "Enhancements freeze for v1.26 is in 7 days: 1 of your KEPs needs attention"
    assert headers["Auto-Submitted"] == "auto-generated"
    delivery = ReminderDelivery.objects.get(recipient="alice@example.com")
    assert headers["Message-ID"] == delivery.message_id == f"<reminder-{delivery.pk}@127.0.0.1>"
    assert "KEP-2001 Sidecar containers" in alice.text
    assert "Still needs: everything Enhancements freeze requires (listed above)" in alice.text
    assert "  * the production readiness review (PRR approval) completed and merged" in alice.text
    assert '<a href="http://127.0.0.1:8000/keps/2001/">KEP-2001</a>' in alice.html
    (digest,) = smtp_mailbox.to(NODE_LIST)
    assert digest.message["Subject"].startswith("[sig-node] Enhancements freeze for v1.26 is in 7 days")
    assert "KEP-2003" in digest.text and "KEP-2003" in digest.html


@pytest.mark.django_db(transaction=True)
def test_transient_smtp_failure_releases_the_claim_and_the_next_run_sends(board, smtp_mailbox):
    smtp_mailbox.fail_next = 1
    now = (FREEZE - 168 * HOUR).isoformat()
    with pytest.raises(CommandError, match="1 deliveries failed"):
        call_command("send_freeze_reminders", "--now", now, verbosity=0)
    assert len(smtp_mailbox.messages) == 2
    waiting = ReminderDelivery.objects.get(state=DeliveryState.CLAIMED)
    assert waiting.claimed_at is None and "451" in waiting.error
    call_command("send_freeze_reminders", "--now", now, verbosity=0)
    assert sorted(r for m in smtp_mailbox.messages for r in m.rcpt_tos) == sorted(
        [NODE_LIST, "alice@example.com", "carol@example.com"]
    )


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_senders_never_duplicate(board, smtp_mailbox, postgres_only):
    """Two beats (or a beat and the command) at once: the unique constraint and the lease share out
    the recipients; each gets exactly one message."""
    for n in range(20):
        person = PersonFactory(github=f"author{n}", email=f"author{n}@example.com")
        board.rows[0].kep.authors.add(person)
    now = FREEZE - 168 * HOUR
    run_together(lambda: freeze_reminders_send(now=now), timeout=30)
    delivered = [r for m in smtp_mailbox.messages for r in m.rcpt_tos]
    assert len(delivered) == 23 and len(set(delivered)) == 23
    assert ReminderDelivery.objects.filter(state=DeliveryState.SENT).count() == 23
    assert ReminderDelivery.objects.filter(kind=ReminderKind.PERSONAL).count() == 22


@pytest.mark.django_db
def test_exception_window_note_names_pending_and_approved_exceptions(board):
    on_board(board.rows[0], (FREEZE + HOUR, S.EXCEPTION_PENDING))
    on_board(board.rows[1], (FREEZE + HOUR, S.EXCEPTION_APPROVED))
    closes = FREEZE + 2 * DAY
    planned = reminder_deliveries_plan(now=closes - 24 * HOUR)
    assert {p.recipient: p.keps for p in planned if p.kind == "personal"} == {
        "alice@example.com": [2001, 2002],
        "bob@example.com": [2002],
        "carol@example.com": [2001],
    }
    due = planned[0].due
    message = render_personal(dues=due, person=board.alice, recipient="alice@example.com", as_of=closes - 24 * HOUR)
    assert message.subject == "Exception window after Enhancements freeze (v1.26) closes in 1 day: 2 of your KEPs"
    assert "exception request awaits the release team's decision" in message.text
    assert "approved exception: the remaining work must merge before the exception window closes" in message.text
    assert "Thu 2022-11-10 02:00 UTC" in message.text
    # A pending exception is not "at risk" by the rules (the dashboard does not list it as such): the email says
    # what it awaits instead of flagging it.
    assert "AT RISK" not in message.text


@pytest.mark.django_db(transaction=True)
def test_opting_out_after_the_reminder_was_planned_is_honoured(board):
    now = FREEZE - 168 * HOUR
    ids = reminder_deliveries_claim(now=now)
    board.alice.reminders_opt_out = True
    board.alice.save()
    result = reminder_deliver_batch(delivery_ids=ids, as_of=now)
    assert len(result.sent) == 2 and len(result.skipped) == 1
    assert "alice@example.com" not in [m.to[0] for m in mail.outbox]
    assert ReminderDelivery.objects.get(recipient="alice@example.com").error == "opted out of reminder emails"


@pytest.mark.django_db
def test_bad_sig_offsets_are_skipped_with_a_warning(board, caplog):
    board.node.reminder_offsets = [24, "soon", -3, 2.5]
    board.node.save()
    assert [d.offset_hours for d in reminders_due(now=FREEZE - 24 * HOUR)] == [24]
    assert "SIG sig-node: reminder_offsets: 'soon' is not a whole number of hours >= 0; ignored" in caplog.text
    board.node.reminder_offsets = {"freeze": 24}
    board.node.save()
    assert [d.offset_hours for d in reminders_due(now=FREEZE - 168 * HOUR)] == [168]
    assert "not a list of hours" in caplog.text
