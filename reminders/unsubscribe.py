"""One-click unsubscribe (RFC 8058) for reminder emails: signed, expiring tokens and the headers that carry them.

A token names one recipient address and is signed with a salt per kind of reminder (`ReminderKind`), so it
cannot be altered to name another address (the signature breaks) nor replayed against another kind (another
salt). It expires after SIGTRACKER_UNSUBSCRIBE_MAX_AGE_DAYS. Every email carries

    List-Unsubscribe: <https://…/unsubscribe/personal/TOKEN/>, <mailto:…?subject=unsubscribe%20personal%20TOKEN>
    List-Unsubscribe-Post: List-Unsubscribe=One-Click

and the mail provider POSTs `List-Unsubscribe=One-Click` to the HTTPS address with no cookie and no CSRF token
(RFC 8058 section 3.1). The mailto goes to a mailbox a curator reads: sigtracker receives no mail.
"""

import datetime
from email.utils import parseaddr
from urllib.parse import quote

from django.conf import settings
from django.core import signing
from django.urls import reverse

from .choices import ReminderKind

#: The form field and value an RFC 8058 one-click POST carries.
ONE_CLICK_FIELD, ONE_CLICK_VALUE = "List-Unsubscribe", "One-Click"


class BadToken(Exception):
    """The token is forged, altered, for another kind of reminder, or expired (the message says which)."""


def _salt(kind: str) -> str:
    # Named after the module's first home: a new salt would break every link in the emails already sent.
    return f"sigtracker.people.unsubscribe.{ReminderKind(kind).value}"


def max_age() -> datetime.timedelta:
    return datetime.timedelta(days=settings.SIGTRACKER_UNSUBSCRIBE_MAX_AGE_DAYS)


def unsubscribe_token(*, address: str, kind: str) -> str:
    """A token that unsubscribes `address` (case does not matter) from reminders of `kind`."""
    return signing.dumps({"a": address.strip().lower()}, salt=_salt(kind), compress=True)


def unsubscribe_address(*, token: str, kind: str) -> str:
    """The address a valid token of `kind` names; BadToken otherwise."""
    try:
        kind = ReminderKind(kind).value
    except ValueError as exc:
        raise BadToken("unknown kind of reminder") from exc
    try:
        data = signing.loads(token, salt=_salt(kind), max_age=max_age())
    except signing.SignatureExpired as exc:
        raise BadToken("this link has expired; use the link in a newer reminder, or sign in") from exc
    except signing.BadSignature as exc:
        raise BadToken("this link is not valid") from exc
    address = data.get("a") if isinstance(data, dict) else None
    if not isinstance(address, str) or "@" not in address:
        raise BadToken("this link is not valid")
    return address


def unsubscribe_url(*, address: str, kind: str) -> str:
    path = reverse("people:unsubscribe", kwargs={"kind": kind, "token": unsubscribe_token(address=address, kind=kind)})
    return settings.SIGTRACKER_BASE_URL.rstrip("/") + path


def unsubscribe_headers(*, address: str, kind: str) -> dict[str, str]:
    """The RFC 2369 / RFC 8058 headers for one email of `kind` to `address`."""
    token = unsubscribe_token(address=address, kind=kind)
    url = unsubscribe_url(address=address, kind=kind)
    mailbox = settings.SIGTRACKER_UNSUBSCRIBE_MAILTO or parseaddr(settings.DEFAULT_FROM_EMAIL)[1]
    links = [f"<{url}>"]
    if mailbox:
        links.append(f"<mailto:{mailbox}?subject={quote(f'unsubscribe {kind} {token}')}>")
    return {"List-Unsubscribe": ", ".join(links), "List-Unsubscribe-Post": f"{ONE_CLICK_FIELD}={ONE_CLICK_VALUE}"}
