"""Release tables: rendered cells and exported values."""

import re

import pytest
from django.test import RequestFactory
from django_tables2 import RequestConfig

from releases import selectors
from releases.choices import EnhancementStatus, StatsSource
from releases.models import ReleaseStats
from releases.tables import ReleaseTable, TrackedEnhancementTable, percent
from tests.factories import KepFactory, PersonFactory, ReleaseFactory, TrackedEnhancementFactory

pytestmark = pytest.mark.django_db


def test_percent():
    assert percent(None) == "—"
    assert percent(6 / 23) == "26 %"


def test_release_table_cells_and_export_values():
    release = ReleaseFactory(version="1.22")
    ReleaseStats.objects.create(
        release=release, tracked=24, done=13, merge_rate=13 / 24, source=StatsSource.RECORDED_TALLY
    )
    table = ReleaseTable(selectors.release_list())
    row = table.rows[0]
    assert row.get_cell("version") == '<a href="/releases/1.22/">v1.22</a>'
    # A tally kept no list of KEPs: the count is not a link to an empty list.
    assert "tally" in row.get_cell("tracked") and "/enhancements/" not in row.get_cell("tracked")
    assert row.get_cell("merge_rate") == "54 %"
    assert row.get_cell_value("merge_rate") == 0.5417
    assert row.get_cell_value("version") == "1.22"


def test_tracked_enhancement_table_html_rows_and_csv_values():
    release = ReleaseFactory(version="1.24")
    TrackedEnhancementFactory(
        release=release,
        kep=KepFactory(number=2727, title="gRPC <probes>"),
        status=EnhancementStatus.AT_RISK_CODE,
        enhancements_contact=PersonFactory(github="gracenng"),
    )
    TrackedEnhancementFactory(release=release, kep=KepFactory(number=127), status=EnhancementStatus.DONE, type="")
    request = RequestFactory().get("/")
    table = TrackedEnhancementTable(selectors.tracked_enhancement_list(release=release))
    RequestConfig(request).configure(table)
    html = table.as_html(request)
    # Header cells, in the order of the table's columns, with sort links.
    headers = re.findall(r'<a href="\?sort=([^"]+)">([^<]+)</a>', html)
    assert [label for _, label in headers] == [
        *("KEP", "Title", "SIG", "Type", "Stage", "Status"),
        *("PRR", "Exception", "Docs", "Blog", "Contact", "Slips", "Source"),
    ]
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)[1:]
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S) for row in rows]
    assert len(cells) == 2 and all(len(row) == len(headers) for row in cells)
    first = [c.strip() for c in cells[0]]
    assert first[0] == '<a href="/keps/127/">KEP-127</a>'
    assert first[3] == "—"  # no type
    assert first[5] == '<span class="badge ok">Done (shipped)</span>'
    second = [c.strip() for c in cells[1]]
    assert second[1] == '<a href="/keps/2727/">gRPC &lt;probes&gt;</a>'
    assert second[3:6] == ["Net new", "Alpha", '<span class="badge warn">At risk for code freeze</span>']
    assert second[6:] == ["Not started", "—", "No docs PR", "—", "@gracenng", "0", "Admin"]
    # CSV values come from the same table.
    values = [[row.get_cell_value(c) for c in ("kep", "status", "enhancements_contact", "slips")] for row in table.rows]
    assert values == [[127, "Done (shipped)", None, 0], [2727, "At risk for code freeze", "@gracenng", 0]]


def test_empty_table_says_so():
    request = RequestFactory().get("/")
    table = TrackedEnhancementTable(selectors.tracked_enhancement_list(release=ReleaseFactory()))
    RequestConfig(request).configure(table)
    assert "No tracked enhancement matches these filters." in table.as_html(request)


def test_a_past_release_shows_todays_prr_approval_as_todays_and_unrecorded_docs_as_not_recorded(client):
    from keps.choices import PrrStage
    from releases.choices import ReleaseState, TrackedSource
    from tests.factories import PrrApprovalFactory

    release = ReleaseFactory(version="1.24", state=ReleaseState.RELEASED)
    kep = KepFactory(number=127)
    PrrApprovalFactory(kep=kep, stage=PrrStage.ALPHA, approver=PersonFactory(github="wojtek-t"))
    TrackedEnhancementFactory(release=release, kep=kep, target_stage="alpha", source=TrackedSource.NOTES)
    html = client.get("/releases/1.24/enhancements/").content.decode().split("<tbody")[1]
    assert "today&#x27;s: Approved @wojtek-t" in html or "today's: Approved @wojtek-t" in html
    assert "No docs PR" not in html and "not recorded" in html
    export = client.get("/releases/1.24/enhancements/?_export=csv").content.decode()
    assert "not recorded (today's: Approved @wojtek-t)" in export and "No docs PR" not in export
    approvers = client.get("/keps/approvers/?release=1.24").content.decode()
    assert "PRR approver (today&#x27;s file)" in approvers or "PRR approver (today's file)" in approvers
    assert 'id="approvers-todays"' in approvers

    # In its cycle the file's approval is the release's own: shown as it is.
    import datetime

    future = datetime.date.today() + datetime.timedelta(days=60)
    current = ReleaseFactory(version="1.40", state=ReleaseState.ACTIVE, planned_release_date=future)
    TrackedEnhancementFactory(release=current, kep=kep, target_stage="alpha")
    html = client.get("/releases/1.40/enhancements/").content.decode().split("<tbody")[1]
    assert "today" not in html and "@wojtek-t" in html and "No docs PR" in html
    assert 'id="approvers-todays"' not in client.get("/keps/approvers/?release=1.40").content.decode()
