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


def test_search_lists_the_best_match_first_then_the_newest(client):
    import datetime

    from tests.factories import AgendaItemFactory, MeetingFactory

    node = SigFactory(slug="sig-node")
    old = MeetingFactory(sig=node, date=datetime.date(2021, 1, 5))
    new = MeetingFactory(sig=node, date=datetime.date(2022, 1, 4))
    AgendaItemFactory(meeting=old, title="Swap swap swap", body="swap, swap and swap")
    AgendaItemFactory(meeting=new, title="Swap", body="")
    newest = MeetingFactory(sig=node, date=datetime.date(2023, 1, 3))
    AgendaItemFactory(meeting=newest, title="Swap", body="")
    meetings = [row["date"] for row in client.get("/api/v1/meetings/?q=swap&page_size=2").json()["results"]]
    items = [row["date"] for row in client.get("/api/v1/agenda-items/?q=swap").json()["results"]]
    from django.db import connection

    if connection.vendor == "postgresql":  # ranked: the item saying "swap" eight times first
        assert meetings == ["2021-01-05", "2023-01-03"] and items == ["2021-01-05", "2023-01-03", "2022-01-04"]
    else:  # every rank is 0: the newest first
        assert meetings == ["2023-01-03", "2022-01-04"] and items == ["2023-01-03", "2022-01-04", "2021-01-05"]
    following = client.get("/api/v1/meetings/?q=swap&page_size=2").json()["next"]
    assert [row["date"] for row in client.get(following).json()["results"]] == (
        ["2022-01-04"] if connection.vendor == "postgresql" else ["2021-01-05"]
    )
