"""Imported text (KEP titles, retro action items) never executes in an email client: the delivered HTML part
carries it escaped, with no script, event handler or javascript: link from the data."""

import re

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from releases.models import Milestone
from reminders.choices import DeliveryState
from reminders.models import ReminderDelivery
from retros.choices import ActionStatus, RetroCategory
from tests.factories import RetroItemFactory, RetrospectiveFactory
from tests.reminder_board import FREEZE, HOUR, NODE_LIST

HOSTILE_TITLE = '<script>alert("kep")</script><img src=x onerror=alert(1)> Sidecars'
HOSTILE_ACTION = '<a href="javascript:alert(2)">click</a> <svg onload=alert(3)> follow up'


@pytest.mark.django_db(transaction=True)
def test_hostile_text_arrives_inert_in_the_html_email(board, smtp_mailbox):
    kep = board.rows[0].kep
    kep.title = HOSTILE_TITLE
    kep.save()
    retro = RetrospectiveFactory(release=board.release, sig=board.node)
    RetroItemFactory(
        retrospective=retro,
        category=RetroCategory.ACTION_ITEM,
        status=ActionStatus.OPEN,
        text=HOSTILE_ACTION,
        due_release=board.release,
    )

    call_command("send_freeze_reminders", "--now", (FREEZE - 168 * HOUR).isoformat(), verbosity=0)

    (digest,) = smtp_mailbox.to(NODE_LIST)
    (alice,) = smtp_mailbox.to("alice@example.com")
    for message in (digest, alice):
        html = message.html
        assert "Sidecars" in html  # the title is there, as text
        assert "<script" not in html.lower()
        assert not re.search(r"<[^>]+\son\w+\s*=", html, re.IGNORECASE), "an event-handler attribute got through"
        assert not re.search(r"""href\s*=\s*["']?\s*javascript:""", html, re.IGNORECASE)
        assert "&lt;script&gt;" in html
        # The plain-text part keeps the words as written (nothing there is interpreted).
        assert "Sidecars" in message.text
    assert "&lt;svg onload=alert(3)&gt;" in digest.html


#: A label written straight by the ORM (a shell, a data migration, an old row): header injection attempts.
HOSTILE_LABEL = "Enhancements Freeze\r\nBcc: x@evil.example\u2028X-Injected: 1\x1b[31m\u202e"


@pytest.mark.django_db(transaction=True)
def test_a_label_with_line_breaks_still_gets_its_reminders_sent_on_one_line(board, smtp_mailbox):
    """A CR/LF in a label made every subject of that freeze a BadHeaderError, so nothing was sent."""
    Milestone.objects.filter(pk=board.freeze.pk).update(label=HOSTILE_LABEL)

    call_command("send_freeze_reminders", "--now", (FREEZE - 168 * HOUR).isoformat(), verbosity=0)

    assert sorted(r for m in smtp_mailbox.messages for r in m.rcpt_tos) == sorted(
        [NODE_LIST, "alice@example.com", "carol@example.com"]
    )
    assert set(ReminderDelivery.objects.values_list("state", flat=True)) == {DeliveryState.SENT}
    (alice,) = smtp_mailbox.to("alice@example.com")
    assert alice.message["Subject"] == (
        "Enhancements Freeze Bcc: x@evil.example X-Injected: 1 [31m for v1.26 is in 7 days: "
        "1 of your KEPs needs attention"
    )
    (digest,) = smtp_mailbox.to(NODE_LIST)
    assert digest.message["Subject"].startswith("[sig-node] Enhancements Freeze Bcc: x@evil.example X-Injected: 1")
    for message in (alice, digest):
        assert message.message["Bcc"] is None and message.message["X-Injected"] is None


@pytest.mark.parametrize("label", ["Code Freeze\r\nBcc: x@evil.example", "Code\tFreeze", "Code Freeze\u2028", "A\x00"])
@pytest.mark.django_db
def test_full_clean_refuses_a_label_with_control_characters(board, label):
    board.freeze.label = label
    with pytest.raises(ValidationError) as error:
        board.freeze.full_clean()
    assert list(error.value.message_dict) == ["label"]


@pytest.mark.django_db
def test_full_clean_accepts_labels_in_any_script(board):
    board.freeze.label = "Enhancements Freeze 🧊 (コード凍結) — Ünïcode"
    board.freeze.full_clean()
