"""Reminders end to end through real components: Celery worker subprocesses on the Redis broker, the test database
on PostgreSQL, an SMTP server on loopback and a Slack stand-in. Includes killing a worker in the middle of a
batch."""

import time

import pytest

from releases.models import ReleaseStats
from reminders.choices import DeliveryState
from reminders.models import ReminderDelivery
from tests.factories import PersonFactory
from tests.live_services import ALL_QUEUES
from tests.reminder_board import FREEZE, HOUR, NODE_LIST

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

WEEK_BEFORE = (FREEZE - 168 * HOUR).isoformat()


def add_authors(board, count):
    for n in range(count):
        board.rows[0].kep.authors.add(PersonFactory(github=f"author{n}", email=f"author{n}@example.com"))
    return 3 + count  # the digest, alice, carol and the new authors


def drain(client, timeout=30):
    """Wait until the worker has run every task queued so far: a stats recompute queued last is done."""
    ReleaseStats.objects.all().delete()
    client.send_task("releases.tasks.compute_all_release_stats")
    deadline = time.monotonic() + timeout
    while not ReleaseStats.objects.exists():
        assert time.monotonic() < deadline, "the worker did not get through its queue"
        time.sleep(0.05)


def assert_exactly_once(mailbox, expected):
    delivered = sorted(r for m in mailbox.messages for r in m.rcpt_tos)
    assert len(delivered) == expected, f"{len(delivered)} messages for {expected} recipients"
    assert len(set(delivered)) == expected, "a recipient got a duplicate"
    assert ReminderDelivery.objects.filter(state=DeliveryState.SENT).count() == expected


def test_worker_sends_each_reminder_once_across_three_beats(board, celery_worker, smtp_server):
    mailbox, _ = smtp_server
    expected = add_authors(board, 30)
    celery_worker()
    client = celery_worker.client
    client.send_task("reminders.tasks.send_due_freeze_reminders", kwargs={"now": WEEK_BEFORE})
    mailbox.wait_for(expected)
    # Two more beats while (or after) the batch goes out: nothing is sent twice.
    client.send_task("reminders.tasks.send_due_freeze_reminders", kwargs={"now": WEEK_BEFORE})
    client.send_task("reminders.tasks.send_due_freeze_reminders", kwargs={"now": WEEK_BEFORE})
    drain(client)
    assert_exactly_once(mailbox, expected)
    (digest,) = mailbox.to(NODE_LIST)
    assert "KEP-2001" in digest.text and "KEP-2001" in digest.html
    # The stats task queued as the sentinel ran in the worker too, from the same database.
    # Tracked = tracked at the enhancements freeze instant (releases.rules): 2002 only; 2001 is at risk, 2003 out.
    assert ReleaseStats.objects.get(release=board.release, sig=None).tracked == 1


def wait_idle(broker, timeout=30):
    """Wait until no task is queued or running on any worker: with acks_late a running task stays in
    kombu's `unacked` hash until it finishes."""
    deadline = time.monotonic() + timeout
    while any(broker.llen(queue) for queue in ALL_QUEUES) or broker.hlen("unacked"):
        assert time.monotonic() < deadline, "the workers did not get through the queue"
        time.sleep(0.05)


def test_two_workers_and_three_simultaneous_beats_send_each_reminder_once(
    board,
    celery_worker,
    smtp_server,
):
    mailbox, _ = smtp_server
    expected = add_authors(board, 60)  # 63 deliveries: three batches per beat
    celery_worker()
    celery_worker()
    client = celery_worker.client
    # Three beats at once: each may claim and queue the same deliveries; the two workers race for them.
    for _ in range(3):
        client.send_task("reminders.tasks.send_due_freeze_reminders", kwargs={"now": WEEK_BEFORE})
    mailbox.wait_for(expected)
    wait_idle(celery_worker.redis)
    assert_exactly_once(mailbox, expected)
    assert set(ReminderDelivery.objects.values_list("attempts", flat=True)) == {1}


def test_worker_killed_mid_batch_every_recipient_gets_exactly_one(board, celery_worker, smtp_server):
    mailbox, _ = smtp_server
    expected = add_authors(board, 40)  # 43 deliveries: batches of 25 and 18
    lease = 2
    mailbox.hold_after(10)
    first = celery_worker(SIGTRACKER_REMINDER_LEASE_SECONDS=str(lease))
    client = celery_worker.client
    client.send_task("reminders.tasks.send_due_freeze_reminders", kwargs={"now": WEEK_BEFORE})
    assert mailbox.holding.wait(30), "the batch never reached the 11th message"
    # The worker is mid-conversation with the SMTP server for the 11th message: kill it there.
    first.kill()
    killed_at = time.monotonic()
    mailbox.release()
    assert len(mailbox.messages) == 10
    # The killed worker had leased the rest of its batch of 25; nobody may send those until the lease ends.
    stuck = set(
        ReminderDelivery.objects.filter(state=DeliveryState.CLAIMED, claimed_at__isnull=False).values_list(
            "pk", flat=True
        )
    )
    assert len(stuck) == 25 - 10

    celery_worker(SIGTRACKER_REMINDER_LEASE_SECONDS=str(lease))
    # The restarted worker takes the second batch from the queue; the killed worker's leased deliveries
    # are handed out again by the first beat after their lease has run out.
    mailbox.wait_for(expected - len(stuck))
    time.sleep(max(0.0, lease + 0.5 - (time.monotonic() - killed_at)))
    client.send_task("reminders.tasks.send_due_freeze_reminders", kwargs={"now": WEEK_BEFORE})
    mailbox.wait_for(expected)
    drain(client)
    assert_exactly_once(mailbox, expected)
    assert set(ReminderDelivery.objects.filter(pk__in=stuck).values_list("attempts", flat=True)) == {2}


