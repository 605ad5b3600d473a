"""Every list endpoint costs the same queries at 10 rows as at 1,000 (at most 10)."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from community.models import Sig
from keps.models import DesignGroup, FeatureGate, Kep
from meetings.models import AgendaItem, Meeting
from releases.choices import EnhancementStatus, MilestoneKind
from releases.models import EnhancementStatusChange, Milestone, Release, TrackedEnhancement, status_writer
from retros.choices import ActionStatus, RetroCategory
from retros.models import RetroItem, Retrospective
from tests.factories import PersonFactory, ReleaseFactory, SigFactory

pytestmark = pytest.mark.django_db
DAY = datetime.date(2020, 1, 6)


def _keps(rows, sig):
    return Kep.objects.bulk_create(Kep(number=10_000 + i, title=f"KEP {i}", owning_sig=sig) for i in rows)


def _tracked(rows, sig, release):
    person = PersonFactory()
    with status_writer():  # rows laid out directly for a query count
        return TrackedEnhancement.objects.bulk_create(
            TrackedEnhancement(release=release, kep=kep, sig=sig, status=EnhancementStatus.AT_RISK_CODE,
                               enhancements_contact=person)
            for kep in _keps(rows, sig)
        )  # fmt: skip


def build(kind: str, rows: range):
    """Rows number `rows.start` to `rows.stop - 1` of the kind (so a second call adds to the first)."""
    sig = SigFactory(slug="sig-node")
    release = ReleaseFactory(version="1.28")
    if kind == "releases":
        Release.objects.bulk_create(Release(version=f"2.{i}", major=2, minor=i) for i in rows)
        Milestone.objects.bulk_create(
            Milestone(release=r, kind=MilestoneKind.CODE_FREEZE, at=datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC))
            for r in Release.objects.filter(major=2, minor__in=rows)
        )
    elif kind == "tracked-enhancements":
        _tracked(rows, sig, release)
    elif kind == "status-changes":
        EnhancementStatusChange.objects.bulk_create(
            EnhancementStatusChange(tracked_enhancement=te, to_status=EnhancementStatus.DONE)
            for te in _tracked(rows, sig, release)
        )
    elif kind == "keps":
        group, _ = DesignGroup.objects.get_or_create(name="g", slug="g")
        group.keps.add(*_keps(rows, sig))
    elif kind == "feature-gates":
        FeatureGate.objects.bulk_create(
            FeatureGate(name=f"Gate{i}", kep=kep) for i, kep in zip(rows, _keps(rows, sig), strict=True)
        )
    elif kind == "design-groups":
        kep = _keps(range(20_000 + rows.start, 20_001 + rows.start), sig)[0]
        groups = DesignGroup.objects.bulk_create(DesignGroup(name=f"G{i}", slug=f"g{i}") for i in rows)
        for group in groups[:10]:
            group.keps.add(kep)
            group.sigs.add(sig)
    elif kind in ("meetings", "agenda-items"):
        meetings = Meeting.objects.bulk_create(Meeting(sig=sig, date=DAY + datetime.timedelta(days=i)) for i in rows)
        items = AgendaItem.objects.bulk_create(AgendaItem(meeting=m, order=1, title="Swap") for m in meetings)
        kep = _keps(range(20_000 + rows.start, 20_001 + rows.start), sig)[0]
        for item in items[:10]:
            item.keps.add(kep)
    elif kind in ("retrospectives", "action-items"):
        sigs = Sig.objects.bulk_create(Sig(slug=f"sig-q{i}") for i in rows)
        retros = Retrospective.objects.bulk_create(Retrospective(release=release, sig=s) for s in sigs)
        RetroItem.objects.bulk_create(
            RetroItem(retrospective=r, category=RetroCategory.ACTION_ITEM, status=ActionStatus.OPEN, text="do it")
            for r in retros
        )
    elif kind == "sigs":
        Sig.objects.bulk_create(Sig(slug=f"sig-q{i}") for i in rows)
    else:
        raise AssertionError(kind)


ENDPOINTS = {
    "releases": "/api/v1/releases/",
    "tracked-enhancements": "/api/v1/tracked-enhancements/?release=1.28",
    "status-changes": "/api/v1/status-changes/?release=1.28",
    "keps": "/api/v1/keps/?owning_sig=sig-node",
    "feature-gates": "/api/v1/feature-gates/",
    "design-groups": "/api/v1/design-groups/",
    "meetings": "/api/v1/meetings/?q=swap",
    "agenda-items": "/api/v1/agenda-items/?q=swap",
    "retrospectives": "/api/v1/retrospectives/",
    "action-items": "/api/v1/action-items/?open=true",
    "sigs": "/api/v1/sigs/",
}


def _queries(client, url) -> tuple[int, int]:
    client.get(url + "&page_size=500" if "?" in url else url + "?page_size=500")  # warm: the first read of anything
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url + ("&" if "?" in url else "?") + "page_size=500", HTTP_ACCEPT="application/json")
    assert response.status_code == 200, response.content[:300]
    return len(captured), len(response.json()["results"])


@pytest.mark.parametrize("kind", list(ENDPOINTS))
def test_list_queries_do_not_grow_with_rows(client, kind):
    build(kind, range(10))
    small, small_rows = _queries(client, ENDPOINTS[kind])
    build(kind, range(10, 1_000))
    large, large_rows = _queries(client, ENDPOINTS[kind])
    assert small_rows >= 10 and large_rows == 500, (small_rows, large_rows)
    assert small == large, f"{kind}: {small} queries at 10 rows, {large} at 1,000"
    assert large <= 10
