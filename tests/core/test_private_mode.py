"""Private mode (SIGTRACKER_REQUIRE_LOGIN) through a real gunicorn: no WSGI header opens a page without a login.

Gunicorn turns a `SCRIPT_NAME` request header from an address in `forwarded_allow_ips` into the WSGI
SCRIPT_NAME, so `request.path` gains a prefix of the client's choosing while routing still uses `path_info`.
Checking `request.path` against the public prefixes (/healthz, /static/) let anyone read every page.
"""

import pytest

from tests.core.servers import get, production_gunicorn, shared_database_url
from tests.scratch_db import manage

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def private_server(django_db_setup, django_db_blocker, tmp_path_factory):
    with django_db_blocker.unblock():
        database_url = shared_database_url()
    if not database_url:
        # On SQLite (an in-memory test database) a file of its own, holding only what the login page reads: the
        # sign-in providers' table.
        database_url = f"sqlite:///{tmp_path_factory.mktemp('private') / 'db.sqlite3'}"
        manage(database_url, "sigtracker.settings.test", "migrate", "socialaccount", "--noinput", "-v0")
    env = {"SIGTRACKER_REQUIRE_LOGIN": "true", "DATABASE_URL": database_url}
    # '*': every client may set the forwarded headers, as behind a proxy that passes them through.
    with production_gunicorn("--forwarded-allow-ips", "*", **env) as port:
        yield port


@pytest.mark.parametrize(
    "path,script_name",
    [
        ("/releases/", None),
        ("/healthz/releases/", "/healthz"),
        ("/healthz/releases/?_export=csv", "/healthz"),
        ("/healthz/keps/", "/healthz"),
        ("/static/releases/", "/static"),
        ("/admin/login/releases/", "/admin/login"),
    ],
)
def test_a_script_name_header_does_not_open_private_pages(private_server, path, script_name):
    headers = {"SCRIPT_NAME": script_name} if script_name else {}
    status, response_headers, body = get(private_server, path, **headers)
    assert status == 302, (status, body[:300])
    assert "/accounts/login/" in response_headers["Location"]
    assert b"<table" not in body and b"version" not in body.lower()


def test_health_and_login_stay_reachable(private_server):
    assert get(private_server, "/healthz")[0] in (200, 503)  # reachable; its state is another test's business
    assert get(private_server, "/admin/login/")[0] == 200
    assert get(private_server, "/accounts/login/")[0] == 200
