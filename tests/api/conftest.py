"""Data and clients for the API and feed tests."""

import datetime

import pytest
from django.core.cache import caches
from django.utils import timezone

from releases.choices import EnhancementStatus, ExceptionDecision, Freeze, MilestoneKind, ReleaseRoleKind
from releases.models import EnhancementException, ReleaseTeamMember
from releases.services.tracking import tracked_enhancement_set_status
from retros.choices import ActionStatus, RetroCategory
from tests.factories import (
    AgendaItemFactory,
    DesignGroupFactory,
    FeatureGateFactory,
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


@pytest.fixture(autouse=True)
def _api_settings(settings):
    """A limit no ordinary test reaches, and counters that start from zero in each test."""
    settings.SIGTRACKER_API_ANON_RATE = "10000/minute"
    caches[settings.SIGTRACKER_API_THROTTLE_CACHE].clear()
    yield
    caches[settings.SIGTRACKER_API_THROTTLE_CACHE].clear()


@pytest.fixture
def api_data(db):
    """Two SIGs, two releases, KEPs tracked with a mix of statuses and a history, gates, a design group, meetings
    with searchable agenda items, a retro with action items."""
    node = SigFactory(slug="sig-node", name="SIG Node", in_community=True)
    apps = SigFactory(slug="sig-apps", name="SIG Apps", in_community=True)
    alice = PersonFactory(github="alice")
    r127 = ReleaseFactory(version="1.27", state="released")
    r128 = ReleaseFactory(version="1.28", state="active")
    MilestoneFactory(release=r128, kind=MilestoneKind.CODE_FREEZE)
    MilestoneFactory(
        release=r128, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=timezone.now() - datetime.timedelta(days=3)
    )
    statuses = [
        EnhancementStatus.AT_RISK_CODE,
        EnhancementStatus.TRACKED_CODE,
        EnhancementStatus.DONE,
        EnhancementStatus.AT_RISK_CODE,
        EnhancementStatus.REMOVED,
        EnhancementStatus.TRACKED_ENHANCEMENTS,
    ]
    keps = []
    for i, status in enumerate(statuses):
        sig = node if i % 2 == 0 else apps
        kep = KepFactory(
            number=2000 + i, title=f"Graceful thing {i}", owning_sig=sig, stage="beta" if i < 3 else "alpha"
        )
        kep.authors.add(alice)
        keps.append(kep)
        te = TrackedEnhancementFactory(
            release=r128, kep=kep, sig=sig, status=EnhancementStatus.AT_RISK_ENHANCEMENTS, enhancements_contact=alice
        )
        tracked_enhancement_set_status(tracked_enhancement=te, status=status, author="bob", note="from the board")
        TrackedEnhancementFactory(release=r127, kep=kep, sig=sig, status=EnhancementStatus.DEFERRED)
        FeatureGateFactory(
            name=f"GracefulGate{i}", kep=kep, components=["kubelet"] if i % 2 == 0 else ["kube-apiserver"]
        )
    group = DesignGroupFactory(name="Graceful shutdown", slug="graceful-shutdown")
    group.keps.add(keps[0], keps[1])
    group.sigs.add(node, apps)
    for week in range(3):
        meeting = MeetingFactory(sig=node, date=datetime.date(2023, 5, 2) + datetime.timedelta(weeks=week))
        AgendaItemFactory(meeting=meeting, order=1, title=f"Swap support update {week}", body="kubelet swap beta")
        AgendaItemFactory(meeting=meeting, order=2, title="Pod lifecycle", body="sidecar containers")
    MeetingFactory(sig=apps, date=datetime.date(2023, 5, 2), title="SIG Apps weekly")
    # Exception requests: one of a tracked KEP (approved), one of a kubernetes/kubernetes issue (no KEP).
    asked = datetime.datetime(2023, 7, 20, tzinfo=datetime.UTC)
    EnhancementException.objects.create(
        tracked_enhancement=te,
        freeze=Freeze.CODE,
        requested_at=asked,
        decision=ExceptionDecision.APPROVED,
        decided_at=asked + datetime.timedelta(days=1),
        pull_request_urls="https://github.com/kubernetes/kubernetes/pull/1",
    )
    EnhancementException.objects.create(
        release=r128,
        issue_url="https://github.com/kubernetes/kubernetes/issues/2",
        freeze=Freeze.CODE,
        requested_at=asked,
    )
    ReleaseTeamMember.objects.create(
        release=r128, person=alice, role=ReleaseRoleKind.ENHANCEMENTS, role_label="Enhancements", is_shadow=True
    )
    retro = RetrospectiveFactory(release=r127, sig=node, date=datetime.date(2023, 5, 20))
    RetroItemFactory(retrospective=retro, category=RetroCategory.WENT_WELL, text="Fast reviews")
    RetroItemFactory(
        retrospective=retro,
        category=RetroCategory.ACTION_ITEM,
        text="Write the docs",
        status=ActionStatus.OPEN,
        owner=alice,
    )
    RetroItemFactory(
        retrospective=retro, category=RetroCategory.ACTION_ITEM, text="Fix CI", status=ActionStatus.DONE, order=2
    )
    return {"node": node, "apps": apps, "r127": r127, "r128": r128, "keps": keps, "group": group, "retro": retro}


@pytest.fixture
def token_user(django_user_model):
    return django_user_model.objects.create_user(username="bot-owner", password="x")


@pytest.fixture
def api_token(token_user):
    from api.services import api_token_create

    _, key = api_token_create(user=token_user, name="release-notes bot")
    return key
