"""The public release pages, as an anonymous reader sees them."""

import csv
import datetime
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from keps.models import Kep
from meetings.models import Meeting
from releases.choices import (
    ActionStatus,
    EnhancementStatus,
    MilestoneKind,
    ReleaseState,
    RetroCategory,
    StatsSource,
)
from releases.models import ReleaseStats, TrackedEnhancement, status_writer
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
from tests.worlds import MAX_QUERIES

pytestmark = pytest.mark.django_db

UTC = datetime.UTC


def at(*args):
    return datetime.datetime(*args, tzinfo=UTC)


@pytest.fixture
def release(db):
    """v1.24 with a schedule, 3 tracked enhancements, stats, a retro and a meeting during the cycle."""
    release = ReleaseFactory(
        version="1.24",
        name="Stargazer",
        state=ReleaseState.RELEASED,
        cycle_start=datetime.date(2022, 1, 10),
        actual_release_date=datetime.date(2022, 5, 3),
        planned_release_date=datetime.date(2022, 5, 3),
    )
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(2022, 2, 4, 2))
    MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=at(2022, 3, 30, 1))
    MilestoneFactory(release=release, kind=MilestoneKind.RELEASE, at=at(2022, 5, 3), all_day=True)
    node = SigFactory(slug="sig-node")
    contact = PersonFactory(github="ehashman")
    TrackedEnhancementFactory(
        release=release,
        kep=KepFactory(number=2727, title="gRPC probes"),
        status=EnhancementStatus.DONE,
        enhancements_contact=contact,
    )
    TrackedEnhancementFactory(
        release=release, kep=KepFactory(number=1287, title="In-place Pod resize"), status=EnhancementStatus.REMOVED
    )
    TrackedEnhancementFactory(
        release=release,
        kep=KepFactory(number=127, title="User namespaces", owning_sig=SigFactory(slug="sig-auth")),
        status=EnhancementStatus.REMOVED,
        type="major_change",
        target_stage="beta",
    )
    ReleaseStats.objects.create(
        release=release,
        tracked=3,
        done=1,
        removed=2,
        merge_rate=1 / 3,
        funnel=[
            {"step": "opted_in", "label": "Opted in", "count": 3, "at": None},
            {
                "step": "enhancements_freeze",
                "label": "At enhancements freeze",
                "count": 3,
                "at": "2022-02-04T02:00:00Z",
            },
            {"step": "shipped", "label": "Shipped", "count": 1, "at": None},
        ],
    )
    retro = RetrospectiveFactory(release=release, sig=node, date=datetime.date(2022, 4, 26))
    RetroItemFactory(retrospective=retro, category=RetroCategory.WENT_WELL, text="Planning and tracking")
    RetroItemFactory(retrospective=retro, category=RetroCategory.TO_IMPROVE, text="Not enough reviewers")
    RetroItemFactory(
        retrospective=retro,
        category=RetroCategory.ACTION_ITEM,
        text="No changes without tests",
        owner=PersonFactory(github="derekwaynecarr"),
        status=ActionStatus.IN_PROGRESS,
    )
    MeetingFactory(sig=node, date=datetime.date(2022, 4, 26), title="SIG Node weekly: 1.24 retro")
    MeetingFactory(sig=node, date=datetime.date(2022, 6, 7), title="After the cycle")
    return release


def test_release_detail_shows_schedule_funnel_enhancements_retro_and_meetings(client, release):
    response = client.get("/releases/1.24/")
    assert response.status_code == 200
    html = response.content.decode()
    # Schedule in UTC and US Pacific (02:00 UTC Feb 4 is 18:00 PST Feb 3), past milestones marked.
    assert "Fri 4 Feb 2022, 02:00" in html
    assert "Thu 3 Feb 2022, 18:00 PST" in html
    assert 'class="past"' in html
    # Funnel from the stored stats.
    assert "At enhancements freeze" in html
    assert "33 %" in html
    # Tracked enhancements, linking to the KEP pages.
    assert 'href="/keps/2727/"' in html and "gRPC probes" in html
    # Retro with action item owner and status; meetings during the cycle only.
    assert "Planning and tracking" in html and "Not enough reviewers" in html
    assert "@derekwaynecarr" in html and "In progress" in html
    assert "SIG Node weekly: 1.24 retro" in html
    assert "After the cycle" not in html


