"""Writes of the api app: making tokens (the admin and `create_api_token` call this)."""

import secrets

from .models import ApiToken, hash_key

KEY_PREFIX = "sgt_"


def api_token_create(*, user, name: str, token: ApiToken | None = None) -> tuple[ApiToken, str]:
    """A new token for `user`; returns it and its key, which is not stored and cannot be shown again.
    `token` is an unsaved instance to fill (the admin's form)."""
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = token or ApiToken()
    token.user = user
    token.name = name
    token.prefix = key[: len(KEY_PREFIX) + 4]
    token.key_hash = hash_key(key)
    token.save()
    return token, key
