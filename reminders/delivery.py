"""Sending: lease a batch of deliveries, send each outside any transaction (one SMTP connection for the batch, or
the SIG's Slack webhook), and record what came of it. A transient failure releases the lease for a retry; a
lasting refusal is `FAILED` with the server's answer and a back-off (`refusals`). Nothing happens between a send
and the commit that marks the row sent: that window is the only way to a duplicate."""

import datetime
import logging
import smtplib
from dataclasses import dataclass, field

from django.core.mail import get_connection
from django.db import connection
from django.utils import timezone

from community.models import Person

from . import metrics
from .channels import slack_sig_slug, slack_webhook_disable, webhook_post
from .choices import DeliveryState, ReminderKind
from .consent import reminder_refusal
from .due import RETRO_ANCHORS, DueReminder, due_for, due_order
from .leases import lease_length, renew_lease, take_leases
from .models import ReminderDelivery, SlackWebhook
from .planning import merged_siblings
from .refusals import refused_update
from .render_email import reminder_message
from .render_slack import render_digest_slack
from .retro_input import render_retro_input_slack

logger = logging.getLogger(__name__)


class SlackDeliveryError(Exception):
    """Slack did not take a post for a reason worth retrying (429 or 5xx after the client's retries, no network)."""


def is_transient(exc: BaseException) -> bool:
    """True for SMTP/network failures worth retrying: connection problems, timeouts and 4xx answers."""
    if isinstance(exc, smtplib.SMTPResponseException):
        return 400 <= exc.smtp_code < 500
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(400 <= code < 500 for code, _ in exc.recipients.values())
    return isinstance(exc, smtplib.SMTPServerDisconnected | smtplib.SMTPConnectError | OSError)


def smtp_answer(exc: BaseException) -> str:
    """The mail server's answer in an exception, as the server said it ("SMTP 550 5.1.1 no such user"),
    else the exception's name and text."""
    if isinstance(exc, smtplib.SMTPResponseException):
        text = exc.smtp_error.decode(errors="replace") if isinstance(exc.smtp_error, bytes) else str(exc.smtp_error)
        return f"SMTP {exc.smtp_code} {text}"
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "; ".join(
            f"SMTP {code} {text.decode(errors='replace') if isinstance(text, bytes) else text} ({address})"
            for address, (code, text) in exc.recipients.items()
        )
    return f"{type(exc).__name__}: {exc}"


# --- sending --------------------------------------------------------------------------------------------


@dataclass
class BatchResult:
    """What one batch of deliveries came to; `retry` holds the ids released after a transient failure."""

    sent: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    elsewhere: list[int] = field(default_factory=list)
    failed: dict[int, str] = field(default_factory=dict)
    retry: dict[int, BaseException] = field(default_factory=dict)


def _opted_out(address: str) -> bool:
    """Whether every person record with this address has opted out (as when planning)."""
    choices = set(Person.objects.filter(email__iexact=address).values_list("reminders_opt_out", flat=True))
    return choices == {True}


def _recipient_refusal(delivery: ReminderDelivery) -> str:
    """Why the recipient no longer wants this reminder (a skip reason), asked again right before sending: they
    opted out, unsubscribed with one click, or changed their preferences after it was planned; "" if they do."""
    if delivery.kind == ReminderKind.PERSONAL and _opted_out(delivery.recipient):
        # Their choice now is what counts.
        return "opted out of reminder emails"
    return reminder_refusal(kind=delivery.kind, address=delivery.recipient, offset_hours=delivery.offset_hours)


def _covered(delivery: ReminderDelivery, siblings: list[ReminderDelivery], dues: dict) -> list[DueReminder]:
    """The reminders the delivery's email covers (its own and its merged siblings'), rebuilt once per batch."""
    covered = []
    for row in (delivery, *siblings):
        key = (row.milestone_id, row.anchor, row.offset_hours, row.due_at)
        if key not in dues:
            dues[key] = due_for(row)
        covered.append(dues[key])
    return sorted(covered, key=due_order)


def _deliver_email(*, delivery, mine, dues, as_of, boards, mail_connection, result: BatchResult) -> None:
    """Send one leased delivery's email over the batch's connection and record what came of it: nothing happens
    between the server's acceptance and the update that marks the row sent (the window of the one duplicate)."""
    email = reminder_message(delivery=delivery, as_of=as_of, dues=dues, boards=boards)
    if email is None:
        mine.update(state=DeliveryState.SKIPPED, error="nothing left to remind about when it was sent")
        result.skipped.append(delivery.pk)
        return
    try:
        # Opens the connection for the first message and after a failure; a no-op while open.
        mail_connection.open()
        email.connection = mail_connection
        email.send()
    except Exception as exc:  # noqa: BLE001 - sorted into transient and lasting below
        error = smtp_answer(exc)[:2000]
        # The connection may be half-way through a conversation: start the next message afresh.
        mail_connection.close()
        if is_transient(exc):
            mine.update(claimed_at=None, error=error)
            result.retry[delivery.pk] = exc
        else:
            # Refused for good (5xx): kept with the server's answer and tried again after a back-off.
            refused_update(mine, error=error)
            result.failed[delivery.pk] = error
        return
    mine.update(
        state=DeliveryState.SENT, sent_at=timezone.now(), message_id=email.extra_headers["Message-ID"], error=""
    )
    result.sent.append(delivery.pk)


