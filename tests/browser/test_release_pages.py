"""The release pages in headless Chromium, as a SIG lead uses them: dashboard → release → enhancements → CSV → KEP."""

import csv
import datetime
import re
from pathlib import Path

import pytest
from django.utils import timezone

from releases.choices import EnhancementStatus, MilestoneKind, ReleaseState
from releases.models import ReleaseStats
from retros.choices import ActionStatus, RetroCategory
from tests.factories import (
    KepFactory,
    MeetingFactory,
    MilestoneFactory,
    PersonFactory,
    ReleaseFactory,
    RetroItemFactory,
    RetrospectiveFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

pytestmark = [pytest.mark.browser]

SHOTS = Path("/tmp/sigtracker-screenshots")
HOSTILE = '<script>alert("xss")</script><img src=x onerror="alert(2)"><a href="javascript:alert(3)">click</a>'


def build_release(*, hostile: bool = False):
    """v1.24, active, code freeze in 4 days; five tracked KEPs of which two removed, one at risk for code freeze."""
    now = timezone.now()
    release = ReleaseFactory(
        version="1.24",
        name="Stargazer",
        state=ReleaseState.ACTIVE,
        cycle_start=(now - datetime.timedelta(days=60)).date(),
        planned_release_date=(now + datetime.timedelta(days=30)).date(),
    )
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=now - datetime.timedelta(days=20))
    MilestoneFactory(
        release=release, kind=MilestoneKind.CODE_FREEZE, at=(now + datetime.timedelta(days=4)).replace(microsecond=0)
    )
    MilestoneFactory(release=release, kind=MilestoneKind.RELEASE, at=now + datetime.timedelta(days=30), all_day=True)
    node = SigFactory(slug="sig-node")
    title = HOSTILE if hostile else "In-place update of Pod resources"
    rows = [
        (2727, "Add gRPC probe", EnhancementStatus.DONE),
        (1287, title, EnhancementStatus.REMOVED),
        (127, "Support user namespaces", EnhancementStatus.REMOVED),
        (3063, "Dynamic resource allocation", EnhancementStatus.AT_RISK_CODE),
        (2008, "Forensic container checkpointing", EnhancementStatus.TRACKED_CODE),
    ]
    for number, kep_title, status in rows:
        TrackedEnhancementFactory(
            release=release,
            kep=KepFactory(number=number, title=kep_title, owning_sig=node),
            status=status,
            enhancements_contact=PersonFactory(github=f"contact{number}"),
        )
    ReleaseStats.objects.create(release=release, tracked=5, done=1, removed=2, merge_rate=0.2)
    retro = RetrospectiveFactory(
        release=release, sig=node, source_url="javascript:alert(4)" if hostile else "https://example.org/retro"
    )
    if hostile:
        type(release).objects.filter(pk=release.pk).update(source_url="javascript:alert(5)")
    RetroItemFactory(
        retrospective=retro, category=RetroCategory.WENT_WELL, text=HOSTILE if hostile else "Soft freeze helped"
    )
    RetroItemFactory(
        retrospective=retro,
        category=RetroCategory.ACTION_ITEM,
        text=HOSTILE if hostile else "No changes without tests",
        owner=PersonFactory(github="derekwaynecarr"),
        status=ActionStatus.OPEN,
    )
    MeetingFactory(sig=node, date=now.date() - datetime.timedelta(days=1), title=HOSTILE if hostile else "Weekly")
    return release


