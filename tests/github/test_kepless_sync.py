"""Syncs leave a KEP-less tracked enhancement (an early feature sheet's feature naming no issue) alone: it has no
tracking issue and no board item, and what it says comes from the sheet."""

import pytest

from releases.choices import EnhancementStatus as S
from releases.choices import HistorySource
from releases.models import TrackedEnhancement
from releases.services.board_sync import board_release_sync
from releases.services.github_sync import github_release_sync
from releases.services.tracking import tracked_enhancement_create
from tests.github.test_board import T0, board, world  # noqa: F401 (fixtures)
from tests.github.test_sync import make_release, scenario

pytestmark = pytest.mark.django_db


def _kepless(release, sig):
    return tracked_enhancement_create(
        release=release, feature_name="Old feature", sig=sig, status=S.DONE, source=HistorySource.FEATURE_SHEET
    )


def test_the_github_sync_leaves_a_kepless_row_alone(github):
    from tests.factories import KepFactory, SigFactory

    release = make_release()
    sig = SigFactory(slug="sig-node")
    KepFactory(number=102, owning_sig=sig, title="Node swap")
    row = _kepless(release, sig)
    scenario(github)
    report = github_release_sync(version="1.35", repo="kubernetes/enhancements")
    assert report.created == 2
    row.refresh_from_db()
    assert (row.status, row.github_issue_url, row.history.count()) == (S.DONE, "", 1)
    assert TrackedEnhancement.objects.filter(release=release).count() == 3


def test_the_board_sync_leaves_a_kepless_row_alone(world):  # noqa: F811 (the fixture imported above)
    from keps.models import Sig

    row = _kepless(world, Sig.objects.get(slug="sig-node"))
    board_release_sync(version="1.36", now=T0)
    row.refresh_from_db()
    assert (row.status, row.board_status, row.history.count()) == (S.DONE, "", 1)
    assert TrackedEnhancement.objects.filter(release=world, kep__isnull=False).count() == 2
