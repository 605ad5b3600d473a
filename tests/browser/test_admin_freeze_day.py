"""The freeze-day admin in headless Chromium on a 1366×768 laptop (issue 12, item 3): the tracked-enhancement list
with the demo's 1.24 board (23 KEPs, exception requests, PRR approvers) does not scroll sideways, and shows KEP,
title, SIG, stage, editable status, PRR, exception and contact.

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

from releases.choices import ExceptionDecision, Freeze, PrrStatus
from releases.models import EnhancementException, Release, TrackedEnhancement
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
            *("KEP", "Title", "SIG", "Stage", "Status", "PRR", "Exception", "Contact"),
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
