"""The anonymous rate limit: per client IP, counted in a cache every web process shares."""

import logging

from django.conf import settings
from django.core.cache import caches
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)


class AnonymousIpThrottle(SimpleRateThrottle):
    """SIGTRACKER_API_ANON_RATE requests per client IP; a token (or a session) is never limited. Over the limit DRF
    answers 429 with `Retry-After`. Rate and cache are read per request, so settings changes apply at once."""

    scope = "anon"

    def get_rate(self):
        return settings.SIGTRACKER_API_ANON_RATE

    def get_cache_key(self, request, view):
        if request.user and request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allow_request(self, request, view):
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.cache = caches[settings.SIGTRACKER_API_THROTTLE_CACHE]
        try:
            return super().allow_request(request, view)
        except Exception:  # the shared cache (Redis) is down: serve the read rather than fail it
            logger.warning("API throttle cache unreachable; request not rate-limited", exc_info=True)
            return True
