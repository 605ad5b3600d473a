"""What "retro input is open" says, to a SIG's mailing list (`render_email.render_retro_input`) and its Slack
channel.

Sent at the cycle's midpoint and a week before the retro meeting (`due.RETRO_ANCHORS`, instants from
`retros.selectors.retro_input_times`): each SIG of the list with its board's absolute link, until when the board
takes input, and the retro meeting when the schedule has one. Typed text (SIG slugs, milestone labels) is escaped
as in every other reminder: by the templates' autoescape in HTML, by `mrkdwn_escape` in Slack."""

import datetime

from django.urls import reverse

from community.models import Sig
from core.text import one_line
from retros.selectors import retro_input_times

from .due import Anchor, DueReminder
from .render_slack import SLACK_HEADER_CHARS, SlackMessage, _sections, _slack_link, mrkdwn_escape
from .wording import base_url


def _utc(at: datetime.datetime | None) -> str:
    return at.astimezone(datetime.UTC).strftime("%a %Y-%m-%d %H:%M UTC") if at else ""


def retro_input_context(*, due: DueReminder, recipient: str, sig_ids: list[int] | None = None) -> dict | None:
    """The context of one retro-input reminder to one list (the SIGs whose mailing list is `recipient`) or one SIG's
    channel (`sig_ids`); None when none of the reminder's SIGs is left there."""
    wanted = set(sig_ids) if sig_ids is not None else None
    sigs = [
        sig
        for sig in Sig.objects.filter(pk__in=due.sig_ids).order_by("slug")
        if (sig.pk in wanted if wanted is not None else sig.mailing_list.lower() == recipient.lower())
    ]
    if not sigs:
        return None
    release = due.milestone.release
    times = retro_input_times(releases=[release])[release.pk]
    week_before = due.anchor == Anchor.RETRO_WEEK_BEFORE
    names = ", ".join(sig.slug for sig in sigs)
    headline = f"v{release.version} retro input is open"
    if week_before:
        headline += ": the retro is in a week" if times.retro else ": the board closes in a week"
    return {
        "release": release,
        "version": release.version,
        "sigs": sigs,
        "sig_names": names,
        "boards": [
            (sig.slug, base_url() + reverse("retros:board", kwargs={"version": release.version, "sig_slug": sig.slug}))
            for sig in sigs
        ],
        "week_before": week_before,
        "closes": _utc(times.closes),
        "retro": _utc(times.retro),
        "headline": one_line(headline),
        "subject": one_line(f"[{names}] {headline}"),
        "recipient": recipient,
        "release_url": base_url() + release.get_absolute_url(),
        "base_url": base_url(),
    }


def render_retro_input_slack(*, dues: list[DueReminder], sig_id: int, reference: str) -> SlackMessage | None:
    """The post to one SIG's Slack channel, ending with `reference` (the delivery's fixed id, as every digest)."""
    context = retro_input_context(due=dues[0], recipient="", sig_ids=[sig_id])
    if context is None:
        return None
    esc = mrkdwn_escape
    header = one_line(f"[{context['sig_names']}] {context['headline']}")
    if len(header) > SLACK_HEADER_CHARS:
        header = header[: SLACK_HEADER_CHARS - 1] + "…"
    lines = [
        f"The v{esc(context['version'])} retrospective board takes input until {esc(context['closes'])}: what went "
        "well, what to improve, what to discuss. Add yours, and +1 what others wrote."
    ]
    if context["retro"]:
        lines.append(f"The retro meeting: {esc(context['retro'])}.")
    lines += [f"• {_slack_link(url, f'Retro board of {slug}')}" for slug, url in context["boards"]]
    footer = " · ".join(
        [_slack_link(context["release_url"], f"Release v{context['version']}"), f"sigtracker {esc(reference)}"]
    )
    blocks = [
        {"type": "header", "text": {"type": "plain_text", "text": header}},
        *_sections("", lines),
        {"type": "context", "elements": [{"type": "mrkdwn", "text": footer}]},
    ]
    return SlackMessage(text=context["subject"], blocks=blocks)
