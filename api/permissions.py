from django.conf import settings
from rest_framework import exceptions, permissions


class PublicReadOnly(permissions.BasePermission):
    """Reads only. Anyone may read what the public pages show; in private mode (SIGTRACKER_REQUIRE_LOGIN) only a
    token or a logged-in session may, and anyone else gets a 401 in JSON (the site's login middleware lets /api/
    through so that a script gets an answer it can read rather than a redirect to a login form).

    A write is refused whoever sends it, with what is missing: the API has no write endpoint (changes are made
    on the site's pages, under each SIG's permission policy), never "private" (a valid token is not the problem)."""

    message = "This sigtracker is private: send 'Authorization: Token <key>'."

    def has_permission(self, request, view):
        if request.method not in permissions.SAFE_METHODS:
            raise exceptions.PermissionDenied(
                f"The API is read-only: {request.method} is not accepted by any of its endpoints, whatever the token. "
                "Changes are made on sigtracker's pages, signed in as someone the SIG's policy allows "
                "(e.g. a lead of that SIG)."
            )
        if settings.SIGTRACKER_REQUIRE_LOGIN and not (request.user and request.user.is_authenticated):
            raise exceptions.NotAuthenticated(self.message)
        return True
