"""A SIG's freeze digest in Slack, against a local Slack webhook stand-in over real HTTP: the
webhook URL kept encrypted and never shown back, the digest as blocks once per SIG beside the emails, a 429 with
Retry-After and 5xx retried, a revoked webhook turning that channel off without failing the rest of the batch."""

import pytest
from django.core import mail
from django.core.management import CommandError, call_command
from django.db import connection

from releases.choices import EnhancementStatus as S
from reminders.channels import PostOutcome, slack_recipient, slack_webhook_set_url, webhook_post
from reminders.choices import DeliveryState, ReminderKind
from reminders.due import reminders_due
from reminders.models import ReminderDelivery, SlackWebhook
from reminders.render_slack import SLACK_MAX_BLOCKS, render_digest_slack
from tests.factories import KepFactory, SigFactory, TrackedEnhancementFactory
from tests.reminder_board import DAY, FREEZE, HOUR, NODE_LIST, on_board
from tests.reminders.slack_standin import SlackStandIn

NOW = (FREEZE - 168 * HOUR).isoformat()
EMAILS = sorted([NODE_LIST, "alice@example.com", "carol@example.com"])


@pytest.fixture
def slack(settings):
    standin = SlackStandIn().start()
    settings.SIGTRACKER_SLACK_WEBHOOK_ORIGIN = standin.url  # the only origin webhook URLs may point at
    yield standin
    standin.stop()


def hook(sig, url):
    return slack_webhook_set_url(webhook=SlackWebhook(sig=sig, channel=f"#{sig.slug}"), url=url)


def send(now=NOW):
    call_command("send_freeze_reminders", "--now", now, verbosity=0)


def slack_delivery(slug="sig-node"):
    return ReminderDelivery.objects.get(recipient=slack_recipient(slug))


