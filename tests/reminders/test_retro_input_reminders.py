""" "Retro input is open": to each SIG's mailing list and Slack channel at the cycle's midpoint and a week before the
retro meeting (a week before the board closes when the schedule has no retro), once each, skipped when too late."""

import datetime

import pytest
from django.core import mail
from django.core.management import call_command

from releases.choices import MilestoneKind
from reminders.channels import slack_recipient, slack_webhook_set_url
from reminders.choices import DeliveryState, ReminderKind
from reminders.due import reminders_due
from reminders.models import ReminderDelivery, SlackWebhook, Unsubscription
from tests.factories import (
    KepFactory,
    MilestoneFactory,
    ReleaseFactory,
    RetrospectiveFactory,
    SigFactory,
    TrackedEnhancementFactory,
)
from tests.reminders.slack_standin import SlackStandIn

UTC = datetime.UTC
HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)
# v1.27: cycle from Monday 9 January 2023 to release day Tuesday 11 April 2023 (92 days): midpoint 46 days in.
MIDPOINT = datetime.datetime(2023, 2, 24, 0, 0, tzinfo=UTC)
RETRO = datetime.datetime(2023, 5, 4, 17, 0, tzinfo=UTC)
WEEK_BEFORE = RETRO - 7 * DAY
NODE_LIST = "kubernetes-sig-node@googlegroups.com"
AUTH_LIST = "kubernetes-sig-auth@googlegroups.com"
Anchor = ReminderDelivery.Anchor


@pytest.fixture
def slack(settings):
    standin = SlackStandIn().start()
    settings.SIGTRACKER_SLACK_WEBHOOK_ORIGIN = standin.url
    yield standin
    standin.stop()


def make_release(*, retro=True):
    """v1.27 with its release day and (optionally) its retro in the schedule; SIG Node has a row on the board, SIG
    Auth a retro of it, SIG Apps neither."""
    release = ReleaseFactory(
        version="1.27", cycle_start=datetime.date(2023, 1, 9), planned_release_date=datetime.date(2023, 4, 11)
    )
    MilestoneFactory(release=release, kind=MilestoneKind.RELEASE, at=datetime.datetime(2023, 4, 11, 17, tzinfo=UTC))
    if retro:
        MilestoneFactory(release=release, kind=MilestoneKind.RETROSPECTIVE, at=RETRO)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    auth = SigFactory(slug="sig-auth", mailing_list=AUTH_LIST)
    SigFactory(slug="sig-apps")
    TrackedEnhancementFactory(release=release, kep=KepFactory(owning_sig=node))
    RetrospectiveFactory(release=release, sig=auth)
    return release, node, auth


def send(now):
    call_command("send_freeze_reminders", "--now", now.isoformat(), verbosity=0)


def retro_dues(now):
    return [(d.anchor, d.due_at, d.skip_reason) for d in reminders_due(now=now) if d.anchor.startswith("retro")]


@pytest.mark.django_db
def test_retro_input_falls_due_at_the_midpoint_and_a_week_before_the_retro():
    _release, node, auth = make_release()
    due = [d for d in reminders_due(now=MIDPOINT) if d.anchor.startswith("retro")]
    assert [(d.anchor, d.due_at, d.sig_ids, d.milestone.kind) for d in due] == [
        (Anchor.RETRO_MIDPOINT, MIDPOINT, sorted([node.pk, auth.pk]), MilestoneKind.RELEASE)
    ]
    assert retro_dues(WEEK_BEFORE) == [(Anchor.RETRO_WEEK_BEFORE, WEEK_BEFORE, "")]
    assert retro_dues(MIDPOINT - HOUR) == []
    assert retro_dues(WEEK_BEFORE - HOUR) == []


@pytest.mark.django_db(transaction=True)
def test_without_a_retro_milestone_the_second_falls_a_week_before_the_board_closes(settings):
    make_release(retro=False)
    settings.SIGTRACKER_REMINDER_CATCH_UP_HOURS = 24 * 30  # a long outage
    closes = datetime.datetime(2023, 5, 9, 0, 0, tzinfo=UTC)
    ((anchor, _at, reason),) = retro_dues(closes + HOUR)
    assert anchor == Anchor.RETRO_WEEK_BEFORE and "the board's close had come" in reason
    settings.SIGTRACKER_REMINDER_CATCH_UP_HOURS = 24
    # The board closes four weeks after release day (midnight UTC): the reminder comes three weeks after it.
    three_weeks_after = datetime.datetime(2023, 5, 2, 0, 0, tzinfo=UTC)
    assert retro_dues(three_weeks_after) == [(Anchor.RETRO_WEEK_BEFORE, three_weeks_after, "")]
    send(three_weeks_after)
    (message,) = mail.outbox[:1]
    assert message.subject.endswith("v1.27 retro input is open: the board closes in a week")
    assert "The retro meeting" not in message.body