def test_release_detail_marks_the_next_milestone(client, release):
    MilestoneFactory(release=release, kind=MilestoneKind.DOCS_FREEZE, at=timezone.now() + datetime.timedelta(days=3))
    MilestoneFactory(release=release, kind=MilestoneKind.RETROSPECTIVE, at=timezone.now() + datetime.timedelta(days=9))
    html = client.get("/releases/1.24/").content.decode()
    assert html.count('class="next"') == 1
    next_row = html.split('class="next"')[1].split("</tr>")[0]
    assert "Docs freeze" in next_row


def test_release_detail_previous_release_follow_through(client, release):
    previous = ReleaseFactory(version="1.23")
    retro = RetrospectiveFactory(release=previous, sig=SigFactory(slug="sig-node"))
    RetroItemFactory(
        retrospective=retro,
        category=RetroCategory.ACTION_ITEM,
        text="Soft freeze for node KEPs",
        status=ActionStatus.DONE,
        due_release=release,
    )
    html = client.get("/releases/1.24/").content.decode()
    section = html.split("Follow-through on v1.23")[1]
    assert "Soft freeze for node KEPs" in section and "Done" in section


def test_release_detail_empty_states(client):
    ReleaseFactory(version="1.40", cycle_start=None, planned_release_date=None)
    html = client.get("/releases/1.40/").content.decode()
    # Visitors are told what is missing, never which management command to run.
    assert "Figures not computed yet" in html and "manage.py" not in html
    assert "No retro recorded yet — add one in the admin" in html
    assert "No milestones yet" in html
    assert "No enhancements are tracked for v1.40 yet" in html


def test_release_detail_tally_release_says_so(client):
    release = ReleaseFactory(version="1.22")
    ReleaseStats.objects.create(release=release, tracked=24, done=13, merge_rate=13 / 24, source="recorded_tally")
    html = client.get("/releases/1.22/").content.decode()
    assert "54 %" in html
    assert "tally recorded in the retro notes" in html


@pytest.mark.parametrize(
    "url",
    ["/releases/9.99/", "/releases/9.99/enhancements/", "/releases/9.99/calendar.ics", "/releases/not-a-version/"],
)
def test_unknown_version_is_404(client, url):
    assert client.get(url).status_code == 404


def test_v_prefixed_version_works(client, release):
    assert client.get("/releases/v1.24/").status_code == 200


def test_url_names(release):
    assert reverse("releases:dashboard") == "/"
    assert reverse("releases:release_list") == "/releases/"
    assert release.get_absolute_url() == "/releases/1.24/"
    assert reverse("releases:enhancement_list", kwargs={"version": "1.24"}) == "/releases/1.24/enhancements/"
    assert reverse("releases:calendar") == "/calendar.ics"
    assert reverse("releases:release_calendar", kwargs={"version": "1.24"}) == "/releases/1.24/calendar.ics"


# -- release list ----------------------------------------------------------------------------------------------------


def _tally_release(version, tracked, done, source=StatsSource.TRACKED_ROWS):
    release = ReleaseFactory(version=version, state=ReleaseState.RELEASED)
    ReleaseStats.objects.create(release=release, tracked=tracked, done=done, merge_rate=done / tracked, source=source)
    return release


def test_a_tally_only_release_offers_no_empty_drill_down(client):
    """1.22 kept only a retro tally: its counts must not lead to an empty list, and that list says why."""
    _tally_release("1.22", 24, 13, StatsSource.RECORDED_TALLY)
    _tally_release("1.24", 23, 6)
    html = client.get("/releases/").content.decode()
    assert "/releases/1.24/enhancements/" in html
    assert "/releases/1.22/enhancements/" not in html
    listing = client.get("/releases/1.22/enhancements/").content.decode()
    assert "recorded only a" in listing and "13 of 24" in listing
    assert "Download CSV" not in listing


def test_release_list_chart_shows_the_fall_of_the_merge_rate(client):
    _tally_release("1.22", 24, 13, StatsSource.RECORDED_TALLY)
    _tally_release("1.23", 14, 8, StatsSource.RECORDED_TALLY)
    _tally_release("1.24", 23, 6)
    response = client.get("/releases/")
    assert response.status_code == 200
    html = response.content.decode()
    chart = html.split("<svg")[1].split("</svg>")[0]
    assert "Merge rate: v1.22 54%, v1.23 57%, v1.24 26%" in chart
    assert "<title" in chart
    table = html.split('class="data-table"')[1]
    assert "54 %" in table and "26 %" in table
    assert table.index("v1.22") < table.index("v1.23") < table.index("v1.24")