# --- the URL, a credential ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_webhook_url_is_stored_encrypted_and_never_shown_back(admin_client, slack):
    sig = SigFactory(slug="sig-node")
    url = slack.webhook("node")
    response = admin_client.post(
        "/admin/reminders/slackwebhook/add/",
        {"sig": sig.pk, "channel": "#sig-node", "new_url": url, "enabled": "on"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    webhook = SlackWebhook.objects.get(sig=sig)
    with connection.cursor() as cursor:
        cursor.execute("SELECT url_encrypted, url_hint FROM people_slackwebhook")
        stored, hint = cursor.fetchone()
    assert "secretnode" not in stored and "127.0.0.1" not in stored
    assert webhook.url == url
    assert hint == "127.0.0.1/…XYZ1"
    for page in ("/admin/reminders/slackwebhook/", f"/admin/reminders/slackwebhook/{webhook.pk}/change/"):
        html = admin_client.get(page).content.decode()
        assert "127.0.0.1/…XYZ1" in html and "secretnode" not in html

    # Saving without a new URL keeps the old one; a new one replaces it.
    admin_client.post(
        f"/admin/reminders/slackwebhook/{webhook.pk}/change/",
        {"sig": sig.pk, "channel": "#node", "new_url": "", "enabled": "on"},
    )
    webhook.refresh_from_db()
    assert (webhook.channel, webhook.url) == ("#node", url)
    admin_client.post(
        f"/admin/reminders/slackwebhook/{webhook.pk}/change/",
        {"sig": sig.pk, "channel": "#node", "new_url": slack.webhook("other"), "enabled": "on"},
    )
    webhook.refresh_from_db()
    assert webhook.url == slack.webhook("other")


@pytest.mark.django_db
def test_a_new_webhook_needs_a_url_and_junk_is_refused(admin_client):
    sig = SigFactory(slug="sig-node")
    for junk in ("", "not a url", "http://hooks.slack.com/services/T/B/x"):
        response = admin_client.post(
            "/admin/reminders/slackwebhook/add/", {"sig": sig.pk, "new_url": junk, "enabled": "on"}
        )
        assert response.status_code == 200
    assert not SlackWebhook.objects.exists()


# --- the digest in Slack --------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_sig_gets_its_digest_in_slack_exactly_once_beside_the_emails_a_429_retried(board, slack):
    url = slack.webhook("node")
    hook(board.node, url)
    slack.rate_limit_next(url, retry_after=1)
    send()
    assert sorted(m.to[0] for m in mail.outbox) == EMAILS
    (post,) = slack.to(url)
    assert slack.attempts[slack._path(url)] == 2  # the 429, then the post after its Retry-After
    delivery = slack_delivery()
    assert (delivery.kind, delivery.state, delivery.attempts) == (ReminderKind.DIGEST, DeliveryState.SENT, 1)

    assert post.text == "[sig-node] Enhancements freeze for v1.26 is in 7 days: 1 KEP not ready"
    assert post.blocks[0] == {
        "type": "header",
        "text": {"type": "plain_text", "text": "[sig-node] Enhancements freeze for v1.26 is in 7 days"},
    }
    text = post.mrkdwn
    assert "Tue 2022-11-08 02:00 UTC  ·  Mon 2022-11-07 18:00 PST (UTC−8)" in text
    assert "• kep.yaml merged into kubernetes/enhancements with status implementable" in text
    assert "• <http://127.0.0.1:8000/keps/2001/|KEP-2001> Sidecar containers [sig-node" in text
    assert "*AT RISK*" in text and "No longer in this release" in text
    assert text.index("KEP-2001") < text.index("KEP-2002") < text.index("KEP-2003")
    assert "<http://127.0.0.1:8000/releases/1.26/|Release schedule and board (v1.26)>" in text
    assert f"sigtracker reminder-{delivery.pk}" in text  # the same in a copy resent after a crash

    # Another beat, and the command again: nothing more anywhere.
    send()
    assert len(slack.posts) == 1 and len(mail.outbox) == 3
    assert ReminderDelivery.objects.filter(state=DeliveryState.SENT).count() == 4


@pytest.mark.django_db(transaction=True)
def test_slack_text_is_escaped_as_slack_asks(board, slack):
    board.rows[0].kep.title = "Pods & <b>sidecars</b> > 1"
    board.rows[0].kep.save()
    url = slack.webhook("node")
    hook(board.node, url)
    send()
    (post,) = slack.to(url)
    assert "Pods &amp; &lt;b&gt;sidecars&lt;/b&gt; &gt; 1" in post.mrkdwn
    assert "<b>" not in post.mrkdwn


@pytest.mark.django_db(transaction=True)
def test_a_5xx_is_retried_and_one_still_failing_is_sent_by_the_next_run(board, slack, settings):
    settings.SIGTRACKER_SLACK_MAX_RETRIES = 2
    url = slack.webhook("node")
    hook(board.node, url)
    slack.fail_next(url, status=500)
    send()
    assert len(slack.to(url)) == 1 and slack.attempts[slack._path(url)] == 2
    ReminderDelivery.objects.all().delete()
    slack.posts.clear()

    # Slack keeps failing past the client's retries: the lease is released, the emails went, and the next run
    # (within the grace period) posts it.
    slack.fail_next(url, status=503, times=3)
    with pytest.raises(CommandError, match="1 deliveries failed"):
        send()
    waiting = slack_delivery()
    assert waiting.state == DeliveryState.CLAIMED and waiting.claimed_at is None
    assert "HTTP 503" in waiting.error
    assert len(mail.outbox) == 6
    send()
    assert len(slack.to(url)) == 1
    assert slack_delivery().state == DeliveryState.SENT


@pytest.mark.django_db(transaction=True)
def test_a_revoked_webhook_turns_that_channel_off_and_the_batch_goes_on(board, slack, admin_client):
    storage = SigFactory(slug="sig-storage", mailing_list="")  # Slack only
    on_board(
        TrackedEnhancementFactory(
            release=board.release, kep=KepFactory(number=3001, owning_sig=storage), created_at=FREEZE - 30 * DAY
        ),
        (FREEZE - 30 * DAY, S.AT_RISK_ENHANCEMENTS),
    )
    node_url, storage_url = slack.webhook("node"), slack.webhook("storage")
    hook(board.node, node_url)
    hook(storage, storage_url)
    slack.revoke(node_url, status=410, body="channel_is_archived")
    with pytest.raises(CommandError, match="1 deliveries failed"):
        send()
    assert sorted(m.to[0] for m in mail.outbox) == EMAILS
    (post,) = slack.to(storage_url)
    assert "KEP-3001" in post.mrkdwn and "KEP-2001" not in post.mrkdwn
    failed = slack_delivery()
    assert failed.state == DeliveryState.FAILED
    assert "channel of sig-node turned off: HTTP 410: channel_is_archived" in failed.error
    webhook = SlackWebhook.objects.get(sig=board.node)
    assert not webhook.enabled and "channel_is_archived" in webhook.disabled_reason and webhook.disabled_at

    html = admin_client.get("/admin/reminders/slackwebhook/").content.decode()
    assert "The Slack channel of sig-node is off" in html and "⚠ off since" in html

    # The next reminder plans no Slack digest for sig-node until a curator sets a new URL.
    send((FREEZE - 48 * HOUR).isoformat())
    assert not ReminderDelivery.objects.filter(recipient=slack_recipient("sig-node"), offset_hours=48)
    assert len(slack.to(storage_url)) == 2
    slack_webhook_set_url(webhook=webhook, url=slack.webhook("node2"))
    send((FREEZE - 24 * HOUR).isoformat())
    assert len(slack.to(slack.webhook("node2"))) == 1


@pytest.mark.django_db(transaction=True)
def test_a_404_no_service_also_turns_it_off(board, slack):
    url = slack.webhook("node")
    hook(board.node, url)
    slack.revoke(url)
    with pytest.raises(CommandError):
        send()
    webhook = SlackWebhook.objects.get(sig=board.node)
    assert not webhook.enabled and "HTTP 404: no_service" in webhook.disabled_reason
    assert len(mail.outbox) == 3


@pytest.mark.django_db(transaction=True)
def test_dry_run_lists_the_slack_digest_and_a_slack_only_sig_is_not_unreachable(board, slack, capsys):
    board.node.mailing_list = ""
    board.node.save()
    hook(board.node, slack.webhook("node"))
    call_command("send_freeze_reminders", "--dry-run", "--now", NOW, verbosity=1)
    out = capsys.readouterr().out
    assert "send: digest to sig-node@slack.invalid" in out
    assert "no mailing list" not in out
    assert slack.posts == [] and not ReminderDelivery.objects.exists()


@pytest.mark.django_db
def test_a_long_digest_stays_within_slacks_block_limits(board):
    for number in range(4000, 4400):
        on_board(
            TrackedEnhancementFactory(
                release=board.release,
                kep=KepFactory(number=number, title="A rather long KEP title " * 4, owning_sig=board.node),
                created_at=FREEZE - 30 * DAY,
            ),
            (FREEZE - 30 * DAY, S.AT_RISK_ENHANCEMENTS if number % 2 else S.TRACKED_ENHANCEMENTS),
        )
    due = reminders_due(now=FREEZE - 168 * HOUR)[0]
    message = render_digest_slack(dues=due, sig_id=board.node.pk, as_of=due.due_at, reference="reminder-1")
    assert len(message.blocks) <= SLACK_MAX_BLOCKS
    assert all(len(b["text"]["text"]) <= 3000 for b in message.blocks if b["type"] == "section")
    assert message.blocks[-1]["type"] == "context" and "reminder-1" in message.blocks[-1]["elements"][0]["text"]


@pytest.mark.django_db
def test_a_502_is_retried_like_any_5xx_and_a_long_retry_after_is_not_waited_for(board, slack, settings):
    settings.SIGTRACKER_SLACK_MAX_RETRIES = 2
    settings.SIGTRACKER_SLACK_MAX_RETRY_AFTER_SECONDS = 30
    url = slack.webhook("node")
    assert webhook_post(url=url, text="t", blocks=[]) == PostOutcome("sent", "ok")
    slack.fail_next(url, status=502)
    assert webhook_post(url=url, text="t", blocks=[]).state == "sent"  # slack-sdk's own handler retries 500/503 only
    assert slack.attempts[slack._path(url)] == 3
    slack.rate_limit_next(url, retry_after=3600)
    assert webhook_post(url=url, text="t", blocks=[]) == PostOutcome("transient", "HTTP 429: rate_limited")
    assert slack.attempts[slack._path(url)] == 4  # answered at once, not after an hour
