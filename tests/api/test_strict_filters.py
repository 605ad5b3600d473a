"""List filters the API has, and an unknown one refused with a 400 that names it, never silently ignored."""

import pytest

from tests.factories import KepFactory, SigFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def keps():
    node, apps = SigFactory(slug="sig-node"), SigFactory(slug="sig-apps")
    KepFactory(number=101, owning_sig=node, latest_milestone="1.37")
    KepFactory(number=102, owning_sig=node, latest_milestone="1.37")
    KepFactory(number=103, owning_sig=apps, latest_milestone="1.37")
    KepFactory(number=104, owning_sig=node, latest_milestone="1.36")


def _numbers(client, query):
    response = client.get(f"/api/v1/keps/?{query}")
    assert response.status_code == 200, response.content[:300]
    return sorted(row["number"] for row in response.json()["results"])


def test_latest_milestone_filters_and_combines_with_owning_sig(client, keps):
    assert _numbers(client, "latest_milestone=1.37") == [101, 102, 103]
    assert _numbers(client, "latest_milestone=v1.37&owning_sig=sig-node") == [101, 102]
    assert _numbers(client, "latest_milestone=1.36") == [104]
    # The KEP list page has the same filter (one FilterSet for both).
    page = client.get("/keps/?latest_milestone=1.36")
    assert [kep.number for kep in page.context["table"].data] == [104]


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/keps/?latest_milestne=1.37",
        "/api/v1/releases/?foo=1",
        "/api/v1/tracked-enhancements/?release=1.37&bogus=x",
        "/api/v1/meetings/?sig=sig-node&colour=red",
        "/api/v1/sigs/?nope=",
    ],
)
def test_an_unknown_filter_is_refused_naming_it(client, keps, url):
    response = client.get(url)
    assert response.status_code == 400
    body = response.json()
    (name,) = body
    assert name in url and f"Unknown query parameter '{name}'" in body[name][0]
    assert "this list filters by" in body[name][0]


def test_pagination_and_format_are_not_filters(client, keps):
    first = client.get("/api/v1/keps/?page_size=2&format=json")
    assert first.status_code == 200 and len(first.json()["results"]) == 2
    following = client.get(first.json()["next"])
    assert following.status_code == 200 and "cursor=" in first.json()["next"]
    assert client.get("/api/v1/keps/?ordering=number&page=1").status_code == 200
    # One row by its key takes no filters and is not refused for them.
    assert client.get("/api/v1/keps/101/?utm_source=x").status_code == 200
