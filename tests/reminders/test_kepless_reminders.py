"""Freeze reminders with a KEP-less tracked enhancement on the board: reminders go to a KEP's people, so the
feature (an early feature sheet's, naming no KEP) is left out of the planning and the digest, which still send."""

import pytest

from community.models import Sig
from releases.choices import EnhancementStatus as S
from releases.choices import HistorySource
from releases.models import Release
from releases.services.tracking import tracked_enhancement_create
from reminders.due import reminders_due
from reminders.planning import reminder_deliveries_plan
from reminders.render_email import render_digest
from tests.factories import PersonFactory
from tests.reminder_board import FREEZE, HOUR, NODE_LIST

pytestmark = pytest.mark.django_db


def test_a_kepless_row_is_left_out_of_the_reminders(board):
    tracked_enhancement_create(
        release=Release.objects.get(version="1.26"),
        feature_name="Sheet feature",
        sig=Sig.objects.get(slug="sig-node"),
        status=S.AT_RISK_ENHANCEMENTS,
        source=HistorySource.FEATURE_SHEET,
        assignee=PersonFactory(github="dave", email="dave@example.com"),
        at=FREEZE - 30 * 24 * HOUR,
    )
    now = FREEZE - 168 * HOUR
    planned = reminder_deliveries_plan(now=now)
    assert sorted(item.recipient for item in planned) == sorted([NODE_LIST, "alice@example.com", "carol@example.com"])
    due = next(due for due in reminders_due(now=now) if due.sig_ids)
    message = render_digest(dues=due, recipient=NODE_LIST, as_of=now)
    assert "KEP-2001" in message.text and "Sheet feature" not in message.text
