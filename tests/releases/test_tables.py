"""Release tables: rendered cells and exported values."""

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
    assert "tally" in row.get_cell("tracked") and 'href="/releases/1.22/enhancements/"' in row.get_cell("tracked")
    assert row.get_cell("merge_rate") == "54 %"
    assert row.get_cell_value("merge_rate") == 0.5417
    assert row.get_cell_value("version") == "1.22"


def test_tracked_enhancement_table_cells():
    release = ReleaseFactory(version="1.24")
    TrackedEnhancementFactory(
        release=release,
        kep=KepFactory(number=2727, title="gRPC <probes>"),
        status=EnhancementStatus.AT_RISK_CODE,
        enhancements_contact=PersonFactory(github="gracenng"),
    )
    table = TrackedEnhancementTable(selectors.tracked_enhancement_list(release=release))
    RequestConfig(RequestFactory().get("/")).configure(table)
    row = table.rows[0]
    assert row.get_cell("kep") == '<a href="/keps/2727/">KEP-2727</a>'
    assert row.get_cell("title") == '<a href="/keps/2727/">gRPC &lt;probes&gt;</a>'
    assert row.get_cell("status") == '<span class="badge warn">At risk for code freeze</span>'
    assert row.get_cell_value("status") == "At risk for code freeze"
    assert row.get_cell("enhancements_contact") == "@gracenng"
    assert row.get_cell("slips") == 0
    assert row.get_cell("type") == "Net new"
    assert row.get_cell("target_stage") == "Alpha"
