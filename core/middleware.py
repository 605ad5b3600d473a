"""Site-wide middleware."""

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponseBadRequest, JsonResponse
from django.utils.cache import add_never_cache_headers

from . import health, metrics

#: Sign-in with GitHub (allauth), one-click unsubscribe (a mail provider POSTs it with no session, RFC 8058) and a
#: person's calendar (a calendar app fetches it with no session; a secret in the URL guards it).
PEOPLE_PUBLIC_PREFIXES = ("/accounts/", "/unsubscribe/", "/me/calendar/")
#: Reachable without a login even in private mode: load-balancer checks, the login page itself, static files.
#: Matched against `path_info`, the path the URL resolver routes, never `path`: `path` starts with SCRIPT_NAME,
#: which a client can set (gunicorn maps a `SCRIPT_NAME` header from `forwarded_allow_ips`), so
#: `SCRIPT_NAME: /healthz` on `/healthz/releases/` would pass for /healthz and still route to /releases/.
PUBLIC_PATHS = ("/healthz",)
PUBLIC_PREFIXES = ("/admin/login/", "/admin/logout/", "/static/", *PEOPLE_PUBLIC_PREFIXES)
#: Not redirected to the login form: the API answers anonymous requests itself, 401 in JSON in private mode
#: (api/permissions.py), which a script can read.
SELF_GUARDED_PREFIXES = ("/api/",)


def is_public_path(path_info: str) -> bool:
    return path_info in PUBLIC_PATHS or path_info.startswith(PUBLIC_PREFIXES)


class LoginRequiredMiddleware:
    """In private mode (SIGTRACKER_REQUIRE_LOGIN), every page needs a logged-in user."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (
            settings.SIGTRACKER_REQUIRE_LOGIN
            and not request.user.is_authenticated
            and not is_public_path(request.path_info)
            and not request.path_info.startswith(SELF_GUARDED_PREFIXES)
        ):
            return redirect_to_login(request.get_full_path(), settings.LOGIN_URL)
        return self.get_response(request)


class RejectNulMiddleware:
    """A NUL character in a path or a query parameter is never a page: answer 400 before any view turns it into a
    database query.

    PostgreSQL refuses NUL in text, so `/releases/%00/`, `/feeds/releases/%00/status.atom`, `/me/calendar/%00.ics`
    or a filter such as `/api/v1/tracked-enhancements/?release=%00` (a model-choice lookup) would otherwise fail
    with a 500 in whichever view looks the value up. One check here covers every route and filter, present and
    future.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path_info or any(
            "\x00" in key or any("\x00" in value for value in values) for key, values in request.GET.lists()
        ):
            return HttpResponseBadRequest("A URL cannot contain a NUL character.", content_type="text/plain")
        return self.get_response(request)


class OpsEndpointsMiddleware:
    """Answers the probes (/livez, /readyz) and /metrics before anything else looks at the request.

    The kubelet and Prometheus reach a pod by its IP address, over plain HTTP: the host check (ALLOWED_HOSTS) would
    answer 400 and the HTTPS redirect 301, so these three are served ahead of SecurityMiddleware and CommonMiddleware.
    They read nothing from the request but the path and, for /metrics, the peer address (core/metrics.py).
    """

    PROBES = {"/livez": health.liveness, "/readyz": health.readiness}

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        path = request.path_info
        if path in self.PROBES:
            request.sigtracker_view, request.sigtracker_quiet = path.lstrip("/"), True
            status, body = self.PROBES[path]()
            response = JsonResponse(body, status=status)
        elif path == "/metrics":
            request.sigtracker_view, request.sigtracker_quiet = "metrics", True
            response = metrics.metrics_response(request)
        else:
            return self.get_response(request)
        add_never_cache_headers(response)
        return response
