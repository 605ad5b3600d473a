"""ETag / If-None-Match and Cache-Control for every API answer, without running the query on a hit.

The ETag is a hash of the data generation (core/page_cache.py: bumped by database triggers on every write to
the tables the pages and the API read), the full URL, the negotiated format, the caller's identity and
API_REVISION. So the same request answers the same ETag until any data changes, and a matching If-None-Match is
answered 304 after authentication, permission and throttling but before the view reads anything.

Like the page cache, an ETag is sent with a 200 only if no writer was in flight when the generation was read: a
writer bumps the generation before it commits, so a body rendered in between would carry the new generation with
the old data.
"""

import hashlib

from django.conf import settings
from django.utils.cache import patch_vary_headers
from rest_framework.response import Response

from core.page_cache import current_generation, no_writer_in_flight

#: Bump when serializers change what a URL answers, so that clients' ETags from before a deploy do not match.
API_REVISION = "2"


class NotModified(Exception):
    """Raised in `initial()` when If-None-Match matches; answered 304."""


def _matches(header: str, etag: str) -> bool:
    if not header:
        return False
    if header.strip() == "*":
        return True
    # Weak comparison (RFC 9110 13.1.2): a proxy may have weakened our tag when it compressed the body.
    candidates = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return etag in candidates


def compute_etag(request, *, generation: int) -> str:
    renderer = getattr(request, "accepted_renderer", None)
    identity = f"user:{request.user.pk}" if request.user and request.user.is_authenticated else "anonymous"
    raw = "|".join(
        [API_REVISION, str(generation), getattr(renderer, "format", ""), identity, request.build_absolute_uri()]
    )
    return '"' + hashlib.blake2b(raw.encode(), digest_size=16).hexdigest() + '"'


class ConditionalGetMixin:
    """For DRF views: ETag, If-None-Match -> 304, Cache-Control (public for anonymous reads), Vary."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # content negotiation, authentication, permissions, throttles
        self._etag = None
        if request.method not in ("GET", "HEAD"):
            return
        etag = compute_etag(request, generation=current_generation())
        if _matches(request.headers.get("If-None-Match", ""), etag):
            self._etag = etag
            raise NotModified
        if no_writer_in_flight():
            self._etag = etag

    def handle_exception(self, exc):
        if isinstance(exc, NotModified):
            return Response(status=304)
        return super().handle_exception(exc)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        etag = getattr(self, "_etag", None)
        if etag and response.status_code in (200, 304):
            response["ETag"] = etag
        if response.status_code in (200, 304):
            if request.user and request.user.is_authenticated:
                response["Cache-Control"] = "private, no-cache"
            else:
                response["Cache-Control"] = f"public, max-age={settings.SIGTRACKER_API_MAX_AGE}"
        else:
            response["Cache-Control"] = "no-store"
        patch_vary_headers(response, ["Accept", "Authorization", "Cookie"])
        return response
