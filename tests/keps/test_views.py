"""The KEP, perma-beta, feature-gate, approver and design-group pages as an anonymous visitor sees them."""

import csv
import datetime
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from community.models import Sig
from keps.models import FeatureGate, Kep
from releases.models import Release
from tests.factories import (
    AgendaItemFactory,
    DesignGroupFactory,
    FeatureGateFactory,
    KepFactory,
    MeetingFactory,
    PersonFactory,
    ReleaseFactory,
    SigFactory,
    TrackedEnhancementFactory,
)
from tests.worlds import MAX_QUERIES, build_world

pytestmark = pytest.mark.django_db
# --- anonymous visitors, 404s ---------------------------------------------------------------------------


PAGES = [
    "/keps/",
    "/keps/1/",
    "/keps/perma-beta/",
    "/keps/feature-gates/",
    "/keps/approvers/",
    "/design-groups/",
    "/design-groups/node-runtime/",
]


@pytest.mark.parametrize("url", PAGES)
def test_pages_open_to_anonymous_visitors(client, url):
    build_world(3)
    response = client.get(url)
    assert response.status_code == 200
    assert b"<h1>" in response.content


@pytest.mark.parametrize(
    ("url", "empty_hint"),
    [
        ("/keps/", "import kep.yaml files"),
        ("/keps/perma-beta/", "No release is known yet"),
        ("/keps/feature-gates/", "feature-gates"),
        ("/keps/approvers/", "No release exists yet"),
        ("/design-groups/", "Curators create them in the admin"),
    ],
)
def test_empty_pages_say_what_to_do(client, url, empty_hint):
    response = client.get(url)
    assert response.status_code == 200
    assert empty_hint in response.content.decode()


@pytest.mark.parametrize("url", ["/keps/99999/", "/keps/0/", "/keps/abc/", "/design-groups/no-such-group/"])
def test_unknown_kep_or_group_is_404(client, url):
    build_world(2)
    assert client.get(url).status_code == 404


# --- /keps/ ---------------------------------------------------------------------------------------------


def test_kep_list_filters_sorts_and_paginates(client):
    build_world(60)
    page = client.get("/keps/", {"owning_sig": "sig-node", "stage": "beta"}).content.decode()
    assert "30 KEPs" in page
    second = client.get("/keps/", {"page": 2}).content.decode()
    assert 'href="/keps/51/"' in second and 'href="/keps/50/"' not in second
    ordered = client.get("/keps/", {"sort": "-number"}).content.decode()
    assert ordered.index('href="/keps/60/"') < ordered.index('href="/keps/59/"')