def test_release_list_without_stats_says_so_without_a_command(client):
    ReleaseFactory(version="1.30")
    html = client.get("/releases/").content.decode()
    assert "<svg" not in html
    assert "Figures not computed yet" in html and "manage.py" not in html


def test_release_list_empty(client):
    html = client.get("/releases/").content.decode()
    assert "No releases yet" in html


def test_release_list_csv(client):
    _tally_release("1.22", 24, 13, StatsSource.RECORDED_TALLY)
    _tally_release("1.24", 23, 6)
    response = client.get("/releases/?_export=csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["Version"], r["Tracked"], r["Done"], r["Merge rate"]) for r in rows] == [
        ("1.22", "24", "13", "0.5417"),
        ("1.24", "23", "6", "0.2609"),
    ]


def test_release_list_sortable(client):
    _tally_release("1.22", 24, 13)
    _tally_release("1.24", 23, 6)
    html = client.get("/releases/?sort=merge_rate").content.decode()
    table = html.split('class="data-table"')[1]
    assert table.index("v1.24") < table.index("v1.22")


# -- enhancement list ------------------------------------------------------------------------------------------------


def test_enhancement_list_columns_and_links(client, release):
    html = client.get("/releases/1.24/enhancements/").content.decode()
    assert "3 enhancements" in html
    for header in ("KEP", "Title", "SIG", "Type", "Stage", "Status", "Contact", "Slips"):
        assert f">{header}<" in html
    assert 'href="/keps/1287/"' in html
    assert "@ehashman" in html
    assert "Removed from milestone" in html


@pytest.mark.parametrize(
    "query, count",
    [
        ("status=removed_from_milestone", 2),
        ("status=done", 1),
        ("sig=sig-auth", 1),
        ("type=major_change", 1),
        ("stage=beta", 1),
        ("q=1287", 1),
        ("q=probes", 1),
        ("status=done&sig=sig-auth", 0),
    ],
)
def test_enhancement_list_filters(client, release, query, count):
    response = client.get(f"/releases/1.24/enhancements/?{query}")
    assert response.status_code == 200
    assert response.context["table"].paginator.count == count


def test_enhancement_list_csv_keeps_filters(client, release):
    html = client.get("/releases/1.24/enhancements/?status=removed_from_milestone").content.decode()
    assert "_export=csv" in html and "status=removed_from_milestone" in html.split("_export=csv")[0].rsplit('"', 1)[1]
    response = client.get("/releases/1.24/enhancements/?status=removed_from_milestone&_export=csv")
    assert response["Content-Disposition"].endswith('enhancements-1.24.csv"')
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert sorted(r["KEP"] for r in rows) == ["127", "1287"]
    assert {r["Status"] for r in rows} == {"Removed from milestone"}


def test_enhancement_list_sort_and_paginate(client, release):
    for n in range(60):
        TrackedEnhancementFactory(release=release, kep=KepFactory(number=5000 + n, title=f"Synthetic {n:02d}"))
    page1 = client.get("/releases/1.24/enhancements/?sort=-kep")
    assert page1.context["table"].paginator.num_pages == 3  # 63 rows, 25 a page
    first = page1.context["table"].page.object_list.data[0]
    assert first.kep.number == 5059
    last = client.get("/releases/1.24/enhancements/?sort=-kep&page=3")
    assert [row.kep.number for row in last.context["table"].page.object_list.data][-1] == 127
    assert 'href="?sort=-kep&amp;page=2"' in last.content.decode()


def test_enhancement_list_slips_count_earlier_releases(client, release):
    older = ReleaseFactory(version="1.23")
    oldest = ReleaseFactory(version="1.22")
    later = ReleaseFactory(version="1.25")
    kep = Kep.objects.get(number=1287)
    TrackedEnhancementFactory(release=oldest, kep=kep, status=EnhancementStatus.DEFERRED)
    TrackedEnhancementFactory(release=older, kep=kep, status=EnhancementStatus.DONE)
    TrackedEnhancementFactory(release=later, kep=kep, status=EnhancementStatus.REMOVED)  # after 1.24: not counted
    response = client.get("/releases/1.24/enhancements/?q=1287")
    (row,) = response.context["table"].page.object_list.data
    assert row.slips == 2  # 1.22 deferred + 1.24 removed


