"""The dashboard (/), as an anonymous reader sees it; and what holds on every public release page: untrusted text
is escaped, and the number of queries does not grow with the board."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from keps.models import Kep
from meetings.models import Meeting
from releases.choices import MilestoneKind, ReleaseState
from releases.models import ReleaseStats, TrackedEnhancement
from retros.choices import RetroCategory
from tests.factories import (
    KepFactory,
    MeetingFactory,
    MilestoneFactory,
    ReleaseFactory,
    RetroItemFactory,
    SigFactory,
    TrackedEnhancementFactory,
)
from tests.releases.release_pages import fill_board
from tests.worlds import MAX_QUERIES

pytestmark = pytest.mark.django_db


# -- dashboard -------------------------------------------------------------------------------------------------------


def test_dashboard_countdown_at_risk_actions_and_latest_meeting(client, release):
    release.state = ReleaseState.ACTIVE
    release.save()
    freeze_at = (timezone.now() + datetime.timedelta(days=5, hours=3)).replace(second=0, microsecond=0)
    MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=freeze_at)
    TrackedEnhancementFactory(release=release, kep=KepFactory(number=3063, title="DRA"), status="at_risk_code")
    TrackedEnhancementFactory(release=release, kep=KepFactory(number=2008, title="CRIU"), status="at_risk_docs")
    MeetingFactory(sig=SigFactory(slug="sig-node"), date=timezone.now().date(), title="Today's meeting")
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'Kubernetes <a href="/releases/1.24/">v1.24</a>' in html
    assert "in <strong>5 days, 3 h" in html or "in <strong>5 days, 2 h" in html
    assert f"{freeze_at:%H:%M}" in html and "US Pacific" in html
    risk = html.split('id="risk-heading"')[1].split("</section>")[0]
    assert "KEP-3063" in risk and "KEP-2008" not in risk  # only at risk for *code* freeze
    assert "No changes without tests" in html and "@derekwaynecarr" in html
    assert "1 action item open or in progress." in html
    assert "Today&#x27;s meeting" in html


def test_dashboard_sig_selector_narrows_at_risk(client, release):
    release.state = ReleaseState.ACTIVE
    release.save()
    TrackedEnhancementFactory(release=release, kep=KepFactory(number=3063), status="at_risk_code")
    auth_kep = KepFactory(number=4000, owning_sig=SigFactory(slug="sig-auth"))
    TrackedEnhancementFactory(release=release, kep=auth_kep, status="at_risk_code")
    html = client.get("/?sig=sig-auth").content.decode()
    risk = html.split('id="risk-heading"')[1].split("</section>")[0]
    assert "KEP-4000" in risk and "KEP-3063" not in risk


def test_dashboard_without_upcoming_freeze_says_what_to_do(client, release):
    html = client.get("/").content.decode()
    assert "No upcoming freeze for v1.24" in html
    assert "<script" not in html


def test_dashboard_empty_database(client):
    html = client.get("/").content.decode()
    assert "No releases yet" in html


# -- untrusted text --------------------------------------------------------------------------------------------------

HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)"><a href="javascript:alert(3)">x</a>'


def test_hostile_text_is_escaped(client, release):
    retro = release.retrospectives.get()
    RetroItemFactory(retrospective=retro, category=RetroCategory.WENT_WELL, text=HOSTILE)
    RetroItemFactory(retrospective=retro, category=RetroCategory.ACTION_ITEM, text=HOSTILE, status="open")
    Meeting.objects.filter(title__contains="1.24 retro").update(title=HOSTILE)
    Kep.objects.filter(number=2727).update(title=HOSTILE)
    # URL fields are not validated on import: a javascript: URL must never become a link.
    type(release).objects.filter(pk=release.pk).update(source_url="javascript:alert(4)")
    type(retro).objects.filter(pk=retro.pk).update(source_url="javascript:alert(5)")
    for url in ("/", "/releases/1.24/", "/releases/1.24/enhancements/"):
        html = client.get(url).content.decode()
        assert "<script>alert" not in html, url
        assert "<img src=x" not in html, url
        assert 'href="javascript:' not in html, url
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, url


# -- query counts ----------------------------------------------------------------------------------------------------


def _queries(client, url):
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(ctx)


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/releases/",
        "/releases/1.50/",
        "/releases/1.50/enhancements/",
        "/releases/1.50/enhancements/?_export=csv",
        "/releases/1.50/calendar.ics",
        "/calendar.ics",
    ],
)
def test_query_count_is_constant(client, url):
    small = ReleaseFactory(version="1.50", state=ReleaseState.ACTIVE)
    MilestoneFactory(release=small, kind=MilestoneKind.CODE_FREEZE)
    ReleaseStats.objects.create(release=small, tracked=10, done=3, merge_rate=0.3)
    fill_board(small, 10)
    few = _queries(client, url)
    TrackedEnhancement.objects.filter(release=small).delete()
    Kep.objects.all().delete()
    fill_board(small, 1000)
    many = _queries(client, url)
    assert few == many, f"{url}: {few} queries with 10 rows, {many} with 1,000"
    assert many <= MAX_QUERIES
