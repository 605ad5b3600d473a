"""Imported text (KEP titles, retro action items) never executes in an email client: the delivered HTML part
carries it escaped, with no script, event handler or javascript: link from the data."""

import re

import pytest
from django.core.management import call_command

from releases.choices import ActionStatus, RetroCategory
from tests.factories import RetroItemFactory, RetrospectiveFactory
from tests.releases.test_reminders import FREEZE, HOUR, NODE_LIST, board  # noqa: F401 - the fixture

HOSTILE_TITLE = '<script>alert("kep")</script><img src=x onerror=alert(1)> Sidecars'
HOSTILE_ACTION = '<a href="javascript:alert(2)">click</a> <svg onload=alert(3)> follow up'


@pytest.mark.django_db(transaction=True)
def test_hostile_text_arrives_inert_in_the_html_email(board, smtp_mailbox):  # noqa: F811
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