@pytest.mark.parametrize("export", ["xlsx", "json", "ods", "bogus"])
def test_only_csv_is_exported_other_formats_show_the_page(client, release, export):
    response = client.get(f"/releases/1.24/enhancements/?_export={export}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert client.get(f"/releases/?_export={export}")["Content-Type"].startswith("text/html")


def test_enhancement_list_empty_state(client):
    ReleaseFactory(version="1.41")
    html = client.get("/releases/1.41/enhancements/").content.decode()
    assert "No enhancements are tracked for v1.41 yet" in html


def test_enhancement_list_bad_filter_value_shows_error_not_500(client, release):
    response = client.get("/releases/1.24/enhancements/?status=bogus")
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()


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


def _fill(release, n):
    sig = SigFactory(slug="sig-node")
    keps = Kep.objects.bulk_create(
        [Kep(number=100000 + i, title=f"Bulk KEP {i}", owning_sig=sig) for i in range(n)], batch_size=500
    )
    with status_writer():  # a board laid out directly for a query count; no history needed
        TrackedEnhancement.objects.bulk_create(
            [
                TrackedEnhancement(
                    release=release, kep=kep, sig=sig, status=EnhancementStatus.AT_RISK_CODE if i % 3 else "done"
                )
                for i, kep in enumerate(keps)
            ],
            batch_size=500,
        )


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
    _fill(small, 10)
    few = _queries(client, url)
    TrackedEnhancement.objects.filter(release=small).delete()
    Kep.objects.all().delete()
    _fill(small, 1000)
    many = _queries(client, url)
    assert few == many, f"{url}: {few} queries with 10 rows, {many} with 1,000"
    assert many <= MAX_QUERIES


# -- the curated fixtures --------------------------------------------------------------------------------------------


def test_fixtures_release_list_shows_merge_rate_falling_from_54_to_26_percent(client):
    """With `make demo`'s data and stats computed as `compute_stats` does, 1.22 → 1.24 reads 54 % → 57 % → 26 %."""
    from django.core.management import call_command

    from devdata.fixtures import FIXTURE_FILES
    from releases.services.stats import release_stats_compute

    call_command("loaddata", *FIXTURE_FILES, verbosity=0)
    release_stats_compute()
    html = client.get("/releases/").content.decode()
    desc = html.split('<desc id="chart-desc">')[1].split("</desc>")[0]
    assert "Merge rate: v1.22 54%, v1.23 57%, v1.24 26%" in desc
    detail = client.get("/releases/1.24/").content.decode()
    assert "26 %" in detail and "Stargazer" in detail
    enhancements = client.get("/releases/1.24/enhancements/?status=done")
    assert enhancements.context["table"].paginator.count == 6


def test_release_detail_per_sig_stats_and_collapsed_retros_when_many(client, release):
    for slug, tracked, done in (("sig-node", 2, 1), ("sig-auth", 1, 0)):
        ReleaseStats.objects.create(
            release=release, sig=SigFactory(slug=slug), tracked=tracked, done=done, merge_rate=done / tracked
        )
    for slug in ("sig-apps", "sig-storage"):
        RetrospectiveFactory(release=release, sig=SigFactory(slug=slug))
    html = client.get("/releases/1.24/").content.decode()
    by_sig = html.split("<h3>By SIG</h3>")[1].split("</table>")[0]
    assert by_sig.index("sig-auth") < by_sig.index("sig-node")
    assert 'href="/releases/1.24/enhancements/?sig=sig-auth"' in by_sig and "50 %" in by_sig
    assert "3 SIG retrospectives — open one to read it." in html
    assert '<details class="retro">' in html and '<details class="retro" open>' not in html
    assert "1 went well · 1 to improve · 1 action item" in html


# -- the board's other columns, weekly numbers, checklist --------------------------------------------------------------


def test_enhancement_list_filters_and_exports_the_boards_other_columns(client, release):
    from releases.choices import DocsStatus, Freeze, PrrStatus
    from releases.models import EnhancementException

    rows = list(TrackedEnhancement.objects.filter(release=release).order_by("kep__number"))
    first = rows[0]
    first.prr_status, first.prr_approver = PrrStatus.APPROVED, PersonFactory(github="deads2k")
    first.docs_status, first.docs_pr_urls = DocsStatus.PLACEHOLDER, "https://github.com/kubernetes/website/pull/1"
    first.feature_blog = True
    first.save()
    requested = datetime.datetime(2022, 3, 29, tzinfo=datetime.UTC)
    EnhancementException.objects.create(
        tracked_enhancement=first, freeze=Freeze.CODE, requested_at=requested, deadline=requested.replace(day=31)
    )
    url = f"/releases/{release.version}/enhancements/"
    for query, count in (
        ("prr=approved", 1),
        ("docs=placeholder", 1),
        ("blog=yes", 1),
        ("blog=no", len(rows) - 1),
        ("exception=pending", 1),
        ("exception=none", len(rows) - 1),
    ):
        assert client.get(f"{url}?{query}").context["table"].paginator.count == count, query
    body = client.get(f"{url}?_export=csv&exception=pending").content.decode()
    header, line = body.splitlines()[:2]
    assert "PRR,Exception,Docs,Blog" in header
    assert "Approved @deads2k" in line and "Code freeze: pending, deadline 2022-03-31 00:00 UTC" in line
    assert "Placeholder PR https://github.com/kubernetes/website/pull/1" in line and ",yes," in line


def test_release_page_shows_weekly_numbers_with_a_markdown_block(client, release):
    html = client.get(f"/releases/{release.version}/").content.decode()
    section = html.split('<section id="weekly"')[1].split("</section>")[0]
    assert "<caption>By stage</caption>" in section and "<caption>By status</caption>" in section
    assert 'id="weekly-markdown"' in section and f"### Enhancements update — v{release.version}" in section
    assert "**KEPs by Status**" in section


def test_kep_page_shows_the_board_columns_and_the_checklist_comment(client, release):
    row = TrackedEnhancement.objects.filter(release=release).select_related("kep").first()
    html = client.get(f"/keps/{row.kep.number}/").content.decode()
    section = html.split('<section id="board"')[1].split("</section>")[0]
    assert f"On the v{release.version} board" in section and "Not started" in section
    assert 'id="checklist-comment"' in section and f"v{release.version} Enhancements team here." in section


def test_a_release_in_its_cycle_shows_progress_not_a_merge_rate(client):
    from releases.services.stats import release_stats_compute

    now = timezone.now()
    release = ReleaseFactory(
        version="1.60", cycle_start=None, planned_release_date=(now + datetime.timedelta(days=60)).date()
    )
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=now + datetime.timedelta(days=9))
    MilestoneFactory(release=release, kind=MilestoneKind.RELEASE, at=now + datetime.timedelta(days=60))
    for _ in range(6):
        TrackedEnhancementFactory(release=release, status=EnhancementStatus.TRACKED_ENHANCEMENTS)
    release_stats_compute(release_ids=[release.pk])
    section = client.get("/releases/1.60/").content.decode().split('id="stats"')[1].split("</section>")[0]
    assert "6 tracked, 0 done so far" in section
    assert "Merge rate" not in section
    # Enhancements freeze and release day are ahead; PRR and code freeze have no date yet: no count either.
    assert section.count(">ahead<") == 4
    row = next(r for r in csv.DictReader(io.StringIO(client.get("/releases/?_export=csv").content.decode())))
    assert row["Merge rate"] == "" and row["Figures from"] == "board history, so far (in cycle)"


