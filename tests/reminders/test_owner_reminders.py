"""Personal notes beyond the board: the owners of committed KEPs with a plan gap get those lines until the PRR freeze
(even with no row on the board), the owners of open retro action items get them at each freeze reminder until done
or dropped, and the leads' digest names overdue action items apart from those due in the release."""

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from planning.models import PlanDecision
from planning.services import plan_decision_record
from releases.choices import MilestoneKind
from reminders.choices import ReminderKind
from reminders.due import reminders_due
from reminders.planning import reminder_plan
from reminders.render_email import render_digest, render_personal
from reminders.render_slack import render_digest_slack
from retros.choices import ActionStatus, RetroCategory, StatusSource
from retros.services.actions import action_item_set_status
from tests.factories import (
    KepFactory,
    MilestoneFactory,
    PersonFactory,
    ReleaseFactory,
    RetroItemFactory,
    RetrospectiveFactory,
    SigFactory,
)
from tests.reminder_board import DAY, FREEZE, HOUR, NODE_LIST

AUTH_LIST = "kubernetes-sig-auth@googlegroups.com"
WEEK_BEFORE = FREEZE - 168 * HOUR
HOSTILE = "<img src=x onerror=alert(1)> **bold** <https://evil.example|click> & co"


def prr_freeze(board):
    # Five days before the enhancements freeze; its own reminders are off, so only the enhancements freeze's count.
    MilestoneFactory(release=board.release, kind=MilestoneKind.PRR_FREEZE, at=FREEZE - 5 * DAY, sends_reminders=False)


def commit(sig, *keps):
    curator = get_user_model().objects.filter(username="curator").first() or get_user_model().objects.create_superuser(
        "curator", password="x"
    )
    for kep in keps:
        plan_decision_record(user=curator, release="1.26", sig=sig, kep=kep, decision="commit")
    PlanDecision.objects.update(at=FREEZE - 20 * DAY)


def plan_scene(board):
    """Dave's KEP-92004 committed by SIG Node, not on the board; Erin's KEP-92010 committed by SIG Auth, which has no
    row on the board; KEP-2002 (on the board, ready; Bob and Alice) committed with no PRR approver."""
    prr_freeze(board)
    dave = PersonFactory(github="dave", name="Dave", email="dave@example.com")
    erin = PersonFactory(github="erin", name="Erin", email="erin@example.com")
    auth = SigFactory(slug="sig-auth", mailing_list=AUTH_LIST)
    new = KepFactory(number=92004, title="Pod <lifecycle> hooks", owning_sig=board.node, latest_milestone="1.26")
    new.authors.add(dave)
    other = KepFactory(number=92010, title="Token projection", owning_sig=auth, latest_milestone="1.26")
    other.authors.add(erin)
    resize = board.rows[1].kep
    resize.latest_milestone = "1.26"
    resize.save()
    commit(board.node, new, resize)
    commit(auth, other)
    return auth


def notes(now):
    return {d.recipient: d for d in reminder_plan(now=now).deliveries if d.kind == ReminderKind.PERSONAL}


def enhancements_due(now):
    return [d for d in reminders_due(now=now) if d.milestone.kind == MilestoneKind.ENHANCEMENTS_FREEZE]


def personal(board, address, now):
    (due,) = enhancements_due(now)
    return render_personal(dues=[due], person=None, recipient=address, as_of=due.due_at)


