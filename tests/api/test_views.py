"""The API gives the same rows as the pages for the same filters, in a stable order, page after page."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from releases.choices import EnhancementStatus, EnhancementType, TargetStage
from releases.models import ReleaseStats

pytestmark = pytest.mark.django_db


def _all(client, url):
    """Every row of a list, following the cursor."""
    rows = []
    while url:
        response = client.get(url, HTTP_ACCEPT="application/json")
        assert response.status_code == 200, response.content[:300]
        rows += response.json()["results"]
        url = response.json()["next"]
    return rows


def _page_rows(client, url):
    response = client.get(url)
    assert response.status_code == 200
    return list(response.context["table"].data)


@pytest.mark.parametrize(
    "query",
    ["", "status=at_risk_code", "sig=sig-apps", "q=2002", "q=graceful", "stage=alpha&type=net_new", "q=@alice"],
)
def test_tracked_enhancements_match_the_enhancement_list_page(client, api_data, query):
    api = [row["kep"] for row in _all(client, f"/api/v1/tracked-enhancements/?release=1.28&{query}")]
    page = [row.kep.number for row in _page_rows(client, f"/releases/1.28/enhancements/?{query}")]
    assert api == sorted(page)
    assert api, "each case should select something"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    status=st.sampled_from(["", *EnhancementStatus.values]),
    sig=st.sampled_from(["", "sig-node", "sig-apps"]),
    stage=st.sampled_from(["", *TargetStage.values]),
    type_=st.sampled_from(["", *EnhancementType.values]),
)
def test_any_filter_combination_gives_the_pages_rows(client, api_data, status, sig, stage, type_):
    query = f"status={status}&sig={sig}&stage={stage}&type={type_}"
    api = [row["kep"] for row in _all(client, f"/api/v1/tracked-enhancements/?release=1.28&{query}")]
    page = [row.kep.number for row in _page_rows(client, f"/releases/1.28/enhancements/?{query}")]
    assert api == sorted(page)


@pytest.mark.parametrize(
    ("api_url", "page_url", "api_key", "page_key"),
    [
        ("/api/v1/keps/?owning_sig=sig-node", "/keps/?owning_sig=sig-node", "number", lambda k: k.number),
        ("/api/v1/keps/?stage=beta&author=alice", "/keps/?stage=beta&author=alice", "number", lambda k: k.number),
        ("/api/v1/keps/?release=1.27", "/keps/?release=1.27", "number", lambda k: k.number),
        ("/api/v1/keps/?design_group=graceful-shutdown", "/keps/?design_group=graceful-shutdown", "number",
         lambda k: k.number),
        ("/api/v1/feature-gates/?component=kubelet", "/keps/feature-gates/?component=kubelet", "name",
         lambda g: g.name),
        ("/api/v1/design-groups/?sig=sig-apps", "/design-groups/?sig=sig-apps", "slug", lambda g: g.slug),
        ("/api/v1/meetings/?q=swap", "/meetings/?q=swap", "id", lambda m: m.pk),
        ("/api/v1/meetings/?sig=sig-apps", "/meetings/?sig=sig-apps", "id", lambda m: m.pk),
        ("/api/v1/releases/?state=active", "/releases/?state=active", "version", lambda r: r.version),
    ],
)  # fmt: skip
def test_other_lists_match_their_pages(client, api_data, api_url, page_url, api_key, page_key):
    api = {row[api_key] for row in _all(client, api_url)}
    page = {page_key(row) for row in _page_rows(client, page_url)}
    assert api == page
    assert api


def test_agenda_item_search_is_full_text(postgres_only, client, api_data):
    rows = _all(client, "/api/v1/agenda-items/?q=swapping")  # stemmed: "swapping" finds "swap"
    assert {row["title"] for row in rows} == {f"Swap support update {week}" for week in range(3)}
    assert all(row["url"].startswith("http://testserver/meetings/sig-node/") for row in rows)


def test_a_bad_filter_is_a_400_not_a_500(client, api_data):
    assert client.get("/api/v1/tracked-enhancements/").status_code == 400  # release is required
    assert client.get("/api/v1/tracked-enhancements/?release=9.99").status_code == 400
    assert client.get("/api/v1/keps/?status=nonsense").status_code == 400
    assert client.get("/api/v1/releases/9.99/").status_code == 404


def test_cursor_pages_are_stable_and_complete(client, api_data):
    first = client.get("/api/v1/tracked-enhancements/?release=1.28&page_size=2").json()
    assert [row["kep"] for row in first["results"]] == [2000, 2001]
    rows = _all(client, "/api/v1/tracked-enhancements/?release=1.28&page_size=2")
    assert [row["kep"] for row in rows] == [2000, 2001, 2002, 2003, 2004, 2005]


def test_release_detail_has_milestones_and_stats(client, api_data):
    from releases.services.stats import release_stats_compute

    release_stats_compute(release_ids=[api_data["r128"].pk])
    body = client.get("/api/v1/releases/v1.28/").json()
    assert body["version"] == "1.28"
    assert [m["kind"] for m in body["milestones"]] == ["enhancements_freeze", "code_freeze"]
    stored = ReleaseStats.objects.get(release=api_data["r128"], sig=None)
    assert (body["tracked"], body["done"], body["merge_rate"]) == (stored.tracked, stored.done, stored.merge_rate)
    assert body["tracked"] is not None
    assert {s["sig"] for s in body["stats"]} == {None, "sig-node", "sig-apps"}
    assert body["url"] == "http://testserver/releases/1.28/"


def test_kep_detail_has_people_gates_and_groups(client, api_data):
    body = client.get("/api/v1/keps/2000/").json()
    assert body["authors"] == ["alice"]
    assert body["feature_gates"] == ["GracefulGate0"]
    assert body["design_groups"] == ["graceful-shutdown"]
    assert client.get("/api/v1/keps/99999/").status_code == 404
