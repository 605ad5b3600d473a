"""Plan history (kep.yaml on master) on the KEP page, the slips page, perma-beta, the release page and the API."""

import csv
import datetime
import io

import pytest
from django.core.management import call_command

from keps.models import KepPlanChange
from releases.choices import MilestoneKind
from tests.factories import KepFactory, MilestoneFactory, ReleaseFactory, SigFactory, TrackedEnhancementFactory
from tests.keps.git_repos import EnhancementsRepo, kep_yaml

pytestmark = pytest.mark.django_db

RESIZE = "keps/sig-node/1287-in-place-update-pod-resources/kep.yaml"
SIDECAR = "keps/sig-apps/2000-sidecars/kep.yaml"


@pytest.fixture
def history(tmp_path):
    """KEP-1287 planned alpha for 1.22, 1.23, 1.24 (two slips), then beta for 1.25; KEP-2000 slips 1.28 -> 1.29."""
    node, apps = SigFactory(slug="sig-node"), SigFactory(slug="sig-apps")
    resize = KepFactory(
        number=1287,
        title="In-place resize",
        owning_sig=node,
        stage="beta",
        alpha_milestone="1.24",
        beta_milestone="1.25",
    )
    sidecar = KepFactory(number=2000, title="Sidecars", owning_sig=apps, stage="alpha", alpha_milestone="1.20")
    KepFactory(number=3000, title="Quiet", owning_sig=node, stage="alpha")
    repo = EnhancementsRepo(tmp_path / "enhancements")
    for minor, date in [(22, "2021-05-01T10:00:00Z"), (23, "2021-09-01T10:00:00Z"), (24, "2022-01-01T10:00:00Z")]:
        repo.commit({RESIZE: kep_yaml(1287, latest=f"v1.{minor}", milestones={"alpha": f"v1.{minor}"})}, date=date)
    repo.commit(
        {RESIZE: kep_yaml(1287, stage="beta", latest="1.25", milestones={"alpha": "1.24", "beta": "1.25"})},
        date="2022-05-01T10:00:00Z",
    )
    repo.commit({SIDECAR: kep_yaml(2000, latest="1.28")}, date="2023-01-01T10:00:00Z")
    repo.commit({SIDECAR: kep_yaml(2000, latest="1.29")}, date="2023-05-01T10:00:00Z")
    call_command("import_keps", "--history", str(repo.root), verbosity=0)
    TrackedEnhancementFactory(kep=resize, release=ReleaseFactory(version="1.26"), status="removed_from_milestone")
    return {"repo": repo, "resize": resize, "sidecar": sidecar}


def test_kep_page_shows_plan_history_with_commits_and_both_slip_counts(client, history):
    page = client.get("/keps/1287/").content.decode()
    plan = page.split('id="plan-history"')[1].split("</table>")[0]
    assert plan.count("<tr>") == 5  # header and four changes
    assert "latest-milestone: 1.22 → 1.23" in plan and "slipped from 1.22" in plan and "slipped from 1.23" in plan
    assert "stage: alpha → beta" in plan
    head = history["repo"].git("rev-parse", "HEAD~2")
    assert f'href="https://github.com/kubernetes/enhancements/commit/{head}"' in plan
    assert "2022-05-01" in plan
    assert "Slipped <strong>2</strong> times as planned" in page
    assert "Slipped <strong>1</strong> time as tracked" in page
    assert "starts with the first kep.yaml (2020)" in page


def test_kep_timeline_shows_the_plan_at_each_tracked_releases_freeze_beside_the_board(client, history):
    release = history["resize"].tracked_enhancements.get().release
    freeze_at = datetime.datetime(2022, 6, 1, 23, tzinfo=datetime.UTC)
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=freeze_at)
    timeline = client.get("/keps/1287/").content.decode().split('id="timeline"')[1].split("</table>")[0]
    assert "Planned at freeze (kep.yaml)" in timeline
    planned = history["repo"].git("rev-parse", "HEAD~2")[:7]
    assert "beta 1.25 <a href=" in timeline and planned in timeline


def test_kep_page_without_any_history_import_shows_no_plan_section(client):
    KepFactory(number=1287)
    page = client.get("/keps/1287/").content.decode()
    assert 'id="plan-history"' not in page and "as planned" not in page