def reminder_deliver_batch(*, delivery_ids: list[int], as_of: datetime.datetime, mail_connection=None) -> BatchResult:
    """Send each of these deliveries unless someone else has: lease the waiting ones to us (one short
    transaction), then per delivery send outside any transaction and mark it sent. The board is read once
    per reminder and one SMTP connection serves the whole batch. A transient SMTP failure releases that
    delivery's lease (for a retry) and the batch goes on with a fresh connection; a lasting one marks the
    delivery failed. If the sender dies, its leased deliveries wait for the lease to run out and are then
    handed out again by the next planning run."""
    if connection.in_atomic_block:
        # Sending inside a transaction would let a rollback forget an email that has gone out.
        raise RuntimeError("reminder deliveries must not be sent inside a transaction")
    result = BatchResult()
    deliveries = {
        d.pk: d
        for d in ReminderDelivery.objects.filter(pk__in=delivery_ids).select_related(
            "milestone__release", "milestone__sig", "person"
        )
    }
    boards: dict = {}
    dues: dict[tuple, DueReminder] = {}
    stamp, leased = take_leases([pk for pk in delivery_ids if pk in deliveries])
    merged = merged_siblings([deliveries[pk] for pk in delivery_ids if pk in leased])
    result.elsewhere = [pk for pk in delivery_ids if pk not in leased]
    own_connection = mail_connection is None
    mail_connection = mail_connection or get_connection()
    try:
        for delivery_id in (pk for pk in delivery_ids if pk in leased):
            delivery = deliveries[delivery_id]
            # A slow batch must not outlive its lease: renew it at half-life, before sending.
            held = stamp
            if timezone.now() - stamp > lease_length() / 2:
                held = renew_lease(delivery_id, stamp)
                if held is None:
                    result.elsewhere.append(delivery_id)
                    continue
            mine = ReminderDelivery.objects.filter(pk=delivery_id, claimed_at=held, state=DeliveryState.CLAIMED)
            refusal = _recipient_refusal(delivery)
            if refusal:
                mine.update(state=DeliveryState.SKIPPED, error=refusal)
                result.skipped.append(delivery_id)
                continue
            covered = _covered(delivery, merged.get(delivery_id, []), dues)
            if slack_sig_slug(delivery.recipient) is not None:
                _deliver_slack(delivery=delivery, mine=mine, dues=covered, as_of=as_of, boards=boards, result=result)
            else:
                _deliver_email(
                    delivery=delivery,
                    mine=mine,
                    dues=covered,
                    as_of=as_of,
                    boards=boards,
                    mail_connection=mail_connection,
                    result=result,
                )
    finally:
        if own_connection:
            mail_connection.close()
    metrics.reminder_batch_done(deliveries, result)
    return result


def _deliver_slack(*, delivery, mine, dues, as_of, boards, result: BatchResult) -> None:
    """Post one SIG's Slack digest (a leased delivery `mine`) and record what came of it. A webhook Slack says
    is gone turns that SIG's channel off (the admin warns) and fails this delivery only; the batch goes on."""
    slug = slack_sig_slug(delivery.recipient)
    webhook = SlackWebhook.objects.filter(sig__slug=slug).select_related("sig").first()
    if webhook is None or not webhook.enabled:
        reason = (
            f"the Slack channel of {slug} is off: {webhook.disabled_reason}"
            if webhook
            else (f"{slug} has no Slack webhook any more")
        )
        mine.update(state=DeliveryState.SKIPPED, error=reason[:2000])
        result.skipped.append(delivery.pk)
        return
    if delivery.anchor in RETRO_ANCHORS:
        message = render_retro_input_slack(dues=dues, sig_id=webhook.sig_id, reference=f"reminder-{delivery.pk}")
    else:
        message = render_digest_slack(
            dues=dues, sig_id=webhook.sig_id, as_of=as_of, boards=boards, reference=f"reminder-{delivery.pk}"
        )
    if message is None:
        mine.update(state=DeliveryState.SKIPPED, error="nothing left to remind about when it was sent")
        result.skipped.append(delivery.pk)
        return
    try:
        url = webhook.url
    except ValueError as exc:
        refused_update(mine, error=str(exc), retry=False)
        result.failed[delivery.pk] = str(exc)
        return
    outcome = webhook_post(url=url, text=message.text, blocks=message.blocks)
    if outcome.state == "sent":
        mine.update(state=DeliveryState.SENT, sent_at=timezone.now(), message_id=f"reminder-{delivery.pk}", error="")
        result.sent.append(delivery.pk)
    elif outcome.state == "transient":
        mine.update(claimed_at=None, error=f"Slack: {outcome.detail}"[:2000])
        result.retry[delivery.pk] = SlackDeliveryError(outcome.detail)
    elif outcome.state == "revoked":
        reason = f"Slack answered {outcome.detail} on {timezone.now():%Y-%m-%d %H:%M} UTC"
        slack_webhook_disable(webhook_id=webhook.pk, reason=reason)
        logger.warning("Slack webhook of %s revoked (%s): channel turned off", slug, outcome.detail)
        error = f"Slack webhook revoked, channel of {slug} turned off: {outcome.detail}"[:2000]
        refused_update(mine, error=error, retry=False)
        result.failed[delivery.pk] = error
    else:
        error = f"Slack refused the post: {outcome.detail}"[:2000]
        refused_update(mine, error=error)
        result.failed[delivery.pk] = error


def reminder_delivery_give_up(*, delivery_id: int, error: str) -> None:
    """Mark a delivery failed after its last retry: kept for the admin to see and resend, and tried again by a
    later run after the refusals' back-off."""
    if refused_update(ReminderDelivery.objects.filter(pk=delivery_id, state=DeliveryState.CLAIMED), error=error):
        metrics.reminder_given_up(delivery_id)
