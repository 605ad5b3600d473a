"""The KEP, design-group and meeting pages in headless Chromium, as a KEP wrangler uses them between freezes."""

import csv
import datetime
from pathlib import Path

import pytest

from releases.choices import EnhancementStatus
from releases.models import EnhancementStatusChange
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

pytestmark = [pytest.mark.browser]

SHOTS = Path("/tmp/sigtracker-screenshots")
HOSTILE_BODY = (
    '<script>alert("xss")</script> <img src=x onerror="alert(2)"> [click me](javascript:alert(3)) '
    '<a href="javascript:alert(4)">or me</a> <svg onload="alert(5)"></svg>'
)


def build_world():
    node, sched = SigFactory(slug="sig-node", name="SIG Node"), SigFactory(slug="sig-scheduling")
    releases = {v: ReleaseFactory(version=v, state="released") for v in ("1.23", "1.24", "1.25", "1.26", "1.27")}
    probes = KepFactory(
        number=2727, title="Add gRPC probe to Pod", owning_sig=node, stage="beta", status="implementable",
        alpha_milestone="1.23", beta_milestone="1.24", latest_milestone="1.27",
    )  # fmt: skip
    resize = KepFactory(
        number=1287, title="In-place update of Pod resources", owning_sig=node, stage="beta",
        status="implementable", alpha_milestone="1.27", beta_milestone="1.27", latest_milestone="1.27",
    )  # fmt: skip
    KepFactory(number=624, title="Scheduling framework", owning_sig=sched, stage="stable", status="implemented")
    KepFactory(number=3000, title="Scheduler thing in beta", owning_sig=sched, stage="beta")
    KepFactory(number=4000, title="Node thing in alpha", owning_sig=node, stage="alpha")
    probes.authors.add(PersonFactory(github="SergeyKanzhelev"))
    FeatureGateFactory(kep=probes, name="GRPCContainerProbe", components=["kubelet"])
    removed = TrackedEnhancementFactory(kep=probes, release=releases["1.23"], status=EnhancementStatus.REMOVED)
    EnhancementStatusChange.objects.create(
        tracked_enhancement=removed, from_status="at_risk_code", to_status=EnhancementStatus.REMOVED
    )
    TrackedEnhancementFactory(kep=probes, release=releases["1.24"], target_stage="beta", status=EnhancementStatus.DONE)
    resize_group = DesignGroupFactory(name="In-place resize", slug="in-place-resize", coverage_status="detailed")
    resize_group.sigs.add(node)
    resize_group.keps.add(resize, probes)
    runtime = DesignGroupFactory(name="Node runtime", slug="node-runtime")
    runtime.keps.add(probes)
    meeting = MeetingFactory(
        sig=node, date=datetime.date(2022, 3, 1), title="SIG Node weekly", open_prs=214, prs_created=31, prs_merged=25,
        recording_url="https://www.youtube.com/watch?v=abc",
    )  # fmt: skip
    item = AgendaItemFactory(
        meeting=meeting, order=1, title="Perma-beta review for 1.24", body="Graduate **gRPC probes** to GA.",
        links=["https://github.com/kubernetes/kubernetes/pull/107734"],
    )  # fmt: skip
    item.keps.add(probes)
    AgendaItemFactory(meeting=meeting, order=2, title="Swap: beta blockers", presenters_text="Ike Machado")
    for week in range(1, 8):
        MeetingFactory(
            sig=node, date=datetime.date(2022, 3, 1) + datetime.timedelta(weeks=week), open_prs=214 - 3 * week,
            prs_created=20 + week, prs_merged=18 + (week % 3) * 4,
        )  # fmt: skip
    hostile = MeetingFactory(sig=sched, date=datetime.date(2022, 3, 3), title="SIG Scheduling weekly")
    AgendaItemFactory(meeting=hostile, order=1, title='<img src=x onerror="alert(1)">', body=HOSTILE_BODY)
    return {"meeting": meeting, "hostile": hostile}


