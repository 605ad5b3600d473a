"""A Slack incoming-webhook URL: a credential, kept encrypted at rest, and accepted only as Slack's own endpoint.

Whoever has the URL posts to the channel, so the database holds it encrypted with Fernet under a key derived from
SECRET_KEY (HKDF-SHA256; SECRET_KEY_FALLBACKS still decrypt after a key rotation), and the admin shows only its host
and last four characters (`url_hint`). It is typed in by a SIG lead and is where the site's workers POST, so only
Slack's webhook endpoint is accepted (the origin from SIGTRACKER_SLACK_WEBHOOK_ORIGIN), at save time and again
before each post (`channels.webhook_post`). Imports no model: the model's `url` reads through it.
"""

import base64
import re
from urllib.parse import urlparse, urlsplit

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

# --- the URL at rest ------------------------------------------------------------------------------------


def _fernet(secret: str) -> Fernet:
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"sigtracker", info=b"slack-webhook-url").derive(
        secret.encode()
    )
    return Fernet(base64.urlsafe_b64encode(key))


def _keys() -> MultiFernet:
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return MultiFernet([_fernet(secret) for secret in secrets])


def encrypt_url(url: str) -> str:
    return _keys().encrypt(url.encode()).decode()


def decrypt_url(token: str) -> str:
    """The URL; raises ValueError when no current or fallback SECRET_KEY decrypts it (the key was replaced)."""
    try:
        return _keys().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise ValueError("the webhook URL cannot be decrypted with SECRET_KEY or SECRET_KEY_FALLBACKS") from exc


def url_hint(url: str) -> str:
    """What the admin shows of a webhook URL: its host and last four characters, e.g. hooks.slack.com/…x7Qz."""
    return f"{urlparse(url).hostname or '?'}/…{url[-4:]}"


#: The path of an incoming webhook: /services/<team>/<bot>/<secret>, letters and digits.
_WEBHOOK_PATH = re.compile(r"/services/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+")


def _allowed_origin() -> tuple[str, str]:
    origin = urlsplit(getattr(settings, "SIGTRACKER_SLACK_WEBHOOK_ORIGIN", "") or "https://hooks.slack.com")
    return origin.scheme, origin.netloc.lower()


def is_webhook_url(url: str) -> bool:
    """Whether `url` is a Slack incoming webhook: the allowed origin exactly (scheme, host, port; no user, no
    look-alike host such as hooks.slack.com.evil.example), a /services/T…/B…/… path, no query or fragment."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    # The whole netloc compared: a user part, another port or a longer host name all differ.
    return (
        (parts.scheme, parts.netloc.lower()) == _allowed_origin()
        and bool(_WEBHOOK_PATH.fullmatch(parts.path))
        and not parts.query
        and not parts.fragment
    )


def validate_webhook_url(url: str) -> None:
    from django.core.exceptions import ValidationError

    if not is_webhook_url(url):
        scheme, host = _allowed_origin()
        raise ValidationError(
            f"Only Slack incoming-webhook URLs are accepted: {scheme}://{host}/services/T…/B…/… "
            "(Slack → Apps → Incoming Webhooks)."
        )
