"""An approved exception request's own deadline is a reminder anchor: the people of its KEP get a
personal note at the exception offsets before it, recorded once per recipient like every reminder."""

import io

import pytest
from django.core import mail
from django.core.management import call_command

from releases.choices import EnhancementStatus as S
from releases.choices import ExceptionDecision, Freeze
from releases.models import EnhancementException, EnhancementStatusChange
from reminders.choices import DeliveryState, ReminderKind
from reminders.due import reminders_due
from reminders.models import ReminderDelivery
from reminders.services import freeze_reminders_send
from tests.reminder_board import DAY, FREEZE, HOUR

DEADLINE = FREEZE + 3 * DAY  # Fri 2022-11-11 02:00 UTC = Thu 2022-11-10 18:00 PST
DUE = DEADLINE - 24 * HOUR
THREAD = "https://groups.google.com/g/kubernetes-sig-release/c/exception-2001"


def set_status(row, instant, status):
    EnhancementStatusChange.objects.create(
        tracked_enhancement=row, from_status=row.status, to_status=status, changed_at=instant
    )
    row.status = status
    row.save()


def request(row, decision=ExceptionDecision.APPROVED, deadline=DEADLINE, thread=THREAD):
    return EnhancementException.objects.create(
        tracked_enhancement=row,
        freeze=Freeze.ENHANCEMENTS,
        requested_at=FREEZE - HOUR,
        thread_url=thread,
        decision=decision,
        decided_at=None if decision == ExceptionDecision.PENDING else FREEZE + HOUR,
        deadline=deadline,
    )


def deadline_rows():
    return ReminderDelivery.objects.filter(anchor=ReminderDelivery.Anchor.EXCEPTION_DEADLINE)


@pytest.mark.django_db(transaction=True)
def test_an_approved_request_gets_its_note_a_day_before_its_deadline(board):
    sidecar = board.rows[0]  # KEP-2001: author alice, enhancements contact carol
    set_status(sidecar, FREEZE + HOUR, S.EXCEPTION_APPROVED)
    request(sidecar)
    assert [d for d in reminders_due(now=DUE - HOUR) if d.anchor == "exception_deadline"] == []

    report = freeze_reminders_send(now=DUE)

    assert report.sent == 2 and report.failed == []
    notes = sorted(mail.outbox, key=lambda m: m.to)
    assert [m.to for m in notes] == [["alice@example.com"], ["carol@example.com"]]
    for note in notes:
        assert "\n" not in note.subject and "\r" not in note.subject
        assert "KEP-2001 Sidecar containers" in note.subject
        assert "is in 1 day" in note.subject
        assert "Fri 2022-11-11 02:00 UTC" in note.body
        assert "Thu 2022-11-10 18:00 PST (UTC−8)" in note.body
        assert THREAD in note.body
        assert "Enhancements freeze" in note.body
        assert "List-Unsubscribe" in note.extra_headers
        html = note.alternatives[0][0]
        assert THREAD in html and "Fri 2022-11-11 02:00 UTC" in html
    assert "enhancements contact" in notes[1].body
    # The footer gives each person's own reason and their preferences, not a generic list and a curator.
    assert "because you are an enhancements contact of the KEP above" in notes[1].body
    assert "/me/preferences/" in notes[1].body and "curator" not in notes[1].body
    rows = list(deadline_rows().order_by("recipient"))
    assert [(r.recipient, r.kind, r.offset_hours, r.milestone_id, r.due_at, r.state) for r in rows] == [
        (address, ReminderKind.PERSONAL, 24, board.freeze.pk, DUE, DeliveryState.SENT)
        for address in ("alice@example.com", "carol@example.com")
    ]
    # No digest for a request's deadline.
    assert not ReminderDelivery.objects.filter(kind=ReminderKind.DIGEST, anchor="exception_deadline").exists()

    # A second run (the same instant, or the next beat) sends nothing: the rows say it went out.
    for now in (DUE, DUE + HOUR):
        again = freeze_reminders_send(now=now)
        assert again.sent == 0
    assert len(mail.outbox) == 2
    assert deadline_rows().count() == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("decision", [ExceptionDecision.PENDING, ExceptionDecision.REJECTED])
def test_pending_or_rejected_requests_get_no_deadline_note(board, decision):
    sidecar = board.rows[0]
    set_status(sidecar, FREEZE + HOUR, S.EXCEPTION_PENDING if decision == "pending" else S.REMOVED)
    request(sidecar, decision=decision)

    assert [d for d in reminders_due(now=DUE) if d.anchor == "exception_deadline"] == []
    freeze_reminders_send(now=DUE)
    assert not deadline_rows().exists()
    assert mail.outbox == []


@pytest.mark.django_db(transaction=True)
def test_a_kep_already_done_gets_nothing(board):
    sidecar = board.rows[0]
    set_status(sidecar, FREEZE + HOUR, S.EXCEPTION_APPROVED)
    set_status(sidecar, FREEZE + DAY, S.DONE)
    request(sidecar)

    report = freeze_reminders_send(now=DUE)
    assert report.planned == [] and report.sent == 0
    assert not deadline_rows().exists()
    assert mail.outbox == []


@pytest.mark.django_db(transaction=True)
def test_two_requests_of_one_person_make_one_note(board):
    sidecar, resize = board.rows[0], board.rows[1]  # alice authors both; bob only 2002
    for row in (sidecar, resize):
        set_status(row, FREEZE + HOUR, S.EXCEPTION_APPROVED)
    request(sidecar)
    request(resize, thread="https://kubernetes.slack.com/archives/C2C40FMNF/p2002")

    freeze_reminders_send(now=DUE)

    by_address = {m.to[0]: m for m in mail.outbox}
    assert sorted(by_address) == ["alice@example.com", "bob@example.com", "carol@example.com"]
    alice = by_address["alice@example.com"]
    assert "KEP-2001" in alice.subject and "KEP-2002" in alice.subject
    assert THREAD in alice.body and "p2002" in alice.body
    assert "KEP-2001" not in by_address["bob@example.com"].body
    assert deadline_rows().filter(recipient="alice@example.com").count() == 1


@pytest.mark.django_db(transaction=True)
def test_opted_out_people_are_recorded_as_skipped(board):
    board.carol.reminders_opt_out = True
    board.carol.save()
    sidecar = board.rows[0]
    set_status(sidecar, FREEZE + HOUR, S.EXCEPTION_APPROVED)
    request(sidecar)

    freeze_reminders_send(now=DUE)

    assert [m.to for m in mail.outbox] == [["alice@example.com"]]
    carol = deadline_rows().get(recipient="carol@example.com")
    assert carol.state == DeliveryState.SKIPPED and "opted out" in carol.error


@pytest.mark.django_db(transaction=True)
def test_the_dry_run_lists_the_note_and_records_nothing(board):
    sidecar = board.rows[0]
    set_status(sidecar, FREEZE + HOUR, S.EXCEPTION_APPROVED)
    request(sidecar)

    out = io.StringIO()
    call_command("send_freeze_reminders", "--dry-run", "--now", DUE.isoformat(), stdout=out)

    lines = [line for line in out.getvalue().splitlines() if "exception deadline" in line]
    assert len(lines) == 2, out.getvalue()
    assert "alice@example.com" in lines[0] and "carol@example.com" in lines[1]
    assert all("send:" in line and "in 1 day" in line and "KEPs 2001" in line for line in lines)
    assert not ReminderDelivery.objects.exists()
    assert mail.outbox == []
