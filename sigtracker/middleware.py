"""Site-wide middleware."""

from django.conf import settings
from django.contrib.auth.views import redirect_to_login

#: Reachable without a login even in private mode: load-balancer checks, the login page itself, static files.
PUBLIC_PREFIXES = ("/healthz", "/admin/login/", "/admin/logout/", "/static/")


class LoginRequiredMiddleware:
    """In private mode (SIGTRACKER_REQUIRE_LOGIN), every page needs a logged-in user."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (
            settings.SIGTRACKER_REQUIRE_LOGIN
            and not request.user.is_authenticated
            and not request.path.startswith(PUBLIC_PREFIXES)
        ):
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return self.get_response(request)
