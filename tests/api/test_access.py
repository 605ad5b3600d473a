"""Who may read: anonymous within the per-IP limit, tokens without it, and in private mode only tokens."""

import pytest
from django.core.management import CommandError, call_command

from api.models import ApiToken

pytestmark = pytest.mark.django_db

URL = "/api/v1/tracked-enhancements/?release=1.28"


def test_anonymous_reads_are_rate_limited_with_retry_after(client, api_data, settings):
    settings.SIGTRACKER_API_ANON_RATE = "3/minute"
    for _ in range(3):
        assert client.get(URL).status_code == 200
    response = client.get(URL)
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    assert "throttled" in response.json()["detail"].lower()
    assert response["Cache-Control"] == "no-store"


def test_the_limit_is_per_ip(client, api_data, settings):
    settings.SIGTRACKER_API_ANON_RATE = "1/minute"
    assert client.get(URL, REMOTE_ADDR="10.0.0.1").status_code == 200
    assert client.get(URL, REMOTE_ADDR="10.0.0.1").status_code == 429
    assert client.get(URL, REMOTE_ADDR="10.0.0.2").status_code == 200
    # A forged X-Forwarded-For does not make a new client (no proxy is configured).
    assert client.get(URL, REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4").status_code == 429


def test_a_token_lifts_the_limit(client, api_data, api_token, settings):
    settings.SIGTRACKER_API_ANON_RATE = "1/minute"
    for _ in range(5):
        assert client.get(URL, HTTP_AUTHORIZATION=f"Token {api_token}").status_code == 200
    assert client.get(URL, HTTP_AUTHORIZATION=f"Bearer {api_token}").status_code == 200


@pytest.mark.parametrize("header", ["Token nope", "Token", "Token a b", "Bearer sgt_forged"])
def test_a_bad_token_is_a_401(client, api_data, header):
    response = client.get(URL, HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Token")


def test_a_token_of_an_inactive_user_is_refused(client, api_data, api_token, token_user):
    token_user.is_active = False
    token_user.save()
    assert client.get(URL, HTTP_AUTHORIZATION=f"Token {api_token}").status_code == 401


def test_tokens_are_stored_hashed(api_token):
    token = ApiToken.objects.get()
    assert api_token not in (token.key_hash, token.prefix)
    assert api_token.startswith(token.prefix)


def test_private_mode_answers_anonymous_with_a_json_401_not_a_redirect(client, api_data, api_token, settings):
    settings.SIGTRACKER_REQUIRE_LOGIN = True
    response = client.get(URL)
    assert response.status_code == 401
    assert response["Content-Type"] == "application/json"
    assert "private" in response.json()["detail"]
    assert client.get("/api/v1/schema/").status_code == 401
    assert client.get(URL, HTTP_AUTHORIZATION=f"Token {api_token}").status_code == 200
    # The pages still send people to the login form.
    assert client.get("/releases/").status_code == 302


def test_a_logged_in_session_reads_in_private_mode(client, api_data, token_user, settings):
    settings.SIGTRACKER_REQUIRE_LOGIN = True
    client.force_login(token_user)
    assert client.get(URL).status_code == 200


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_nothing_is_writable(client, api_data, api_token, method):
    before = client.get("/api/v1/sigs/sig-node/").json()
    response = getattr(client, method)(
        "/api/v1/sigs/sig-node/",
        {"name": "x"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {api_token}",
    )
    assert response.status_code in (403, 405)
    assert client.get("/api/v1/sigs/sig-node/").json() == before


def test_create_api_token_prints_a_working_key(client, api_data, token_user, capsys):
    call_command("create_api_token", token_user.username, "--name", "slack bot", verbosity=0)
    key = capsys.readouterr().out.strip()
    assert ApiToken.objects.get().name == "slack bot"
    assert client.get(URL, HTTP_AUTHORIZATION=f"Token {key}").status_code == 200


def test_create_api_token_refuses_an_unknown_user(db):
    with pytest.raises(CommandError, match="no user"):
        call_command("create_api_token", "nobody", verbosity=0)


def test_an_admin_makes_a_token_and_sees_its_key_once(client, api_data, admin_user, token_user):
    client.force_login(admin_user)
    response = client.post("/admin/api/apitoken/add/", {"user": token_user.pk, "name": "dashboard"}, follow=True)
    assert response.status_code == 200
    token = ApiToken.objects.get()
    (message,) = [str(m) for m in response.context["messages"] if "copy it now" in str(m)]
    key = message.split(" is ", 1)[1].split(" ", 1)[0]
    assert key.startswith(token.prefix)
    client.logout()
    assert client.get(URL, HTTP_AUTHORIZATION=f"Token {key}").status_code == 200
    assert key.encode() not in client.get(f"/admin/api/apitoken/{token.pk}/change/").content
