"""Slack incoming webhooks, the digest's second channel: the URL kept encrypted at rest, one post with Slack's
retry rules, the pseudo-recipient of a channel's delivery rows, and turning a channel on and off.

An incoming-webhook URL is a credential (whoever has it posts to the channel), so the database holds it encrypted
with Fernet under a key derived from SECRET_KEY (HKDF-SHA256; SECRET_KEY_FALLBACKS still decrypt after a key
rotation), and the admin shows only its host and last four characters (`url_hint`); both in `webhook_urls`.

Slack's documented answers (https://api.slack.com/messaging/webhooks, "Handling errors"): 200 with the body `ok`;
`429` with `Retry-After` when rate limited; `404`/`410` with `no_service`, `no_team`, `channel_not_found`,
`channel_is_archived` or `team_disabled` when the webhook or its channel is gone; `403` with `invalid_token` or
`action_prohibited` when it was revoked or posting is forbidden; `400` for a payload Slack rejects. A post (httpx) is
retried as slack-sdk's public retry handlers (`slack_sdk.http_retry`) decide: a `429` after the `Retry-After` it
names (when that is short enough to wait for inside a batch) and a `5xx` after a backoff; what is still failing after
that is `transient` (the caller releases the delivery for a later retry), a revoked webhook is `revoked` (the
caller turns the channel off), anything else is `failed`.

A webhook URL is typed in by a SIG lead, so it is where the site's workers POST: only Slack's own webhook endpoint
is accepted (`https://hooks.slack.com/services/T…/B…/…`, the origin from SIGTRACKER_SLACK_WEBHOOK_ORIGIN, which
tests point at a local stand-in), at save time and again before each post; redirects are not followed (a 3xx is a
failure); and of an answer only Slack's one-word error codes are kept, never a body (an internal service's reply
must not land in `ReminderDelivery.error` or a command's output).
"""

import json
import re
from dataclasses import dataclass

import httpx
from django.conf import settings
from django.utils import timezone
from slack_sdk.http_retry import (
    BackoffRetryIntervalCalculator,
    HttpRequest,
    HttpResponse,
    RateLimitErrorRetryHandler,
    RetryHandler,
    RetryState,
)

from .models import SlackWebhook
from .webhook_urls import encrypt_url, is_webhook_url, url_hint, validate_webhook_url

#: Answers (body or status) meaning the webhook or its channel is gone for good: the channel is turned off.
REVOKED_ERRORS = frozenset(
    {
        "no_service",
        "no_team",
        "team_disabled",
        "channel_not_found",
        "channel_is_archived",
        "invalid_token",
        "action_prohibited",
    }
)
REVOKED_STATUSES = frozenset({404, 410})

#: The domain of the pseudo-recipient of a SIG's Slack digest (RFC 2606 reserves `.invalid`: never a mailbox).
SLACK_DOMAIN = "slack.invalid"


def slack_recipient(slug: str) -> str:
    """The `recipient` of a SIG's Slack digest delivery, e.g. `sig-node@slack.invalid`."""
    return f"{slug}@{SLACK_DOMAIN}"


def slack_sig_slug(recipient: str) -> str | None:
    """The SIG slug of a Slack digest delivery's recipient; None for an email address."""
    local, _, domain = recipient.rpartition("@")
    return local if domain.lower() == SLACK_DOMAIN else None


#: Slack's error answers are one lower-case word (`no_service`, `invalid_payload`); nothing else is kept.
_SLACK_CODE = re.compile(r"[a-z_]{1,64}")


# --- posting --------------------------------------------------------------------------------------------


#: Of an answer, at most this much is read (only a one-word error code is ever kept; see the module).
MAX_ANSWER_BYTES = 64 * 1024


class BoundedRateLimitRetryHandler(RateLimitErrorRetryHandler):
    """slack-sdk's 429 handler (sleeps for `Retry-After`), but only when that wait is short: a longer one would
    hold the whole batch, so the post is answered `transient` and the delivery is retried later by the task."""

    def __init__(self, *, max_retry_count: int, max_wait_seconds: int):
        super().__init__(max_retry_count=max_retry_count)
        self.max_wait_seconds = max_wait_seconds

    def can_retry(self, *, state, request, response=None, error=None) -> bool:
        if not super().can_retry(state=state, request=request, response=response, error=error):
            return False
        retry_after = next((v[0] for k, v in response.headers.items() if k.lower() == "retry-after"), "1")
        try:
            return int(retry_after) <= self.max_wait_seconds
        except ValueError:
            return False


class AnyServerErrorRetryHandler(RetryHandler):
    """A backoff between attempts (slack-sdk's own `prepare_for_next_attempt`) for every 5xx: slack-sdk's
    `ServerErrorRetryHandler` retries only 500 and 503."""

    def can_retry(self, *, state, request, response=None, error=None) -> bool:
        return state.current_attempt < self.max_retry_count and response is not None and response.status_code >= 500


