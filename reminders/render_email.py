"""The reminder emails: a SIG digest, a personal note, a note before an exception request's deadline, and the
message of one delivery row (headers fixed per row, so a copy resent after a crash is recognisably the same)."""

import datetime
from dataclasses import dataclass
from urllib.parse import urlparse

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from community.models import Person
from core.text import one_line

from .choices import ReminderKind
from .content import as_due_list, board_of, common_context, digest_context, kep_blocks, kep_entry, personal_extras
from .due import RETRO_ANCHORS, Anchor, DueReminder, exception_requests_due, not_ready, people_of
from .models import ReminderDelivery
from .planning import reminder_dues
from .retro_input import retro_input_context
from .unsubscribe import unsubscribe_headers, unsubscribe_url
from .wording import ROLE_LABELS, and_list, base_url, needs_of, or_list, quoted_times, role_order, span


@dataclass
class Message:
    #: Always one line (`one_line`): a label stored with a CR/LF must not make the header unsendable.
    subject: str
    text: str
    html: str


def render_digest(
    *, dues, recipient: str, as_of: datetime.datetime, sig_ids: list[int] | None = None, boards: dict | None = None
) -> Message | None:
    """The digest email (see `digest_context`); None when no SIG of the reminders is left on that list."""
    context = digest_context(dues=dues, recipient=recipient, as_of=as_of, sig_ids=sig_ids, boards=boards)
    return _message(context, "digest")


def _message(context: dict | None, template: str) -> Message | None:
    """The email of a list's context (its `subject`) through `reminders/email/<template>.txt` and `.html`."""
    if context is None:
        return None
    return Message(
        subject=context["subject"],
        text=render_to_string(f"reminders/email/{template}.txt", context),
        html=render_to_string(f"reminders/email/{template}.html", context),
    )


def render_personal(
    *,
    dues,
    person: Person | None,
    recipient: str,
    as_of: datetime.datetime,
    boards: dict | None = None,
) -> Message | None:
    """The personal note for the reminders `dues` (one, or several at the same instant): just this person's
    KEPs that are not ready, grouped by what they still need; at a freeze's own reminders also their committed KEPs
    with a plan gap (until the PRR freeze) and the open retro action items they own (`personal_extras`). None when
    nothing is left to remind them of (the KEPs got ready, the plan was fixed, the items done since it was
    planned)."""
    dues = as_due_list(dues)
    entries: dict[int, dict] = {}
    for due in dues:
        rows, people = board_of(boards, due, as_of)
        mine = people.get(recipient.lower(), {})
        for row in not_ready(rows, due):
            if row.pk in mine:
                entry = entries.setdefault(row.pk, kep_entry(row))
                entry["roles"] |= mine[row.pk]
                need = needs_of(row.status_then, due)
                if need not in entry["needs"]:
                    entry["needs"].append(need)
    plan, actions = personal_extras(dues=dues, recipient=recipient, as_of=as_of, boards=boards)
    if not entries and not plan and not actions:
        return None
    context = common_context(dues)
    n = len(entries)
    # Why this person gets the note, from the roles that put each KEP or item in it (the body says the same per line).
    roles = set().union(*(entry["roles"] for entry in entries.values()))
    roles = sorted(roles.union(*(entry["roles"] for entry in plan)), key=role_order)
    labels = [ROLE_LABELS.get(role, role) for role in roles]
    reasons = []
    if n + len(plan):
        reasons.append(f"{or_list(labels)} of the KEP{'s' if n + len(plan) != 1 else ''} above")
    if actions:
        reasons.append(f"the owner of the retro action item{'s' if len(actions) != 1 else ''} above")
    context.update(
        person=person,
        recipient=recipient,
        blocks=kep_blocks(list(entries.values()), ready_title=""),
        n=n,
        plan_lines=plan,
        action_items=actions,
        reason=" and ".join(reasons),
        preferences_url=base_url() + reverse("people:preferences"),
        unsubscribe_url=unsubscribe_url(address=recipient, kind=ReminderKind.PERSONAL),
    )
    parts = []
    if n:
        part = f"{n} of your KEPs"
        if any(due.anchor == Anchor.FREEZE for due in dues):
            part += f" {'needs' if n == 1 else 'need'} attention"
        parts.append(part)
    if plan:
        parts.append(f"{len(plan)} committed KEP{'s' if len(plan) != 1 else ''} to fix before the PRR freeze")
    if actions:
        parts.append(f"{len(actions)} open retro action item{'s' if len(actions) != 1 else ''}")
    subject = f"{context['headline']}: " + "; ".join(parts)
    return Message(
        subject=one_line(subject),
        text=render_to_string("reminders/email/personal.txt", context),
        html=render_to_string("reminders/email/personal.html", context),
    )


