"""A SIG's digest as Slack blocks, from the same context as the email (`content.digest_context`), within Slack's
limits on a message (https://api.slack.com/reference/block-kit/blocks)."""

import datetime
from dataclasses import dataclass

from core.text import one_line

from .content import digest_context

# --- the digest in Slack --------------------------------------------------------------------------------

#: Slack's limits on a message's blocks (https://api.slack.com/reference/block-kit/blocks).
SLACK_MAX_BLOCKS = 50
SLACK_SECTION_CHARS = 3000
SLACK_HEADER_CHARS = 150


@dataclass
class SlackMessage:
    #: The notification's fallback text (the email's subject).
    text: str
    blocks: list[dict]


def mrkdwn_escape(text: str) -> str:
    """Slack's escaping of the three control characters in message text: &, < and >."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack_link(url: str, label: str) -> str:
    return f"<{mrkdwn_escape(url)}|{mrkdwn_escape(label).replace('|', '¦')}>"


def _slack_when(when: dict) -> str:
    if when["all_day"]:
        line = f"{when['utc'][:14]} (all day, UTC)"
    else:
        line = f"{when['utc']}  ·  {when['pacific']}"
    if when["aoe"]:
        line += f"  ·  {when['aoe']} (Anywhere on Earth)"
    return mrkdwn_escape(line)


def _sections(title: str, lines: list[str]) -> list[dict]:
    """A title and its lines as mrkdwn sections, split where a section would pass Slack's 3,000 characters."""
    sections, text = [], title
    for line in lines:
        line = line[: SLACK_SECTION_CHARS - 10]
        if len(text) + 1 + len(line) > SLACK_SECTION_CHARS:
            sections.append(text)
            text = line
        else:
            text = f"{text}\n{line}" if text else line
    if text:
        sections.append(text)
    return [{"type": "section", "text": {"type": "mrkdwn", "text": chunk}} for chunk in sections]


def _summary_blocks(context: dict) -> list[dict]:
    """The header, one line of counts, and each freeze with its time and requirements."""
    esc = mrkdwn_escape
    header = one_line(f"[{context['sig_names']}] {context['headline']}")
    if len(header) > SLACK_HEADER_CHARS:
        header = header[: SLACK_HEADER_CHARS - 1] + "…"
    these = "these freezes" if context["several"] else "this freeze"
    blocks: list[dict] = [
        {"type": "header", "text": {"type": "plain_text", "text": header}},
        *_sections(
            "",
            [
                f"{esc(context['sig_names'])} tracks {context['in_play']} KEP{'s' if context['in_play'] != 1 else ''} "
                f"still in {esc(context['versions'])}; *{context['at_risk']} at risk*, {context['not_ready']} not yet "
                f"ready for {these}."
            ],
        ),
    ]
    for freeze in context["freezes"]:
        name = esc(freeze["name"])
        if freeze["exception_close"]:
            title = (
                f"*The exception window after {name} (v{esc(freeze['version'])}) closes*\n{_slack_when(freeze['when'])}"
            )
        else:
            title = f"*{name} (v{esc(freeze['version'])})*\n{_slack_when(freeze['when'])}"
        blocks += _sections(
            f"{title}\nWhat {name} requires of each KEP:", [f"• {esc(line)}" for line in freeze["requirements"]]
        )
    return blocks


def _kep_blocks(context: dict) -> list[dict]:
    """The KEPs, one titled group per block of the digest (what they still need, ready, done, gone)."""
    esc = mrkdwn_escape
    blocks: list[dict] = []
    for block in context["blocks"]:
        if len(block["needs"]) == 1:
            title = f"*{esc(block['title'])}:* {esc(block['needs'][0])}"
        elif block["needs"]:
            title = f"*{esc(block['title'])}:*\n" + "\n".join(f"  ◦ {esc(need)}" for need in block["needs"])
        else:
            title = f"*{esc(block['title'])}*"
        lines = []
        for kep in block["keps"]:
            where = esc(kep["sig"] + (f", {kep['stage']}" if kep["stage"] else ""))
            risk = " — *AT RISK*" if kep["at_risk"] else ""
            lines.append(
                f"• {_slack_link(kep['url'], 'KEP-' + str(kep['number']))} {esc(kep['title'])} [{where}]{risk} · "
                f"{esc(kep['status'])}"
            )
        blocks += _sections(title, lines)
    if not context["blocks"]:
        blocks += _sections(f"No KEPs of {esc(context['sig_names'])} are on the {esc(context['versions'])} board.", [])
    return blocks


