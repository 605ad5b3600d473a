"""ETag and If-None-Match: a repeat read costs one query and no body until the data changes."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from releases.choices import EnhancementStatus
from releases.models import TrackedEnhancement
from releases.services.tracking import tracked_enhancement_set_status

pytestmark = pytest.mark.django_db

URL = "/api/v1/tracked-enhancements/?release=1.28"


def test_every_answer_has_an_etag_and_anonymous_ones_may_be_cached(client, api_data):
    for url in [URL, "/api/v1/", "/api/v1/releases/1.28/", "/api/v1/schema/", "/api/v1/keps/"]:
        response = client.get(url)
        assert response.status_code == 200
        assert response["ETag"].startswith('"')
        assert response["Cache-Control"].startswith("public, max-age=")
        assert "Authorization" in response["Vary"]


def test_if_none_match_is_a_304_without_running_the_query(client, api_data):
    etag = client.get(URL)["ETag"]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(URL, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag
    assert len(queries) <= 1  # the data generation; no tracked enhancement is read
    assert client.get(URL, HTTP_IF_NONE_MATCH=f'W/{etag}, "other"').status_code == 304


def test_a_change_makes_a_new_etag(client, api_data):
    etag = client.get(URL)["ETag"]
    row = TrackedEnhancement.objects.filter(release=api_data["r128"], kep__number=2000).get()
    tracked_enhancement_set_status(tracked_enhancement=row, status=EnhancementStatus.TRACKED_CODE, author="carol")
    response = client.get(URL, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response["ETag"] != etag
    assert response.json()["results"][0]["status"] == "tracked_code"


def test_the_etag_depends_on_the_url_format_and_caller(client, api_data, api_token):
    anonymous = client.get(URL)["ETag"]
    assert client.get(URL + "&status=done")["ETag"] != anonymous
    assert client.get(URL, HTTP_ACCEPT="text/html")["ETag"] != anonymous
    with_token = client.get(URL, HTTP_AUTHORIZATION=f"Token {api_token}")
    assert with_token["ETag"] != anonymous
    assert with_token["Cache-Control"] == "private, no-cache"
    assert client.get(URL, HTTP_IF_NONE_MATCH=anonymous, HTTP_AUTHORIZATION=f"Token {api_token}").status_code == 200
