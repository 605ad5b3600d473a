"""A SIG's plan in its leads' digest: before the PRR freeze, committed KEPs not opted in or without a PRR approver;
after the enhancements freeze, KEPs kep.yaml planned at the freeze that were not tracked."""

import pytest
from django.contrib.auth import get_user_model

from keps.models import KepHistoryCursor, KepPlanChange
from planning.models import PlanDecision
from planning.services import plan_decision_record
from releases.choices import MilestoneKind
from reminders.due import reminders_due
from reminders.render_email import render_digest
from reminders.render_slack import render_digest_slack
from tests.factories import KepFactory, MilestoneFactory, PersonFactory, PrrApprovalFactory
from tests.reminder_board import DAY, FREEZE, HOUR, NODE_LIST

pytestmark = pytest.mark.django_db


def _digest(board, now):
    dues = [d for d in reminders_due(now=now) if d.milestone.kind == MilestoneKind.ENHANCEMENTS_FREEZE]
    assert dues, now
    return render_digest(dues=dues, sig_ids=[board.node.pk], recipient=NODE_LIST, as_of=dues[0].due_at), dues


def test_committed_keps_not_opted_in_or_without_prr_approver_before_the_prr_freeze(board):
    MilestoneFactory(release=board.release, kind=MilestoneKind.PRR_FREEZE, at=FREEZE - 5 * DAY)
    curator = get_user_model().objects.create_superuser("curator", password="x")
    new = KepFactory(number=92004, title="Pod <lifecycle> hooks", owning_sig=board.node, latest_milestone="1.26")
    on_board_kep = board.rows[0].kep  # KEP-2001, on the board
    PrrApprovalFactory(kep=on_board_kep, stage="alpha", approver=PersonFactory(github="prr"))
    at = FREEZE - 20 * DAY
    for kep in (new, on_board_kep):
        plan_decision_record(user=curator, release="1.26", sig=board.node, kep=kep, decision="commit")
    PlanDecision.objects.update(at=at)  # decided three weeks before the freeze
    message, dues = _digest(board, FREEZE - 168 * HOUR)
    text = message.text
    assert (
        "- KEP-92004 Pod <lifecycle> hooks [sig-node]: committed; needs the lead-opted-in label (not on the v1.26 "
        "board) and a PRR approver for alpha" in text
    )
    assert "/releases/1.26/plan/sig-node/" in text
    assert "KEP-2001 Sidecar containers [sig-node]: committed" not in text  # on the board, PRR approver named
    assert "Pod &lt;lifecycle&gt; hooks" in message.html and "Pod <lifecycle>" not in message.html
    slack = render_digest_slack(dues=dues, sig_id=board.node.pk, as_of=dues[0].due_at, reference="r-1")
    assert "Pod &lt;lifecycle&gt; hooks" in str(slack.blocks) and "Your plan for" in str(slack.blocks)
    # After the PRR freeze the committed KEPs are no longer listed.
    message, _ = _digest(board, FREEZE - 24 * HOUR)
    assert "KEP-92004" not in message.text


def test_planned_but_not_tracked_after_the_enhancements_freeze(board):
    before = FREEZE - 10 * DAY
    KepHistoryCursor.objects.create(last_commit="a" * 40, last_committed_at=before)
    planned = KepFactory(number=92005, title="Never opted in", owning_sig=board.node)
    for number, status in ((92005, "implementable"), (2002, "implementable"), (92006, "withdrawn")):
        if number == 92006:
            KepFactory(number=92006, owning_sig=board.node, status="withdrawn")
        KepPlanChange.objects.create(
            kep_number=number,
            commit_sha=f"{number:040d}",
            committed_at=before,
            path=f"keps/sig-node/{number}/kep.yaml",
            stage="alpha",
            status=status,
            latest_milestone="1.26",
            milestones={"alpha": "1.26"},
        )
    # Before the freeze: nothing about plans at the freeze yet.
    message, _ = _digest(board, FREEZE - 24 * HOUR)
    assert "not tracked" not in message.text
    # The exception window's reminder, a day after the freeze.
    dues = [d for d in reminders_due(now=FREEZE + DAY) if d.milestone.kind == MilestoneKind.ENHANCEMENTS_FREEZE]
    message = render_digest(dues=dues, sig_ids=[board.node.pk], recipient=NODE_LIST, as_of=dues[0].due_at)
    assert (
        f"- KEP-{planned.number} Never opted in [sig-node]: planned in kep.yaml at the enhancements freeze, not "
        "tracked" in message.text
    )
    assert "KEP-2002 In-place pod resize [sig-node]: planned" not in message.text  # tracked
    assert "KEP-92006" not in message.text  # withdrawn: never counted as planned


def test_no_plan_no_section(board):
    message, _ = _digest(board, FREEZE - 168 * HOUR)
    assert "Your plan for" not in message.text and "Your plan for" not in message.html
