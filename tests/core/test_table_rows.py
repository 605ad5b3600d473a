"""`BaseTable.tbody_html` writes the same cells as django-tables2's own template, only faster.

Each table is rendered twice: as the site renders it, and through django-tables2's stock `table.html` (which
calls `BoundRow.items()` cell by cell). Cell attributes and contents must match; only the stock template's even/odd
row classes and its whitespace differ.
"""

import datetime
import re

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django_tables2 import RequestConfig

from keps.models import Kep
from keps.tables import KepTable
from meetings.models import Meeting
from meetings.tables import MeetingTable
from releases import selectors as release_selectors
from releases.choices import EnhancementStatus
from releases.tables import ReleaseTable, TrackedEnhancementTable
from tests.factories import (
    DesignGroupFactory,
    KepFactory,
    MeetingFactory,
    PersonFactory,
    ReleaseFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db


def cells(html: str) -> list[list[tuple[str, str]]]:
    """(td attributes, content) of each body row, whitespace-trimmed."""
    body = re.search(r"<tbody[^>]*>(.*?)</tbody>", html, flags=re.S).group(1)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, flags=re.S)
    return [
        [(attrs.strip(), content.strip()) for attrs, content in re.findall(r"<td([^>]*)>(.*?)</td>", row, flags=re.S)]
        for row in rows
    ]


def both_ways(table) -> tuple[list, list]:
    request = RequestFactory().get("/")
    RequestConfig(request).configure(table)
    site = table.as_html(request)
    stock = render_to_string("django_tables2/table.html", {"table": table}, request=request)
    return cells(site), cells(stock)


def test_kep_rows_match_django_tables2():
    kep = KepFactory(number=2727, title="gRPC <probes>", stage="beta", status="implementable", latest_milestone="1.27")
    DesignGroupFactory(name="Probes & checks").keps.add(kep)
    KepFactory(number=127, stage="", status="", latest_milestone="")
    site, stock = both_ways(KepTable(Kep.objects.select_related("owning_sig").prefetch_related("design_groups")))
    assert site == stock and len(site) == 2
    assert ("", '<span class="badge warn">Beta</span>') in site[1]
    assert site[1][1] == ("", '<a href="/keps/2727/">gRPC &lt;probes&gt;</a>')


def test_release_and_tracked_enhancement_rows_match_django_tables2():
    release = ReleaseFactory(version="1.24")
    TrackedEnhancementFactory(
        release=release,
        kep=KepFactory(number=2727),
        status=EnhancementStatus.AT_RISK_CODE,
        enhancements_contact=PersonFactory(github="gracenng"),
        docs_pr_urls="https://github.com/kubernetes/website/pull/1\nhttps://github.com/kubernetes/website/pull/2",
        feature_blog=True,
        feature_blog_pr_url="https://github.com/kubernetes/website/pull/3",
    )
    TrackedEnhancementFactory(release=release, kep=KepFactory(number=127), status=EnhancementStatus.DONE, type="")
    site, stock = both_ways(TrackedEnhancementTable(release_selectors.tracked_enhancement_list(release=release)))
    assert site == stock and len(site) == 2
    assert ('class="nowrap"', '<a href="/keps/127/">KEP-127</a>') in site[0] + site[1]
    site, stock = both_ways(ReleaseTable(release_selectors.release_list()))
    assert site == stock and len(site) == 1


def test_meeting_rows_match_django_tables2():
    MeetingFactory(date=datetime.date(2024, 9, 3), cancelled=True, title="")
    MeetingFactory(date=datetime.date(2024, 9, 10))
    queryset = Meeting.objects.select_related("sig").order_by("date")
    for meeting in queryset:
        meeting.item_count = 0
    site, stock = both_ways(MeetingTable(list(queryset), exclude=("matches",)))
    assert site == stock and len(site) == 2
    assert ("", '<span class="badge bad">cancelled</span>') in site[0]


def test_empty_table_says_so():
    site, stock = both_ways(KepTable(Kep.objects.none()))
    assert site == stock == [[('colspan="7"', KepTable._meta.empty_text)]]
