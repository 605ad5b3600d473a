"""One test per filter of the release FilterSets, each asserting the count."""

import pytest

from releases.choices import EnhancementStatus, ReleaseState
from releases.filtersets import ReleaseFilterSet, TrackedEnhancementFilterSet
from releases.models import Release, TrackedEnhancement
from tests.factories import KepFactory, PersonFactory, ReleaseFactory, SigFactory, TrackedEnhancementFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(db):
    release = ReleaseFactory(version="1.24")
    node, auth = SigFactory(slug="sig-node"), SigFactory(slug="sig-auth")
    TrackedEnhancementFactory(
        release=release,
        kep=KepFactory(number=2727, title="Add gRPC probe", owning_sig=node),
        status=EnhancementStatus.DONE,
        type="graduating",
        target_stage="beta",
        enhancements_contact=PersonFactory(github="Priyankasaggu11929"),
    )
    TrackedEnhancementFactory(
        release=release,
        kep=KepFactory(number=1287, title="In-place Pod vertical scaling", owning_sig=node),
        status=EnhancementStatus.REMOVED,
        type="net_new",
        target_stage="alpha",
    )
    TrackedEnhancementFactory(
        release=release,
        kep=KepFactory(number=127, title="Support user namespaces", owning_sig=auth),
        status=EnhancementStatus.REMOVED,
        type="net_new",
        target_stage="alpha",
    )
    return TrackedEnhancement.objects.all()


def count(params, queryset):
    filterset = TrackedEnhancementFilterSet(params, queryset=queryset)
    assert filterset.is_valid(), filterset.errors
    return filterset.qs.count()


def test_filter_sig(rows):
    assert count({"sig": "sig-auth"}, rows) == 1
    assert count({"sig": "sig-node"}, rows) == 2


def test_filter_type(rows):
    assert count({"type": "net_new"}, rows) == 2


def test_filter_stage(rows):
    assert count({"stage": "beta"}, rows) == 1


def test_filter_status(rows):
    assert count({"status": "removed_from_milestone"}, rows) == 2


@pytest.fixture
def board(rows):
    """The board's other columns on the fixture rows: 2727 approved PRR, docs placeholder, blog, a pending code
    freeze exception; 1287 PRR in review and a rejected enhancements freeze exception."""
    import datetime

    from releases.choices import DocsStatus, ExceptionDecision, Freeze, PrrStatus
    from releases.models import EnhancementException

    grpc, inplace = rows.get(kep__number=2727), rows.get(kep__number=1287)
    grpc.prr_status, grpc.docs_status, grpc.feature_blog = PrrStatus.APPROVED, DocsStatus.PLACEHOLDER, True
    grpc.save()
    inplace.prr_status = PrrStatus.IN_REVIEW
    inplace.save()
    at = datetime.datetime(2022, 3, 29, tzinfo=datetime.UTC)
    EnhancementException.objects.create(tracked_enhancement=grpc, freeze=Freeze.CODE, requested_at=at)
    EnhancementException.objects.create(
        tracked_enhancement=inplace,
        freeze=Freeze.ENHANCEMENTS,
        requested_at=at,
        decision=ExceptionDecision.REJECTED,
        decided_at=at + datetime.timedelta(days=1),
    )
    return rows


def test_filter_prr(board):
    assert count({"prr": "approved"}, board) == 1
    assert count({"prr": "not_started"}, board) == 1


def test_filter_prr_reads_the_prod_readiness_file_where_the_board_says_nothing(board):
    from keps.models import PrrApproval

    # KEP-127 is "not started" on the board, but its prod-readiness file names an approver for alpha.
    PrrApproval.objects.create(kep=board.get(kep__number=127).kep, stage="alpha", approver=PersonFactory())
    assert count({"prr": "approved"}, board) == 2
    assert count({"prr": "not_started"}, board) == 0
    assert count({"prr": "in_review"}, board) == 1


def test_filter_exception(board):
    assert count({"exception": "pending"}, board) == 1
    assert count({"exception": "rejected"}, board) == 1
    assert count({"exception": "approved"}, board) == 0
    assert count({"exception": "none"}, board) == 1


def test_filter_docs(board):
    assert count({"docs": "placeholder"}, board) == 1
    assert count({"docs": "none"}, board) == 2


def test_filter_feature_blog(board):
    assert count({"blog": "yes"}, board) == 1
    assert count({"blog": "no"}, board) == 2


def test_q_kep_number_forms(rows):
    assert count({"q": "127"}, rows) == 1  # exact number: not 1287 or 2727
    assert count({"q": "KEP-1287"}, rows) == 1
    assert count({"q": "#2727"}, rows) == 1


def test_q_title_and_contact(rows):
    assert count({"q": "pod vertical"}, rows) == 1
    assert count({"q": "@priyankasaggu"}, rows) == 1
    assert count({"q": "   "}, rows) == 3


def test_unknown_choice_is_an_error(rows):
    filterset = TrackedEnhancementFilterSet({"status": "bogus"}, queryset=rows)
    assert not filterset.is_valid()
    assert "status" in filterset.errors


def test_release_filterset_q_and_state(db):
    ReleaseFactory(version="1.24", name="Stargazer", state=ReleaseState.RELEASED)
    ReleaseFactory(version="1.25", name="Combiner", state=ReleaseState.RELEASED)
    ReleaseFactory(version="1.27", name="", state=ReleaseState.ACTIVE)
    releases = Release.objects.all()
    assert ReleaseFilterSet({"q": "v1.24"}, queryset=releases).qs.count() == 1
    assert ReleaseFilterSet({"q": "stargazer"}, queryset=releases).qs.count() == 1
    assert ReleaseFilterSet({"state": "active"}, queryset=releases).qs.count() == 1
    assert ReleaseFilterSet({"q": "1.2"}, queryset=releases).qs.count() == 3