def test_kep_list_csv_keeps_the_filters(client):
    build_world(20)
    response = client.get("/keps/", {"owning_sig": "sig-scheduling", "q": "1", "_export": "csv"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert sorted(int(r["KEP"]) for r in rows) == [10, 12, 14, 16, 18]
    assert {r["Owning SIG"] for r in rows} == {"sig-scheduling"}
    assert rows[0]["Design groups"] == "Node runtime"


def test_kep_list_invalid_filter_shows_the_error_and_no_rows(client):
    build_world(3)
    page = client.get("/keps/", {"owning_sig": "sig-nope"}).content.decode()
    assert "Select a valid choice" in page
    assert "0 KEPs" in page


# --- /keps/<number>/ ------------------------------------------------------------------------------------


def test_kep_detail_shows_metadata_gates_prr_groups_timeline_and_mentions(client):
    sig = SigFactory(slug="sig-node")
    kep = KepFactory(number=1287, title="In-place pod resize", owning_sig=sig, stage="beta", alpha_milestone="1.27")
    FeatureGateFactory(kep=kep, name="InPlacePodVerticalScaling", components=["kubelet", "kube-apiserver"])
    approver = PersonFactory(github="jpbetz")
    kep.prr_approvals.create(stage="alpha", approver=approver)
    group = DesignGroupFactory(name="In-place resize")
    group.keps.add(kep)
    TrackedEnhancementFactory(kep=kep, release=ReleaseFactory(version="1.26"), status="removed_from_milestone")
    TrackedEnhancementFactory(kep=kep, release=ReleaseFactory(version="1.27"), status="done", target_stage="alpha")
    old = AgendaItemFactory(meeting=MeetingFactory(date=datetime.date(2022, 3, 1)), title="resize design", order=1)
    new = AgendaItemFactory(meeting=MeetingFactory(date=datetime.date(2023, 5, 2)), title="resize beta plan", order=2)
    old.keps.add(kep)
    new.keps.add(kep)
    page = client.get("/keps/1287/").content.decode()
    assert "KEP-1287: In-place pod resize" in page
    assert "InPlacePodVerticalScaling" in page and "kubelet, kube-apiserver" in page
    assert "@jpbetz" in page
    assert group.get_absolute_url() in page
    assert "Slipped <strong>1</strong> time " in page
    assert 'href="/releases/1.26/"' in page
    assert "Reached <strong>alpha</strong> in 1.27" in page
    # The timeline's badges read the rules: shipped is "ok", a slip is "bad".
    assert '<span class="badge ok">Done (shipped)</span>' in page
    assert '<span class="badge bad">Removed from milestone</span>' in page
    assert page.index("resize beta plan") < page.index("resize design")
    assert 'href="/meetings/sig-node/2023-05-02/#item-2"' in page


# --- /keps/perma-beta/ ----------------------------------------------------------------------------------


def test_perma_beta_page_defaults_to_three_releases(client):
    ReleaseFactory(version="1.25")
    KepFactory(number=11, stage="beta", beta_milestone="1.22")
    KepFactory(number=12, stage="beta", beta_milestone="1.23")
    page = client.get("/keps/perma-beta/").content.decode()
    assert 'name="min_releases" value="3"' in page
    assert 'href="/keps/11/"' in page and 'href="/keps/12/"' not in page
    page = client.get("/keps/perma-beta/", {"min_releases": 2}).content.decode()
    assert 'href="/keps/12/"' in page


def test_perma_beta_csv(client):
    build_world(5)
    response = client.get("/keps/perma-beta/", {"_export": "csv"})
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 5
    assert {r["Releases in stage"] for r in rows} == {"6"}
    assert rows[0]["Feature gates"].startswith("Gate")


def test_perma_beta_invalid_n_is_an_error_not_a_crash(client):
    response = client.get("/keps/perma-beta/", {"min_releases": "many"})
    assert response.status_code == 200
    assert "Enter a number" in response.content.decode()


# --- other lists ----------------------------------------------------------------------------------------


def test_feature_gate_ledger_and_csv(client):
    build_world(4)
    page = client.get("/keps/feature-gates/", {"component": "kubelet"}).content.decode()
    assert "4 feature gates" in page
    rows = list(csv.DictReader(io.StringIO(client.get("/keps/feature-gates/?q=Gate2&_export=csv").content.decode())))
    assert [r["Feature gate"] for r in rows] == ["Gate2"]
    assert rows[0]["Beta"] == "planned 1.22"


def test_feature_gate_ledger_separates_planned_from_reached(client):
    """kep.yaml's milestones are plans ("Stable in 1.40"); a stage is reached when a release shipped it."""
    sig = Sig.objects.create(slug="sig-node")
    kep = Kep.objects.create(
        number=4321,
        title="Gate KEP",
        owning_sig=sig,
        stage="beta",
        alpha_milestone="1.30",
        beta_milestone="1.32",
        stable_milestone="1.40",
    )
    FeatureGate.objects.create(kep=kep, name="SomeGate", components=["kubelet"])
    r30, r33 = Release.objects.create(version="1.30"), Release.objects.create(version="1.33")
    TrackedEnhancementFactory(release=r30, kep=kep, sig=sig, target_stage="alpha", status="done")
    # Beta slipped a release: planned for 1.32, shipped in 1.33.
    TrackedEnhancementFactory(release=r33, kep=kep, sig=sig, target_stage="beta", status="done")
    (row,) = csv.DictReader(io.StringIO(client.get("/keps/feature-gates/?_export=csv").content.decode()))
    assert (row["Alpha"], row["Beta"], row["Stable"]) == ("reached 1.30", "reached 1.33 (planned 1.32)", "planned 1.40")
    page = client.get("/keps/feature-gates/").content.decode()
    assert "planned 1.40" in page and "<strong" in page


def test_approver_page_counts_link_to_filtered_kep_list(client):
    build_world(6)
    page = client.get("/keps/approvers/").content.decode()
    assert "Review load in 1.28" in page
    assert 'href="/keps/?approver=person0&amp;release=1.28">6</a>' in page
    assert 'href="/keps/?prr_approver=person5&amp;release=1.28">6</a>' in page
    listed = client.get("/keps/", {"approver": "person0", "release": "1.28"}).content.decode()
    assert "6 KEPs" in listed
    older = client.get("/keps/approvers/", {"release": "1.22"}).content.decode()
    assert "Review load in 1.22" in older


def test_design_group_warning_past_20_active_keps(client):
    group = DesignGroupFactory(slug="scheduler-core", name="Scheduler core")
    group.keps.add(*[KepFactory(status="implementable") for _ in range(20)])
    assert "Split this group" not in client.get("/design-groups/scheduler-core/").content.decode()
    assert "split it" not in client.get("/design-groups/").content.decode()
    group.keps.add(KepFactory(status="provisional"))
    page = client.get("/design-groups/scheduler-core/").content.decode()
    assert "Split this group" in page and "21 active KEPs" in page
    assert "over 20 — split it" in client.get("/design-groups/").content.decode()


def test_design_group_count_links_to_filtered_kep_list(client):
    build_world(3)
    page = client.get("/design-groups/").content.decode()
    assert 'href="/keps/?design_group=node-runtime">3</a>' in page
    detail = client.get("/design-groups/dra/").content.decode()
    assert 'href="/design-groups/node-runtime/">Node runtime</a>' in detail


# --- query counts ---------------------------------------------------------------------------------------


SCALED_PAGES = [
    *PAGES,
    "/keps/?owning_sig=sig-node&stage=beta&release=1.28&design_group=node-runtime&approver=person0",
    "/keps/?_export=csv",
    "/keps/slips/",
    "/keps/slips/?_export=csv",
    "/keps/perma-beta/?_export=csv",
    "/keps/feature-gates/?_export=csv",
    "/keps/approvers/?_export=csv",
    "/design-groups/?_export=csv",
]


def _queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured)


def test_query_counts_constant_from_10_to_1000_rows(client):
    build_world(10)
    small = {url: _queries(client, url) for url in SCALED_PAGES}
    build_world(990, start=10)
    assert Kep.objects.count() == 1000
    large = {url: _queries(client, url) for url in SCALED_PAGES}
    assert large == small
    assert max(large.values()) <= MAX_QUERIES, large


@pytest.mark.parametrize("url", [url for url in SCALED_PAGES if "_export=csv" in url])
def test_csv_exports_hold_plain_values_not_html(client, url):
    build_world(3)
    response = client.get(url)
    body = response.content.decode()
    assert response["Content-Type"].startswith("text/csv")
    assert len(body.splitlines()) >= 2
    assert "<" not in body and "&amp;" not in body, body[:500]