def test_worker_retries_a_transient_smtp_failure_with_backoff(board, celery_worker, smtp_server):
    mailbox, _ = smtp_server
    mailbox.fail_next = 2
    celery_worker(SIGTRACKER_REMINDER_RETRY_BACKOFF_SECONDS="0.2")
    client = celery_worker.client
    client.send_task("reminders.tasks.send_due_freeze_reminders", kwargs={"now": WEEK_BEFORE})
    mailbox.wait_for(3)
    drain(client)
    assert_exactly_once(mailbox, 3)
    # Two failed attempts, each retried after its backoff: five attempts for three messages.
    assert sum(ReminderDelivery.objects.values_list("attempts", flat=True)) == 5


@pytest.fixture
def slack(settings):
    from tests.reminders.slack_standin import SlackStandIn

    standin = SlackStandIn().start()
    settings.SIGTRACKER_SLACK_WEBHOOK_ORIGIN = standin.url  # the only origin webhook URLs may point at
    yield standin
    standin.stop()


def test_worker_killed_mid_batch_email_and_slack_each_exactly_once(board, celery_worker, smtp_server, slack, settings):
    """The digest goes by email and to each SIG's Slack channel; a worker killed in the middle
    of a Slack post loses nothing and duplicates nothing, on either channel, once the lease has run out."""
    from releases.choices import EnhancementStatus as S
    from reminders.channels import slack_recipient, slack_webhook_set_url
    from reminders.models import SlackWebhook
    from tests.factories import KepFactory, SigFactory, TrackedEnhancementFactory
    from tests.reminder_board import DAY, on_board

    mailbox, _ = smtp_server
    opened = FREEZE - 30 * DAY
    webhooks = {"sig-node": slack.webhook("node")}
    slack_webhook_set_url(webhook=SlackWebhook(sig=board.node), url=webhooks["sig-node"])
    for n in range(30):
        sig = SigFactory(slug=f"sig-s{n:02d}", mailing_list="")  # Slack only
        kep = KepFactory(number=5000 + n, owning_sig=sig)
        on_board(
            TrackedEnhancementFactory(release=board.release, kep=kep, created_at=opened),
            (opened, S.TRACKED_ENHANCEMENTS),
        )
        webhooks[sig.slug] = slack.webhook(f"s{n:02d}")
        slack_webhook_set_url(webhook=SlackWebhook(sig=sig), url=webhooks[sig.slug])
    emails = add_authors(board, 10)  # the node digest, alice, carol and ten authors: 13 emails
    posts = len(webhooks)  # 31 Slack digests; 44 deliveries in batches of 25 (1 email, 24 Slack) and 19
    lease = 2
    slack.hold_after(10)
    # The worker decrypts the webhook URLs with the same SECRET_KEY as the web process that stored them.
    env = {
        "SIGTRACKER_REMINDER_LEASE_SECONDS": str(lease),
        "SECRET_KEY": settings.SECRET_KEY,
        "SIGTRACKER_SLACK_WEBHOOK_ORIGIN": slack.url,
    }
    first = celery_worker(**env)
    client = celery_worker.client
    client.send_task("reminders.tasks.send_due_freeze_reminders", kwargs={"now": WEEK_BEFORE})
    assert slack.holding.wait(30), "the batch never reached the 11th Slack post"
    # The worker is waiting for Slack's answer to its 11th post, not yet accepted: kill it there.
    first.kill()
    killed_at = time.monotonic()
    slack.release()
    assert len(slack.posts) == 10 and len(mailbox.messages) == 1
    stuck = set(
        ReminderDelivery.objects.filter(state=DeliveryState.CLAIMED, claimed_at__isnull=False).values_list(
            "pk", flat=True
        )
    )
    assert len(stuck) == 25 - 11

    celery_worker(**env)
    slack.wait_for(posts - len(stuck))
    mailbox.wait_for(emails)
    time.sleep(max(0.0, lease + 0.5 - (time.monotonic() - killed_at)))
    client.send_task("reminders.tasks.send_due_freeze_reminders", kwargs={"now": WEEK_BEFORE})
    slack.wait_for(posts)
    drain(client)
    # Per channel: every webhook got exactly one post, every address exactly one email.
    for slug, url in webhooks.items():
        assert len(slack.to(url)) == 1, f"{slug}: {len(slack.to(url))} Slack posts"
    delivered = sorted(r for m in mailbox.messages for r in m.rcpt_tos)
    assert len(delivered) == emails and len(set(delivered)) == emails
    assert ReminderDelivery.objects.filter(state=DeliveryState.SENT).count() == emails + posts
    assert (
        ReminderDelivery.objects.filter(recipient__endswith="@slack.invalid", state=DeliveryState.SENT).count() == posts
    )
    assert ReminderDelivery.objects.get(recipient=slack_recipient("sig-node")).state == DeliveryState.SENT
    assert set(ReminderDelivery.objects.filter(pk__in=stuck).values_list("attempts", flat=True)) == {2}