@dataclass(frozen=True)
class PostOutcome:
    """`sent`, `transient` (try again later), `revoked` (turn the channel off) or `failed` (a lasting error)."""

    state: str
    detail: str = ""


def retry_handlers() -> list[RetryHandler]:
    retries = getattr(settings, "SIGTRACKER_SLACK_MAX_RETRIES", 2)
    return [
        BoundedRateLimitRetryHandler(
            max_retry_count=retries,
            max_wait_seconds=getattr(settings, "SIGTRACKER_SLACK_MAX_RETRY_AFTER_SECONDS", 30),
        ),
        AnyServerErrorRetryHandler(
            max_retry_count=retries, interval_calculator=BackoffRetryIntervalCalculator(backoff_factor=0.5)
        ),
    ]


def _post_once(client: httpx.Client, request: HttpRequest) -> HttpResponse:
    """One POST; redirects are not followed (the client's default: a 3xx is answered as it is, never a request to
    a host nobody validated), and of the answer at most MAX_ANSWER_BYTES are read."""
    headers = {name: values[-1] for name, values in request.headers.items()}
    with client.stream("POST", request.url, content=request.data, headers=headers) as answer:
        data = bytearray()
        for chunk in answer.iter_bytes():
            data += chunk
            if len(data) >= MAX_ANSWER_BYTES:
                break
        headers = {name: answer.headers.get_list(name) for name in answer.headers}
        return HttpResponse(status_code=answer.status_code, headers=headers, data=bytes(data[:MAX_ANSWER_BYTES]))


def _post(url: str, payload: dict) -> HttpResponse:
    """POST `payload` as JSON, retried as slack-sdk's public retry handlers (`slack_sdk.http_retry`) decide: each is
    asked `can_retry` of the answer, and the first that says yes waits (`prepare_for_next_attempt`)."""
    request = HttpRequest(
        method="POST",
        url=url,
        headers={"Content-Type": "application/json;charset=utf-8"},
        data=json.dumps(payload).encode(),
    )
    handlers, state = retry_handlers(), RetryState()
    timeout = getattr(settings, "SIGTRACKER_SLACK_TIMEOUT_SECONDS", 10)
    with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client:
        while True:
            response = _post_once(client, request)
            if response.status_code == 200:
                return response
            retry = next((h for h in handlers if h.can_retry(state=state, request=request, response=response)), None)
            if retry is None:
                return response
            retry.prepare_for_next_attempt(state=state, request=request, response=response)


def webhook_post(*, url: str, text: str, blocks: list[dict]) -> PostOutcome:
    """Post one message (`text` is the notification's fallback) and sort Slack's answer (see the module)."""
    if not is_webhook_url(url):  # saved before the rule, or the allowed origin changed since
        return PostOutcome("failed", f"not a Slack incoming-webhook URL ({url_hint(url)}); not posted")
    try:
        response = _post(url, {"text": text, "blocks": blocks})
    except httpx.TransportError as exc:  # refused, reset, timed out, cut short
        return PostOutcome("transient", f"{type(exc).__name__}: {exc}"[:2000])
    body = (response.data or b"").decode("utf-8", errors="replace").strip()
    code = body if _SLACK_CODE.fullmatch(body) else ""
    detail = f"HTTP {response.status_code}" + (f": {code}" if code else "")
    if response.status_code == 200:
        return PostOutcome("sent", body)
    if response.status_code in REVOKED_STATUSES or body in REVOKED_ERRORS:
        return PostOutcome("revoked", detail)
    if response.status_code == 429 or response.status_code >= 500:
        return PostOutcome("transient", detail)
    return PostOutcome("failed", detail)


# --- a SIG's channel on and off ---------------------------------------------------------------------------


def slack_webhook_set_url(*, webhook: SlackWebhook, url: str) -> SlackWebhook:
    """Set (or replace) the incoming-webhook URL of a SIG's Slack channel (`webhook` new or saved, with its other
    fields as they are to be saved), stored encrypted; a new URL turns the channel on again."""
    validate_webhook_url(url)
    webhook.url_encrypted, webhook.url_hint = encrypt_url(url), url_hint(url)
    webhook.enabled, webhook.disabled_reason, webhook.disabled_at = True, "", None
    webhook.updated_at = timezone.now()
    webhook.save()
    return webhook


def slack_webhook_disable(*, webhook_id: int, reason: str) -> bool:
    """Turn a SIG's Slack channel off after Slack said the webhook is gone; False if it was already off."""
    return bool(
        SlackWebhook.objects.filter(pk=webhook_id, enabled=True).update(
            enabled=False, disabled_reason=reason[:2000] or "disabled", disabled_at=timezone.now()
        )
    )