@pytest.mark.django_db(transaction=True)
def test_each_sig_list_and_channel_gets_it_once_with_its_boards_link(slack):
    _release, node, _auth = make_release()
    url = slack.webhook("node")
    slack_webhook_set_url(webhook=SlackWebhook(sig=node, channel="#sig-node"), url=url)
    send(MIDPOINT)
    assert sorted(m.to[0] for m in mail.outbox) == [AUTH_LIST, NODE_LIST]  # no personal notes, no SIG Apps
    node_mail = next(m for m in mail.outbox if m.to == [NODE_LIST])
    assert node_mail.subject == "[sig-node] v1.27 retro input is open"
    assert "sig-node: http://127.0.0.1:8000/releases/1.27/retro/sig-node/" in node_mail.body
    assert "takes input until Thu 2023-05-11 17:00 UTC" in node_mail.body
    assert "The retro meeting: Thu 2023-05-04 17:00 UTC." in node_mail.body
    assert "sig-auth" not in node_mail.body
    html = node_mail.alternatives[0][0]
    assert '<a href="http://127.0.0.1:8000/releases/1.27/retro/sig-node/">Retro board of sig-node</a>' in html
    assert node_mail.extra_headers["List-Unsubscribe"]
    (post,) = slack.to(url)
    assert post.text == "[sig-node] v1.27 retro input is open"
    assert "<http://127.0.0.1:8000/releases/1.27/retro/sig-node/|Retro board of sig-node>" in post.mrkdwn
    delivery = ReminderDelivery.objects.get(recipient=slack_recipient("sig-node"))
    assert f"sigtracker reminder-{delivery.pk}" in post.mrkdwn
    assert set(ReminderDelivery.objects.values_list("anchor", "kind", "state")) == {
        (Anchor.RETRO_MIDPOINT, ReminderKind.DIGEST, DeliveryState.SENT)
    }

    # Another run, a quarter of an hour later: nothing more anywhere.
    send(MIDPOINT + datetime.timedelta(minutes=15))
    assert len(mail.outbox) == 2 and len(slack.posts) == 1

    # A week before the retro: the second one, also once.
    send(WEEK_BEFORE)
    week = [m for m in mail.outbox[2:] if m.to == [NODE_LIST]]
    assert [m.subject for m in week] == ["[sig-node] v1.27 retro input is open: the retro is in a week"]
    assert len(slack.posts) == 2
    send(WEEK_BEFORE + HOUR)
    assert len(mail.outbox) == 4 and len(slack.posts) == 2


@pytest.mark.django_db(transaction=True)
def test_a_late_run_still_sends_it_before_its_use_is_over_and_skips_it_after(settings):
    settings.SIGTRACKER_REMINDER_CATCH_UP_HOURS = 24 * 90  # a long outage
    make_release()
    # Five hours late (beat down): still worth it.
    assert retro_dues(MIDPOINT + 5 * HOUR) == [(Anchor.RETRO_MIDPOINT, MIDPOINT, "")]
    # The week-before reminder has come: the midpoint's is recorded as skipped, not sent.
    ((anchor, _at, reason), (later, _, later_reason)) = retro_dues(WEEK_BEFORE + HOUR)
    assert anchor == Anchor.RETRO_MIDPOINT and reason.startswith("not sent in time: the next retro-input reminder")
    assert later == Anchor.RETRO_WEEK_BEFORE and later_reason == ""
    # After the retro meeting, the week-before one is skipped too.
    send(RETRO + DAY)
    assert mail.outbox == []
    assert set(ReminderDelivery.objects.values_list("anchor", "state")) == {
        (Anchor.RETRO_MIDPOINT, DeliveryState.SKIPPED),
        (Anchor.RETRO_WEEK_BEFORE, DeliveryState.SKIPPED),
    }
    late = ReminderDelivery.objects.filter(
        anchor=Anchor.RETRO_WEEK_BEFORE, error__contains="the retro meeting had come"
    )
    assert late.count() == 2  # SIG Node's list and SIG Auth's


@pytest.mark.django_db(transaction=True)
def test_an_unsubscribed_list_gets_nothing():
    make_release()
    Unsubscription.objects.create(address=AUTH_LIST, kind=ReminderKind.DIGEST)
    send(MIDPOINT)
    assert [m.to[0] for m in mail.outbox] == [NODE_LIST]
    assert ReminderDelivery.objects.get(recipient=AUTH_LIST).state == DeliveryState.SKIPPED