def shot(page, name):
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_dashboard_release_filter_sort_export_and_kep_link(page, live_server, transactional_db):
    build_release()
    page.goto(live_server.url + "/")
    assert page.locator("h1").inner_text().startswith("Kubernetes v1.24")
    countdown = page.locator("#countdown").inner_text()
    assert re.fullmatch(r"in (3|4) days?, \d+ h \d+ min", countdown), countdown
    # The reader's own zone, added by the inline script (Chromium's zone here is the machine's).
    local = page.locator("#local-time")
    assert local.is_visible() and "(" in local.inner_text()
    risk = page.locator("section[aria-labelledby=risk-heading]")
    assert "KEP-3063" in risk.inner_text() and "KEP-2008" not in risk.inner_text()
    assert "No changes without tests" in page.locator("section[aria-labelledby=actions-heading]").inner_text()
    shot(page, "dashboard-1280")

    page.locator("h1 a", has_text="v1.24").click()
    page.wait_for_url("**/releases/1.24/")
    assert "Kubernetes v1.24" in page.locator("h1").inner_text()
    next_row = page.locator("table.schedule tr.next")
    assert next_row.count() == 1 and "Code freeze" in next_row.inner_text()
    assert page.locator("table.schedule tr.past").count() == 1
    assert "Soft freeze helped" in page.locator("#retro").inner_text()
    shot(page, "release-1280")

    page.get_by_role("link", name="Filter, sort and export").click()
    page.wait_for_url("**/releases/1.24/enhancements/")
    assert page.locator("#result-count").inner_text() == "5 enhancements"
    page.get_by_label("Status").select_option(label="Removed from milestone")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r".*status=removed_from_milestone.*"))
    assert page.locator("#result-count").inner_text() == "2 enhancements"
    rows = page.locator("table.data-table tbody tr")
    assert rows.count() == 2

    # Sorted by KEP number ascending to start with; a click on the header flips it, keeping the filter.
    assert page.locator("table.data-table thead th.asc").inner_text().strip() == "KEP"
    first_column = page.locator("table.data-table tbody tr td:first-child")
    assert first_column.all_inner_texts() == ["KEP-127", "KEP-1287"]
    page.locator("table.data-table thead th a", has_text="KEP").click()
    page.wait_for_url(re.compile(r".*sort=-kep.*"))
    assert "status=removed_from_milestone" in page.url
    assert first_column.all_inner_texts() == ["KEP-1287", "KEP-127"]
    page.locator("table.data-table thead th a", has_text="Title").click()
    page.wait_for_url(re.compile(r".*sort=title.*"))
    assert page.locator("table.data-table tbody tr td:nth-child(2)").all_inner_texts() == [
        "In-place update of Pod resources",
        "Support user namespaces",
    ]
    shot(page, "enhancements-1280")

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download CSV").click()
    download = download_info.value
    assert download.suggested_filename == "enhancements-1.24.csv"
    with open(download.path(), newline="", encoding="utf-8") as handle:
        exported = list(csv.DictReader(handle))
    assert sorted(row["KEP"] for row in exported) == ["127", "1287"]
    assert {row["Status"] for row in exported} == {"Removed from milestone"}

    page.get_by_role("link", name="KEP-1287").click()
    page.wait_for_url("**/keps/1287/")
    assert "In-place update of Pod resources" in page.locator("main").inner_text()
    assert page.errors == [] and page.dialogs == []


def test_untrusted_text_renders_inert(page, live_server, transactional_db):
    build_release(hostile=True)
    for url in ("/", "/releases/1.24/", "/releases/1.24/enhancements/"):
        page.goto(live_server.url + url)
        # Only the dashboard's own countdown script may exist; nothing from the data.
        scripts = page.evaluate("[...document.scripts].map(s => s.textContent)")
        assert all("alert" not in text for text in scripts), url
        assert page.locator("img[onerror], img[src=x]").count() == 0, url
        assert page.locator('a[href^="javascript:"]').count() == 0, url
        # The text is shown as text.
        assert page.get_by_text('<script>alert("xss")</script>', exact=False).count() >= 1, url
    page.wait_for_timeout(200)
    assert page.dialogs == [] and page.errors == []


def test_phone_width_has_no_page_level_horizontal_scroll(page, live_server, transactional_db):
    build_release()
    page.set_viewport_size({"width": 390, "height": 844})
    for name, url in (
        ("dashboard", "/"),
        ("releases", "/releases/"),
        ("release", "/releases/1.24/"),
        ("enhancements", "/releases/1.24/enhancements/"),
    ):
        page.goto(live_server.url + url)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{url} is {width}px wide on a 390px phone"
        shot(page, f"{name}-390")
    assert page.errors == []


def test_release_list_chart_and_table(page, live_server, transactional_db):
    for version, tracked, done in (("1.22", 24, 13), ("1.23", 14, 8), ("1.24", 23, 6)):
        release = ReleaseFactory(version=version, state=ReleaseState.RELEASED)
        ReleaseStats.objects.create(release=release, tracked=tracked, done=done, merge_rate=done / tracked)
    page.goto(live_server.url + "/releases/")
    chart = page.locator("figure.chart svg")
    assert chart.is_visible()
    labels = chart.locator("text").all_text_contents()
    assert "54%" in labels and "57%" in labels and "26%" in labels
    # The merge-rate column, found by its header (other columns, such as the retro tally, may follow it).
    headers = [text.strip() for text in page.locator("table.data-table thead th").all_inner_texts()]
    column = next(i for i, text in enumerate(headers) if text.lower().startswith("merge rate")) + 1
    cells = page.locator(f"table.data-table tbody tr td:nth-child({column})").all_inner_texts()
    assert cells == ["54 %", "57 %", "26 %"]
    page.locator("table.data-table thead th a", has_text="Merge rate").click()
    page.wait_for_url(re.compile(r".*sort=merge_rate.*"))
    assert page.locator("table.data-table tbody tr td:first-child").all_inner_texts() == ["v1.24", "v1.22", "v1.23"]
    shot(page, "releases-1280")
