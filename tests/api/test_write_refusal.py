"""A write to the API says what is missing (the API takes no writes), never that the site is private."""

import pytest

from tests.api.test_access import URL


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
@pytest.mark.parametrize("private", [False, True], ids=["public", "private"])
def test_a_write_with_a_valid_token_says_the_api_is_read_only(client, api_data, api_token, settings, method, private):
    settings.SIGTRACKER_REQUIRE_LOGIN = private
    auth = {"HTTP_AUTHORIZATION": f"Token {api_token}"}
    response = getattr(client, method)(URL, {}, content_type="application/json", **auth)
    assert response.status_code == 403
    detail = response.json()["detail"]
    assert "read-only" in detail and method.upper() in detail and "private" not in detail