def render_exception_deadline(
    *, dues, person: Person | None, recipient: str, as_of: datetime.datetime
) -> Message | None:
    """The personal note before an exception request's deadline (`Anchor.EXCEPTION_DEADLINE`): this person's
    approved requests for that freeze whose deadline is still ahead, each with its KEP, freeze, deadline (UTC and
    US Pacific, as `quoted_times` quotes it) and thread. None when none is left (done, out of play, or past)."""
    dues = as_due_list(dues)
    requests, seen, all_roles = [], set(), set()
    for due in dues:
        for request, row in exception_requests_due(due=due, as_of=as_of):
            roles = {role for who, role in people_of(row) if who.email and who.email.lower() == recipient.lower()}
            if not roles or request.pk in seen or request.deadline < as_of:
                continue
            seen.add(request.pk)
            all_roles |= roles
            entry = kep_entry(row)
            entry["roles"] = ", ".join(sorted(ROLE_LABELS.get(role, role) for role in roles))
            requests.append(
                {
                    "kep": entry,
                    "freeze": request.get_freeze_display(),
                    "version": due.milestone.release.version,
                    "when": quoted_times(request.deadline, due.milestone),
                    "thread_url": request.thread_url,
                }
            )
    if not requests:
        return None
    first = requests[0]
    keps = and_list([f"KEP-{item['kep']['number']} {item['kep']['title']}" for item in requests])
    hours = dues[0].offset_hours
    when = "now" if hours == 0 else f"in {span(hours)}"
    if len(requests) == 1:
        headline = f"The exception deadline of {keps} (v{first['version']}, {first['freeze']}) is {when}"
    else:
        headline = f"Exception deadlines of {keps} (v{first['version']}, {first['freeze']}): the first is {when}"
    context = {
        "person": person,
        "recipient": recipient,
        "headline": one_line(headline),
        "requests": requests,
        "n": len(requests),
        # The true reason, from the roles that put these KEPs in the note, and where the person changes it.
        "reason": or_list([ROLE_LABELS.get(role, role) for role in sorted(all_roles, key=role_order)]),
        "preferences_url": base_url() + reverse("people:preferences"),
        "unsubscribe_url": unsubscribe_url(address=recipient, kind=ReminderKind.PERSONAL),
        "release_urls": [
            (f"v{r.version}", base_url() + r.get_absolute_url())
            for r in {due.milestone.release_id: due.milestone.release for due in dues}.values()
        ],
        "base_url": base_url(),
    }
    return Message(
        subject=one_line(f"[{', '.join(sorted({item['kep']['sig'] for item in requests}))}] {context['headline']}"),
        text=render_to_string("reminders/email/exception_deadline.txt", context),
        html=render_to_string("reminders/email/exception_deadline.html", context),
    )


def render_retro_input(*, dues: list[DueReminder], recipient: str) -> Message | None:
    """The "retro input is open" email to one mailing list (`retro_input_context`); None when no SIG of it is left
    there."""
    return _message(retro_input_context(due=dues[0], recipient=recipient), "retro_input")


def reminder_message(
    *,
    delivery: ReminderDelivery,
    as_of: datetime.datetime,
    dues: list[DueReminder] | None = None,
    boards: dict | None = None,
) -> EmailMultiAlternatives | None:
    """The email for one delivery row, as of `as_of` (plain text with an HTML alternative), covering every
    reminder merged into it; None when there is nothing left to say (no SIG on that list any more, or the
    person's KEPs are all ready)."""
    dues = dues or reminder_dues(delivery=delivery)
    if delivery.anchor in RETRO_ANCHORS:
        message = render_retro_input(dues=dues, recipient=delivery.recipient)
    elif delivery.anchor == Anchor.EXCEPTION_DEADLINE:
        message = render_exception_deadline(
            dues=dues, person=delivery.person, recipient=delivery.recipient, as_of=as_of
        )
    elif delivery.kind == ReminderKind.DIGEST:
        message = render_digest(dues=dues, recipient=delivery.recipient, as_of=as_of, boards=boards)
    else:
        message = render_personal(
            dues=dues, person=delivery.person, recipient=delivery.recipient, as_of=as_of, boards=boards
        )
    if message is None:
        return None
    email = EmailMultiAlternatives(
        subject=message.subject,
        body=message.text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[delivery.recipient],
        headers={
            # Fixed per delivery row: a copy resent after a crash is recognisably the same message.
            "Message-ID": f"<reminder-{delivery.pk}@{urlparse(base_url()).hostname or 'sigtracker'}>",
            "Auto-Submitted": "auto-generated",
            "X-Sigtracker-Reminder": (
                f"{delivery.milestone_id}/{delivery.anchor}/{delivery.offset_hours}/{delivery.kind}"
            ),
            # One-click unsubscribe (RFC 8058) for this recipient from this kind of reminder (`reminders.unsubscribe`).
            **unsubscribe_headers(address=delivery.recipient, kind=delivery.kind),
        },
    )
    email.attach_alternative(message.html, "text/html")
    return email
