"""The freeze-day admin in headless Chromium on a 1366×768 laptop: the tracked-enhancement list
with the demo's 1.24 board (23 KEPs, exception requests, PRR approvers) does not scroll sideways, and shows release,
KEP, title, SIG, stage, editable status, PRR, exception and contact. It opens on the current release, "Add" from it
pre-fills the release, and an exception request takes at most four clicks (counted in the browser).

Screenshots are kept in test-artifacts/admin/ (SIGTRACKER_ARTIFACTS overrides the folder; it is git-ignored).
"""

import datetime
import os
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from releases.choices import EnhancementStatus, ExceptionDecision, Freeze, MilestoneKind, PrrStatus, ReleaseState
from releases.models import EnhancementException, Milestone, Release, TrackedEnhancement
from releases.services import tracked_enhancement_create
from tests.factories import PersonFactory

pytestmark = [pytest.mark.browser]

LAPTOP = {"width": 1366, "height": 768}
ARTIFACTS = Path(os.environ.get("SIGTRACKER_ARTIFACTS") or Path(__file__).resolve().parents[2] / "test-artifacts")
SHOTS = ARTIFACTS / "admin"


def build_board() -> Release:
    """The demo's data with the board's other columns filled in as on a real freeze day."""
    from devdata.fixtures import FIXTURE_FILES

    call_command("loaddata", *FIXTURE_FILES, verbosity=0)
    release = Release.objects.get(version="1.24")
    rows = list(TrackedEnhancement.objects.filter(release=release).order_by("kep__number"))
    approver = PersonFactory(github="johnbelamaric-longhandle")
    contact = PersonFactory(github="enhancements-shadow-with-a-long-handle")
    requested = datetime.datetime(2022, 3, 29, 12, tzinfo=datetime.UTC)
    for index, row in enumerate(rows):
        row.prr_status = (PrrStatus.APPROVED, PrrStatus.IN_REVIEW, PrrStatus.NOT_STARTED)[index % 3]
        row.prr_approver = approver if row.prr_status == PrrStatus.APPROVED else None
        row.enhancements_contact = contact
        row.save()
        if index % 4 == 0:
            EnhancementException.objects.create(
                tracked_enhancement=row,
                freeze=Freeze.ENHANCEMENTS if index % 8 else Freeze.CODE,
                requested_at=requested,
                decision=ExceptionDecision.PENDING if index % 8 else ExceptionDecision.APPROVED,
                decided_at=None if index % 8 else requested + datetime.timedelta(days=1),
                deadline=requested + datetime.timedelta(days=3),
            )
    return release


def logged_in_context(browser, live_server):
    user = get_user_model().objects.create_superuser("lead", "lead@example.org", "x")
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=LAPTOP, device_scale_factor=1)
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    return context


