"""The release list (/releases/) and a release's enhancement list (/releases/<version>/enhancements/), with their
filters and CSV exports, as an anonymous reader sees them; and the board's columns on a KEP's page."""

import csv
import datetime
import io

import pytest

from keps.models import Kep
from releases.choices import EnhancementStatus, ReleaseState, StatsSource
from releases.models import ReleaseStats, TrackedEnhancement
from tests.factories import KepFactory, PersonFactory, ReleaseFactory, TrackedEnhancementFactory

pytestmark = pytest.mark.django_db


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


# -- the curated fixtures --------------------------------------------------------------------------------------------


def test_fixtures_release_list_shows_merge_rate_falling_from_54_to_26_percent(client):
    """With `make demo`'s data and stats computed as `compute_stats` does, SIG Node's 1.22 → 1.24 reads 54 % → 57 %
    → 26 %, each at its scope."""
    from django.core.management import call_command

    from devdata.fixtures import FIXTURE_FILES
    from releases.models import ReleaseStats
    from releases.services.stats import release_stats_compute

    call_command("loaddata", *FIXTURE_FILES, verbosity=0)
    release_stats_compute()
    html = client.get("/releases/").content.decode()
    desc = html.split('<desc id="chart-desc">')[1].split("</desc>")[0]
    # 1.22 and 1.23 are known from SIG Node's retro tallies only: no release-wide rate, SIG Node's in the tally column.
    assert "Merge rate: v1.24 26%" in desc and "no data for v1.22, v1.23" in desc
    assert "recorded for 1 SIG" in html and "sig-node 24 / 13" in html and "sig-node 14 / 8" in html
    node = {row.release.version: row.merge_rate for row in ReleaseStats.objects.filter(sig__slug="sig-node")}
    assert (round(node["1.22"], 2), round(node["1.23"], 2)) == (0.54, 0.57)
    detail = client.get("/releases/1.24/").content.decode()
    assert "26 %" in detail and "Stargazer" in detail
    enhancements = client.get("/releases/1.24/enhancements/?status=done")
    assert enhancements.context["table"].paginator.count == 6


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


def test_kep_page_shows_the_board_columns_and_the_checklist_comment(client, release):
    row = TrackedEnhancement.objects.filter(release=release).select_related("kep").first()
    html = client.get(f"/keps/{row.kep.number}/").content.decode()
    section = html.split('<section id="board"')[1].split("</section>")[0]
    assert f"On the v{release.version} board" in section and "Not started" in section
    # v1.24's enhancements freeze is long past: a comment "as we approach enhancements freeze" is not offered.
    assert 'id="checklist-comment"' not in section


def test_kep_page_offers_the_checklist_comment_until_the_enhancements_freeze(client):
    from tests.factories import MilestoneFactory

    coming = ReleaseFactory(version="1.40", state=ReleaseState.ACTIVE)
    freeze = MilestoneFactory(release=coming, at=datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=7))
    row = TrackedEnhancementFactory(release=coming, kep=KepFactory(number=4800, title="A KEP"))
    html = client.get(f"/keps/{row.kep.number}/").content.decode()
    section = html.split('<section id="board"')[1].split("</section>")[0]
    assert 'id="checklist-comment"' in section and "v1.40 Enhancements team here." in section
    freeze.at = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=1)
    freeze.save()
    html = client.get(f"/keps/{row.kep.number}/").content.decode()
    assert 'id="checklist-comment"' not in html.split('<section id="board"')[1].split("</section>")[0]