def shoot(page, name):
    """Screenshots at desktop and phone width, for a person to look at."""
    SHOTS.mkdir(exist_ok=True)
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_search_meetings_open_result_follow_kep_and_read_timeline(page, live_server, transactional_db):
    build_world()
    page.goto(live_server.url + "/meetings/")
    shoot(page, "meetings")
    page.get_by_label("Search agenda items").fill("perma beta")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**/meetings/?*q=perma+beta*")
    assert page.get_by_role("status").inner_text() == "1 meeting"
    shoot(page, "meetings-search")
    page.get_by_role("link", name="Perma-beta review for 1.24").click()
    page.wait_for_url("**/meetings/sig-node/2022-03-01/#item-1")
    assert page.locator("#item-1 strong").inner_text() == "gRPC probes"  # Markdown rendered
    shoot(page, "meeting-detail")
    page.get_by_role("link", name="KEP-2727").click()
    page.wait_for_url("**/keps/2727/")
    assert "KEP-2727: Add gRPC probe to Pod" in page.locator("h1").inner_text()
    rows = page.locator("#timeline tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator("td").nth(0).inner_text() == "1.23"
    assert "Removed from milestone" in rows.nth(0).inner_text() and "Code freeze" in rows.nth(0).inner_text()
    assert "Done (shipped)" in rows.nth(1).inner_text()
    assert "Slipped 1 time" in page.locator("#slip-count").inner_text()
    assert "Perma-beta review for 1.24" in page.locator(".mentions").inner_text()
    shoot(page, "kep-detail")
    assert page.errors == [] and page.dialogs == []


def test_filter_keps_by_stage_and_sig_then_export_csv(page, live_server, transactional_db):
    build_world()
    page.goto(live_server.url + "/keps/")
    page.get_by_label("Stage").select_option("beta")
    page.get_by_label("Owning SIG").select_option("sig-node")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**/keps/?*stage=beta*")
    numbers = page.locator("table.data-table tbody tr td:first-child").all_inner_texts()
    assert sorted(numbers) == ["1287", "2727"]
    shoot(page, "keps-filtered")
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download CSV").click()
    path = download_info.value.path()
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(r["KEP"] for r in rows) == ["1287", "2727"]
    assert {r["Stage"] for r in rows} == {"beta"} and {r["Owning SIG"] for r in rows} == {"sig-node"}
    assert page.errors == []


def test_open_design_group_and_follow_a_shared_kep_both_ways(page, live_server, transactional_db):
    build_world()
    page.goto(live_server.url + "/design-groups/")
    shoot(page, "design-groups")
    page.get_by_role("link", name="In-place resize").click()
    page.wait_for_url("**/design-groups/in-place-resize/")
    assert page.locator("h1").inner_text() == "In-place resize"
    assert "Detailed write-up" in page.inner_text("main")
    shoot(page, "design-group")
    page.locator("main ul").last.get_by_role("link", name="Node runtime").click()
    page.wait_for_url("**/design-groups/node-runtime/")
    assert page.locator("main ul").last.get_by_role("link", name="In-place resize").is_visible()
    assert page.errors == []


def test_other_kep_pages_render(page, live_server, transactional_db):
    build_world()
    for path, name in (
        ("/keps/perma-beta/", "perma-beta"),
        ("/keps/feature-gates/", "feature-gates"),
        ("/keps/approvers/?release=1.24", "approvers"),
    ):
        page.goto(live_server.url + path)
        assert page.locator("h1").is_visible()
        shoot(page, name)
    page.goto(live_server.url + "/keps/perma-beta/")
    assert page.get_by_label("At least N releases in the stage").input_value() == "3"
    assert page.get_by_role("link", name="2727", exact=True).is_visible()  # beta since 1.24, newest 1.27
    assert page.get_by_role("link", name="1287", exact=True).count() == 0
    assert page.errors == []


def test_hostile_agenda_item_runs_nothing(page, live_server, transactional_db):
    world = build_world()
    page.goto(live_server.url + world["hostile"].get_absolute_url())
    page.get_by_text("click me").click(timeout=2000)  # its javascript: href was dropped: goes nowhere
    page.get_by_text("or me").click(timeout=2000)
    page.mouse.move(10, 10)
    page.wait_for_timeout(200)
    shoot(page, "meeting-hostile")
    assert page.dialogs == []
    assert page.errors == []
    assert page.url.endswith("/meetings/sig-scheduling/2022-03-03/")
    assert page.locator("script").count() == 0
    page.goto(live_server.url + "/meetings/?q=click")
    page.wait_for_timeout(200)
    assert page.dialogs == [] and page.errors == []