# --- committed KEPs' owners -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_committed_keps_owners_get_their_plan_lines_until_the_prr_freeze(board):
    auth = plan_scene(board)
    planned = notes(WEEK_BEFORE)
    assert {"dave@example.com", "erin@example.com", "bob@example.com", "alice@example.com"} <= set(planned)
    assert planned["dave@example.com"].keps == [92004]
    # SIG Auth has no row on the board but committed a KEP: its list hears of the freeze too.
    (due,) = enhancements_due(WEEK_BEFORE)
    assert auth.pk in due.sig_ids
    assert AUTH_LIST in {d.recipient for d in reminder_plan(now=WEEK_BEFORE).deliveries}

    dave = personal(board, "dave@example.com", WEEK_BEFORE)
    assert dave.subject == "Enhancements freeze for v1.26 is in 7 days: 1 committed KEP to fix before the PRR freeze"
    assert (
        "- KEP-92004 Pod <lifecycle> hooks [sig-node]: committed; needs the lead-opted-in label (not on the v1.26 "
        "board) and a PRR approver for alpha\n  you are its author; the plan: "
        "http://127.0.0.1:8000/releases/1.26/plan/sig-node/" in dave.text
    )
    assert "KEPs of yours" not in dave.text and "KEP of yours" not in dave.text
    assert "because you are an author of the KEP above" in dave.text
    assert "Pod &lt;lifecycle&gt; hooks" in dave.html and "<lifecycle>" not in dave.html
    assert "KEP-92010" not in dave.text  # another SIG's plan, another author

    # Bob's only KEP on the board is ready; KEP-2002's missing PRR approver still gets him a note.
    bob = personal(board, "bob@example.com", WEEK_BEFORE)
    assert "KEP-2002 In-place pod resize [sig-node]: committed; needs a PRR approver for alpha" in bob.text
    assert "KEP-2001" not in bob.text
    # Alice has KEP-2001 at risk on the board and KEP-2002 in the plan: one note saying both.
    alice = personal(board, "alice@example.com", WEEK_BEFORE)
    assert alice.subject == (
        "Enhancements freeze for v1.26 is in 7 days: 1 of your KEPs needs attention; 1 committed KEP to fix before "
        "the PRR freeze"
    )
    assert "KEP-2001 Sidecar containers" in alice.text and "KEP-2002 In-place pod resize [sig-node]: committed" in (
        alice.text
    )
    # Carol (enhancements contact of KEP-2001 only) hears nothing of the plan.
    assert "committed" not in personal(board, "carol@example.com", WEEK_BEFORE).text

    # After the PRR freeze: no plan lines, and neither the plan-only people nor SIG Auth hear of the freeze.
    after = notes(FREEZE - 48 * HOUR)
    assert set(after) == {"alice@example.com", "carol@example.com"}
    assert AUTH_LIST not in {d.recipient for d in reminder_plan(now=FREEZE - 48 * HOUR).deliveries}
    assert "committed" not in personal(board, "alice@example.com", FREEZE - 48 * HOUR).text
    assert personal(board, "dave@example.com", FREEZE - 48 * HOUR) is None


@pytest.mark.django_db(transaction=True)
def test_a_committed_kep_owner_with_no_kep_on_the_board_is_sent_a_note_once(board):
    plan_scene(board)
    call_command("send_freeze_reminders", "--now", WEEK_BEFORE.isoformat(), verbosity=0)
    (dave,) = [m for m in mail.outbox if m.to == ["dave@example.com"]]
    assert "KEP-92004 Pod <lifecycle> hooks [sig-node]: committed" in dave.body
    (erin,) = [m for m in mail.outbox if m.to == ["erin@example.com"]]
    assert "KEP-92010 Token projection [sig-auth]: committed; needs the lead-opted-in label" in erin.body
    (auth,) = [m for m in mail.outbox if m.to == [AUTH_LIST]]
    assert "KEP-92010 Token projection [sig-auth]: committed" in auth.body
    sent = len(mail.outbox)
    call_command("send_freeze_reminders", "--now", (WEEK_BEFORE + HOUR).isoformat(), verbosity=0)
    assert len(mail.outbox) == sent


# --- action items -------------------------------------------------------------------------------------------


def action_scene(board):
    """SIG Node's v1.25 retro: Frank's open item due in v1.26 (hostile text), Gina's item in progress due in v1.25
    (overdue), Hank's with no status recorded, Ivy's done. None of them has a KEP."""
    earlier = ReleaseFactory(version="1.25")
    retro = RetrospectiveFactory(release=earlier, sig=board.node)
    people = {}
    for name, status, due in (
        ("frank", ActionStatus.OPEN, board.release),
        ("gina", ActionStatus.IN_PROGRESS, earlier),
        ("hank", ActionStatus.NOT_RECORDED, board.release),
        ("ivy", ActionStatus.DONE, board.release),
    ):
        owner = PersonFactory(github=name, name=name.title(), email=f"{name}@example.com")
        text = HOSTILE if name == "frank" else f"{name.title()}'s follow-up"
        people[name] = RetroItemFactory(
            retrospective=retro,
            category=RetroCategory.ACTION_ITEM,
            status=status,
            owner=owner,
            due_release=due,
            text=text,
        )
    return people