def test_no_retro_for_the_previous_release_is_said_as_such(client):
    ReleaseFactory(version="1.33")
    ReleaseFactory(version="1.34")
    html = client.get("/releases/1.34/").content.decode()
    assert "No retro recorded for v1.33." in html
    assert "recorded no action items" not in html


def test_release_page_counts_agree_with_the_selectors_it_no_longer_asks(client):
    from releases import selectors
    from releases.choices import ExceptionDecision, Freeze
    from releases.models import EnhancementException

    release = ReleaseFactory(version="1.61")
    _fill(release, 40)
    rows = list(TrackedEnhancement.objects.filter(release=release)[:3])
    decisions = [ExceptionDecision.APPROVED, ExceptionDecision.APPROVED, ExceptionDecision.PENDING]
    for row, decision in zip(rows, decisions, strict=True):
        decided_at = None if decision == ExceptionDecision.PENDING else timezone.now()
        EnhancementException.objects.create(
            release=release,
            tracked_enhancement=row,
            kep_number=row.kep.number,
            freeze=Freeze.CODE,
            decision=decision,
            decided_at=decided_at,
        )
    html = client.get("/releases/1.61/").content.decode()
    # Exception counts of the weekly numbers, taken from the page's list of requests: as the counting query says.
    labels = {value: label.lower() for value, label in ExceptionDecision.choices}
    for decision, count in selectors.release_exception_counts(release=release):
        assert f"{labels[decision]} {count}" in html.split('<section id="weekly"')[1].split("</section>")[0]
    # The table pages 40 rows, 15 a page, counted from the board counts: three pages.
    table = html.split('id="enhancements"')[1]
    assert "te-page=3" in table and "te-page=4" not in table