def _open_item_blocks(context: dict) -> list[dict]:
    """Open retro action items due in the release and overdue ones, the plan's gaps, and exception requests waiting
    for the release team."""
    esc = mrkdwn_escape
    blocks: list[dict] = []
    actions = [
        f"• {esc(item.text)} ({'@' + esc(item.owner.github) + ', ' if item.owner else ''}"
        f"{esc(item.get_status_display().lower())}; from the v{esc(item.retrospective.release.version)} retro of "
        f"{esc(item.retrospective.sig.slug)})"
        for item in context["actions"]
    ]
    if actions:
        blocks += _sections(f"*Open retro action items due in {esc(context['versions'])}:*", actions)
    overdue = [
        f"• {esc(item.text)} ({'@' + esc(item.owner.github) + ', ' if item.owner else ''}"
        f"{esc(item.get_status_display().lower())}; *due v{esc(item.due_release.version)}*; from the "
        f"v{esc(item.retrospective.release.version)} retro of {esc(item.retrospective.sig.slug)})"
        for item in context.get("overdue_actions", ())
    ]
    if overdue:
        blocks += _sections(
            f"*Overdue retro action items (due before {esc(context['overdue_before'])}, still open):*", overdue
        )
    plan = [
        f"• {_slack_link(gap.url, f'KEP-{gap.number}')} {esc(gap.title)} [{esc(gap.sig)}]: {esc(gap.needs)}"
        for gap in context.get("plan_gaps", ())
    ]
    if plan:
        blocks += _sections(f"*Your plan for {esc(context['versions'])}:*", plan)
    requests = []
    for request in context["pending_exceptions"]:
        kep = request.tracked_enhancement.kep
        line = (
            f"• KEP-{kep.number} {esc(kep.title)} [{esc(request.tracked_enhancement.sig.slug)}]: "
            f"{esc(request.get_freeze_display())}, requested {request.requested_at:%Y-%m-%d %H:%M} UTC"
        )
        if request.deadline:
            line += f", deadline {request.deadline:%Y-%m-%d %H:%M} UTC"
        if request.thread_url:
            line += f" ({_slack_link(request.thread_url, 'thread')})"
        requests.append(line)
    if requests:
        blocks += _sections("*Exception requests waiting for the release team's decision:*", requests)
    return blocks


def _footer(context: dict, reference: str) -> dict:
    links = [_slack_link(url, f"Release schedule and board ({version})") for version, url in context["release_urls"]]
    text = " · ".join([*links, f"sigtracker {mrkdwn_escape(reference)}"])
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}


def render_digest_slack(
    *, dues, sig_id: int, as_of: datetime.datetime, reference: str, boards: dict | None = None
) -> SlackMessage | None:
    """One SIG's digest as Slack blocks, from the same context as the email (`digest_context`): a header, each
    freeze with its time (UTC, US Pacific) and requirements, the KEPs grouped by what they still need, open retro
    action items, pending exception requests, the release page, and `reference` (the delivery's fixed id, so a
    copy resent after a crash is recognisably the same). None when the SIG is no longer among the reminders'."""
    context = digest_context(dues=dues, recipient="", as_of=as_of, sig_ids=[sig_id], boards=boards)
    if context is None:
        return None
    blocks = [*_summary_blocks(context), {"type": "divider"}, *_kep_blocks(context), *_open_item_blocks(context)]
    if len(blocks) > SLACK_MAX_BLOCKS - 1:
        dropped = len(blocks) - (SLACK_MAX_BLOCKS - 2)
        blocks = blocks[: SLACK_MAX_BLOCKS - 2]
        blocks += _sections(f"_…and {dropped} more sections: see the release page._", [])
    blocks.append(_footer(context, reference))
    return SlackMessage(text=context["subject"], blocks=blocks)