@pytest.mark.django_db(transaction=True)
def test_action_item_owners_get_their_open_items_until_done(board):
    items = action_scene(board)
    call_command("send_freeze_reminders", "--now", WEEK_BEFORE.isoformat(), verbosity=0)
    to = {m.to[0]: m for m in mail.outbox}
    assert "hank@example.com" not in to and "ivy@example.com" not in to  # not recorded; done
    frank, gina = to["frank@example.com"], to["gina@example.com"]
    assert frank.subject == "Enhancements freeze for v1.26 is in 7 days: 1 open retro action item"
    assert f"- {HOSTILE} (open; due v1.26; from the v1.25 retro of sig-node)" in frank.body
    assert "http://127.0.0.1:8000/releases/1.25/retro/sig-node/" in frank.body
    assert "because you are the owner of the retro action item above" in frank.body
    html = frank.alternatives[0][0]
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img" not in html
    assert "&lt;https://evil.example|click&gt; &amp; co" in html
    assert "due v1.25 — OVERDUE" in gina.body and "(in progress;" in gina.body

    # Frank's item is done: his next freeze reminder has nothing for him; Gina's is still open.
    action_item_set_status(item=items["frank"], status=ActionStatus.DONE, source=StatusSource.BOARD)
    call_command("send_freeze_reminders", "--now", (FREEZE - 48 * HOUR).isoformat(), verbosity=0)
    later = [m.to[0] for m in mail.outbox[len(to) :]]
    assert "frank@example.com" not in later and "gina@example.com" in later
    # Dropped: gone too.
    action_item_set_status(item=items["gina"], status=ActionStatus.DROPPED, source=StatusSource.BOARD)
    count = len(mail.outbox)
    call_command("send_freeze_reminders", "--now", (FREEZE - 24 * HOUR).isoformat(), verbosity=0)
    assert "gina@example.com" not in [m.to[0] for m in mail.outbox[count:]]


@pytest.mark.django_db
def test_the_leads_digest_names_overdue_action_items_apart(board):
    action_scene(board)
    (due,) = enhancements_due(WEEK_BEFORE)
    message = render_digest(dues=[due], recipient=NODE_LIST, as_of=due.due_at)
    text = message.text
    due_here = text.index("Open retro action items due in v1.26:")
    overdue = text.index("Overdue retro action items (due before v1.26, still open):")
    assert due_here < text.index(HOSTILE) < overdue < text.index("Gina's follow-up")
    assert "Hank's" not in text and "Ivy's" not in text
    assert "- Gina's follow-up (@gina, in progress; due v1.25; from the v1.25 retro of sig-node)" in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in message.html and "<img" not in message.html
    assert "Overdue retro action items" in message.html
    slack = render_digest_slack(dues=[due], sig_id=board.node.pk, as_of=due.due_at, reference="r-1")
    blocks = str(slack.blocks)
    assert "*Overdue retro action items (due before v1.26, still open):*" in blocks
    assert "Gina&#x27;s" not in blocks and "Gina's follow-up (@gina, in progress; *due v1.25*" in blocks
    assert "&lt;https://evil.example|click&gt; &amp; co" in blocks and "<https://evil" not in blocks


@pytest.mark.django_db
def test_no_action_items_no_sections(board):
    (due,) = enhancements_due(WEEK_BEFORE)
    message = render_digest(dues=[due], recipient=NODE_LIST, as_of=due.due_at)
    assert "retro action items" not in message.text and "retro action items" not in message.html


@pytest.mark.django_db
def test_planning_costs_the_same_queries_whatever_the_number_of_owners_and_items(board):
    prr_freeze(board)
    earlier = ReleaseFactory(version="1.25")
    retro = RetrospectiveFactory(release=earlier, sig=board.node)

    def add(n):
        for _ in range(n):
            kep = KepFactory(owning_sig=board.node, latest_milestone="1.26")
            kep.authors.add(PersonFactory())
            commit(board.node, kep)
            RetroItemFactory(
                retrospective=retro,
                category=RetroCategory.ACTION_ITEM,
                status=ActionStatus.OPEN,
                owner=PersonFactory(),
                due_release=earlier,
            )

    def count():
        with CaptureQueriesContext(connection) as queries:
            plan = reminder_plan(now=WEEK_BEFORE)
        return len(queries), len([d for d in plan.deliveries if d.kind == ReminderKind.PERSONAL])

    add(1)
    few, few_notes = count()
    add(6)
    many, many_notes = count()
    assert many_notes == few_notes + 12
    # Consent is asked per recipient (unsubscribes, preferences: two queries); nothing else grows with the owners
    # and items.
    assert many - few <= 12 * 2
