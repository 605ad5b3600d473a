"""Slack webhook URLs are where the workers POST, so they are Slack's and nothing else's: the URLs an adversarial
pass saved (an internal admin API on loopback, cloud metadata, a look-alike host) are refused; a URL saved before
the rule is not posted to; a redirect is not followed; a non-Slack answer's body is never stored nor printed.
Over real HTTP against local servers standing in for Slack and for an internal service."""

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from reminders.channels import slack_recipient
from reminders.choices import DeliveryState
from reminders.models import ReminderDelivery, SlackWebhook
from reminders.webhook_urls import encrypt_url, url_hint, validate_webhook_url
from tests.core.servers import serve_in_thread
from tests.factories import SigFactory
from tests.reminder_board import FREEZE, HOUR
from tests.reminders.slack_standin import SlackStandIn

NOW = (FREEZE - 168 * HOUR).isoformat()
SECRET = "internal-only: db_password=hunter2"

REFUSED = [
    "http://127.0.0.1:8080/internal/admin-api",
    "https://169.254.169.254/latest/meta-data/",
    "https://evil.example/x",
    "http://[::1]:6379/",
    "https://hooks.slack.com.evil.example/services/T0/B0/x",
    "http://hooks.slack.com/services/T0/B0/x",  # not https
    "https://hooks.slack.com:8443/services/T0/B0/x",
    "https://user@hooks.slack.com/services/T0/B0/x",
    "https://hooks.slack.com/api/chat.postMessage",
    "https://hooks.slack.com/services/T0/B0/x?redirect=https://evil.example",
    "https://hooks.slack.com/services/T0/B0/../../x",
]


class Internal:
    """An internal service on loopback: answers every POST with a secret, remembers who asked."""

    def __init__(self, status=400, headers=None):
        self.requests = []
        internal = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                internal.requests.append(self.path)
                body = SECRET.encode()
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET = _answer  # noqa: N815 - http.server API

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        serve_in_thread(self.server)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def internal():
    server = Internal()
    yield server
    server.stop()


@pytest.mark.parametrize("url", REFUSED)
def test_only_slacks_webhook_endpoint_is_accepted(url):
    with pytest.raises(ValidationError):
        validate_webhook_url(url)


def test_slacks_own_webhook_url_is_accepted():
    validate_webhook_url("https://hooks.slack.com/services/T024BE7LD/B01ABCDEF/abcdEFGH1234ijkl")


@pytest.mark.django_db
def test_the_admin_refuses_an_internal_url(admin_client, internal):
    sig = SigFactory(slug="sig-node")
    response = admin_client.post(
        "/admin/reminders/slackwebhook/add/",
        {"sig": sig.pk, "channel": "#x", "new_url": f"{internal.url}/internal/admin-api", "enabled": "on"},
    )
    assert response.status_code == 200 and "Only Slack incoming-webhook URLs" in response.content.decode()
    assert not SlackWebhook.objects.exists()


def saved_before_the_rule(sig, url):
    """A webhook URL saved when any http(s) URL was accepted: stored as it was then, encrypted."""
    return SlackWebhook.objects.create(sig=sig, channel="#x", url_encrypted=encrypt_url(url), url_hint=url_hint(url))


@pytest.mark.django_db(transaction=True)
def test_a_url_saved_before_the_rule_is_not_posted_to_and_nothing_is_echoed(board, internal, capsys):
    saved_before_the_rule(board.node, f"{internal.url}/internal/admin-api")
    with pytest.raises(CommandError) as raised:
        call_command("send_freeze_reminders", "--now", NOW, verbosity=2)
    assert internal.requests == [], "the worker posted to an internal service"
    delivery = ReminderDelivery.objects.get(recipient=slack_recipient("sig-node"))
    assert delivery.state == DeliveryState.FAILED and "not a Slack incoming-webhook URL" in delivery.error
    out = capsys.readouterr()
    for text in (delivery.error, out.out, out.err, str(raised.value)):
        assert SECRET not in text and "admin-api" not in text


@pytest.fixture
def slack(settings):
    standin = SlackStandIn().start()
    settings.SIGTRACKER_SLACK_WEBHOOK_ORIGIN = standin.url
    yield standin
    standin.stop()


@pytest.mark.django_db(transaction=True)
def test_a_redirect_from_slack_is_not_followed(board, slack, settings):
    target = Internal(status=200)
    redirector = Internal(status=302, headers={"Location": f"{target.url}/internal/admin-api"})
    try:
        settings.SIGTRACKER_SLACK_WEBHOOK_ORIGIN = redirector.url  # "Slack" answers with a redirect
        url = f"{redirector.url}/services/T0/B0/secret"
        SlackWebhook.objects.create(sig=board.node, channel="#x", url_encrypted=encrypt_url(url), url_hint="x")
        with pytest.raises(CommandError):
            call_command("send_freeze_reminders", "--now", NOW, verbosity=0)
        assert redirector.requests and target.requests == [], "the redirect was followed"
        delivery = ReminderDelivery.objects.get(recipient=slack_recipient("sig-node"))
        assert delivery.state == DeliveryState.FAILED and "HTTP 302" in delivery.error
        assert SECRET not in delivery.error
    finally:
        target.stop()
        redirector.stop()


@pytest.mark.django_db(transaction=True)
def test_an_answer_that_is_not_slacks_is_not_stored(board, slack, capsys):
    url = slack.webhook("node")
    SlackWebhook.objects.create(sig=board.node, channel="#x", url_encrypted=encrypt_url(url), url_hint="x")
    slack.script[url[len(slack.url) :]].append((400, SECRET, {}))
    with pytest.raises(CommandError):
        call_command("send_freeze_reminders", "--now", NOW, verbosity=2)
    delivery = ReminderDelivery.objects.get(recipient=slack_recipient("sig-node"))
    assert delivery.state == DeliveryState.FAILED and "HTTP 400" in delivery.error
    assert SECRET not in delivery.error and SECRET not in "".join(capsys.readouterr())