def test_slips_page_ranks_keps_and_sigs_with_both_sources(client, history):
    page = client.get("/keps/slips/").content.decode()
    table = page.split('id="kep-slips-heading"')[1]
    assert table.index("In-place resize") < table.index("Sidecars")
    assert "Quiet" not in table
    sigs = page.split('id="sig-slips"')[1].split("</table>")[0]
    assert sigs.index("sig-node") < sigs.index("sig-apps")
    assert "1.22: <strong>1</strong>" in page and "1.28: <strong>1</strong>" in page


@pytest.mark.parametrize(
    ("query", "numbers"),
    [
        ("", {"1287", "2000"}),
        ("?owning_sig=sig-apps", {"2000"}),
        ("?stage=beta", {"1287"}),
        ("?since=1.25", {"2000", "1287"}),  # 1287 stays for its tracked slip; its planned slips are out of range
        ("?since=1.25&min_slips=1", {"2000"}),
        ("?until=1.22&min_slips=1", {"1287"}),
        ("?min_slips=2", {"1287"}),
    ],
)
def test_slips_page_filters_and_csv(client, history, query, numbers):
    sep = "&" if query else "?"
    rows = list(csv.DictReader(io.StringIO(client.get(f"/keps/slips/{query}{sep}_export=csv").content.decode())))
    assert {row["KEP"] for row in rows} == numbers
    if query == "?since=1.25":
        assert {row["KEP"]: row["Slips (planned)"] for row in rows} == {"1287": "0", "2000": "1"}


def test_perma_beta_sorts_by_planned_slips(client, history):
    ReleaseFactory(version="1.30", state="active")
    rows = list(
        csv.DictReader(
            io.StringIO(client.get("/keps/perma-beta/?stage=&min_releases=1&sort=-slips&_export=csv").content.decode())
        )
    )
    assert [(row["KEP"], row["Slips (planned)"]) for row in rows] == [("1287", "2"), ("2000", "1")]
    by_releases = client.get("/keps/perma-beta/?stage=&min_releases=1&_export=csv").content.decode()
    assert [row["KEP"] for row in csv.DictReader(io.StringIO(by_releases))] == ["2000", "1287"]


def test_release_page_counts_keps_planned_at_end_of_freeze_day_pacific(client, history):
    release = ReleaseFactory(version="1.29")
    # Freeze on 2023-04-30 at 23:00 PDT: KEP-2000's move to 1.29 merged 2023-05-01 10:00 UTC (03:00 PDT), the next
    # day, so at the end of freeze day it still planned 1.28.
    MilestoneFactory(
        release=release,
        kind=MilestoneKind.ENHANCEMENTS_FREEZE,
        at=datetime.datetime(2023, 5, 1, 6, tzinfo=datetime.UTC),
    )
    page = client.get("/releases/1.29/").content.decode()
    assert "<strong>0</strong> KEPs planned v1.29 at its enhancements freeze" in page
    release_28 = ReleaseFactory(version="1.28")
    MilestoneFactory(
        release=release_28,
        kind=MilestoneKind.ENHANCEMENTS_FREEZE,
        at=datetime.datetime(2023, 5, 1, 6, tzinfo=datetime.UTC),
    )
    page = client.get("/releases/1.28/").content.decode()
    assert "<strong>1</strong> KEP planned v1.28 at its enhancements freeze" in page


def test_api_kep_detail_carries_plan_history_and_slips(client, history):
    data = client.get("/api/v1/keps/1287/").json()
    assert data["slips"] == {"planned": 2, "tracked": 1}
    assert [change["target_milestone"] for change in data["plan_history"]] == ["1.22", "1.23", "1.24", "1.25"]
    assert [change["slipped_from"] for change in data["plan_history"]] == ["", "1.22", "1.23", ""]
    assert data["plan_history"][0]["commit_url"].startswith("https://github.com/kubernetes/enhancements/commit/")


@pytest.mark.parametrize(("minimum", "numbers"), [(0, [1287, 2000, 3000]), (1, [1287, 2000]), (2, [1287]), (3, [])])
def test_api_kep_list_filters_by_minimum_planned_slips(client, history, minimum, numbers):
    data = client.get(f"/api/v1/keps/?min_slips={minimum}").json()
    assert [row["number"] for row in data["results"]] == numbers


def test_stored_slips_match_the_rule(history):
    assert list(KepPlanChange.objects.exclude(slipped_from="").values_list("kep_number", "slipped_from")) == [
        (1287, "1.22"),
        (1287, "1.23"),
        (2000, "1.28"),
    ]