def test_tracked_enhancement_list_fits_a_1366_px_laptop(browser, live_server, transactional_db, capsys):
    release = build_board()
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = logged_in_context(browser, live_server)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/admin/releases/trackedenhancement/?release__id__exact={release.pk}")
        headers = [text.strip() for text in page.locator("#result_list thead th").all_inner_texts()]
        assert [h.capitalize() if h.isupper() and len(h) > 3 else h for h in headers if h] == [
            *("Release", "KEP", "Title", "SIG", "Stage", "Status", "PRR", "Exception", "Contact"),
        ]
        assert page.locator("#result_list tbody tr").count() == 23
        assert page.locator("#result_list select[name$='-status']").count() == 23
        assert "Enhancements: Pending (by 01 Apr)" in page.locator("#result_list").inner_text()
        # Every column of the board has a filter.
        filters = page.locator("#changelist-filter").inner_text().lower()
        for title in ("release", "sig", "status", "target stage", "type", "prr status", "exception request"):
            assert f"by {title}" in filters, title
        assert "by docs status" in filters and "by feature blog" in filters
        page.screenshot(path=str(SHOTS / "trackedenhancement-changelist-1366.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= LAPTOP["width"], f"the page scrolls sideways: {width} px wide"
        # Nor does the list inside its own box (the admin wraps it in an overflow: auto container).
        inner = page.evaluate(
            "(() => { const box = document.querySelector('#changelist .results');"
            " return [box.scrollWidth, box.clientWidth]; })()"
        )
        assert inner[0] <= inner[1], f"the list scrolls inside its box: {inner[0]} px in {inner[1]} px"
        right = page.evaluate(
            "Math.max(...[...document.querySelectorAll('#result_list th')].map(th => th.getBoundingClientRect().right))"
        )
        assert right <= LAPTOP["width"], f"the last column ends at {right} px"

        # The row's own page: the checklist comment to copy, exception requests inline.
        page.goto(
            f"{live_server.url}/admin/releases/trackedenhancement/{TrackedEnhancement.objects.first().pk}/change/"
        )
        comment = page.locator("textarea.checklist-comment").input_value()
        assert comment.startswith("Hello @") and "v1.24 Enhancements team here." in comment
        assert page.locator("#exceptions-group").count() == 1
        page.screenshot(path=str(SHOTS / "trackedenhancement-change-1366.png"), full_page=True)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= LAPTOP["width"], f"the row's page scrolls sideways: {width} px wide"
    finally:
        context.close()
    with capsys.disabled():
        print(f"\nadmin screenshots: {SHOTS}")


def living_release() -> Release:
    """A release in its cycle today (past its enhancements freeze, before code freeze) with five of the 1.24
    board's KEPs on its board: current by its state and by its dates alike."""
    today = timezone.now()
    release = Release.objects.create(
        version="1.40",
        state=ReleaseState.ACTIVE,
        cycle_start=(today - datetime.timedelta(days=30)).date(),
        planned_release_date=(today + datetime.timedelta(days=60)).date(),
    )
    for kind, days in ((MilestoneKind.ENHANCEMENTS_FREEZE, -2), (MilestoneKind.CODE_FREEZE, 30)):
        Milestone.objects.create(release=release, kind=kind, at=today + datetime.timedelta(days=days))
    Milestone.objects.create(release=release, kind=MilestoneKind.RELEASE, at=today + datetime.timedelta(days=60))
    for row in TrackedEnhancement.objects.filter(release__version="1.24").order_by("kep__number")[:5]:
        tracked_enhancement_create(release=release, kep=row.kep, status=EnhancementStatus.AT_RISK_ENHANCEMENTS)
    return release


CLICK_COUNTER = """
document.addEventListener('click', () => {
  sessionStorage.clicks = String(Number(sessionStorage.clicks || 0) + 1);
}, true);
"""


def clicks(page) -> int:
    return int(page.evaluate("Number(sessionStorage.clicks || 0)"))


def test_freeze_day_opens_on_the_current_release_and_an_exception_takes_four_clicks(
    browser, live_server, transactional_db
):
    build_board()
    current = living_release()
    assert Release.objects.current() == current
    current_rows = TrackedEnhancement.objects.filter(release=current).count()
    assert 0 < current_rows < TrackedEnhancement.objects.count()
    context = logged_in_context(browser, live_server)
    context.add_init_script(CLICK_COUNTER)
    page = context.new_page()
    try:
        # The list opens on the current release, with the release filter first and a release column.
        page.goto(f"{live_server.url}/admin/releases/trackedenhancement/")
        assert f"release__id__exact={current.pk}" in page.url
        assert page.locator("#result_list tbody tr").count() == current_rows
        assert set(page.locator("#result_list tbody td.field-release_version").all_inner_texts()) == {current.version}
        assert page.locator("#changelist-filter details summary").first.inner_text().strip().lower() == "by release"
        # Its "All" shows every release, and stays there.
        page.locator("#changelist-filter details").first.locator("a", has_text="All").click()
        page.wait_for_load_state()
        assert page.locator("#result_list tbody tr").count() == TrackedEnhancement.objects.count()

        # "Add" from the list filtered on 1.24 pre-fills 1.24.
        old = Release.objects.get(version="1.24")
        page.goto(f"{live_server.url}/admin/releases/trackedenhancement/?release__id__exact={old.pk}")
        page.locator("a.addlink").click()
        page.wait_for_load_state()
        assert page.locator("select#id_release").input_value() == str(old.pk)

        # An exception request from the row itself: tick it, pick the action, Go. A native <select> takes two
        # clicks by hand (open, choose), which Playwright's select_option does not dispatch: counted here.
        page.goto(f"{live_server.url}/admin/releases/trackedenhancement/?release__id__exact={current.pk}")
        row = TrackedEnhancement.objects.filter(release=current, exceptions=None).order_by("kep__number").first()
        before = clicks(page)
        page.locator(f"#result_list input.action-select[value='{row.pk}']").click()
        page.locator("select[name='action']").select_option("request_exception")
        page.locator("button[name='index']").click()
        page.wait_for_load_state()
        used = clicks(page) - before + 2
        assert used <= 4, f"{used} clicks"
        request = EnhancementException.objects.get(tracked_enhancement=row)
        assert (request.decision, request.freeze) == (ExceptionDecision.PENDING, Freeze.ENHANCEMENTS)
        row.refresh_from_db()
        assert row.status == "exception_pending" and row.history.filter(to_status="exception_pending").exists()
        # It lands on the row's page, at its requests, to add the thread and deadline.
        assert f"/trackedenhancement/{row.pk}/change/" in page.url
        assert page.locator("#exceptions-group").inner_text().count("Pending") >= 1
    finally:
        context.close()
