"""A small hand-made SIG Node for its v1.31 plan (the release still ahead) and v1.30 (freeze passed)."""

import datetime

import pytest
from django.contrib.auth import get_user_model

from community.choices import SigRole
from community.roles import sig_membership_grant
from releases.choices import MilestoneKind, ReleaseState
from tests.factories import (
    KepFactory,
    MilestoneFactory,
    PersonFactory,
    PrrApprovalFactory,
    ReleaseFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

UTC = datetime.UTC


@pytest.fixture
def node(db):
    """sig-node with:
    - KEP-91001 alpha, latest-milestone 1.31, approver dawn (PRR approver pat for alpha): kep.yaml;
    - KEP-91002 beta, beta milestone 1.31, withdrawn, no approver: kep.yaml, flagged withdrawn;
    - KEP-91003 tracked in 1.30 and removed from the milestone: slipped (provisional: not-implementable);
    - KEP-91004 beta since 1.26, plans nothing later: perma-beta;
    - KEP-91005 alpha planning 1.32: not a candidate unless proposed;
    - KEP-92001 of sig-apps naming 1.31: another SIG's.
    v1.30 released, its enhancements freeze long past; v1.31 ahead.
    """
    sig = SigFactory(slug="sig-node")
    apps = SigFactory(slug="sig-apps")
    dawn, pat, rev = PersonFactory(github="dawn"), PersonFactory(github="pat"), PersonFactory(github="rev")
    past = ReleaseFactory(version="1.30", state=ReleaseState.RELEASED)
    MilestoneFactory(release=past, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=datetime.datetime(2024, 2, 9, tzinfo=UTC))
    ahead = ReleaseFactory(version="1.31", state=ReleaseState.PLANNING)
    MilestoneFactory(
        release=ahead,
        kind=MilestoneKind.ENHANCEMENTS_FREEZE,
        at=datetime.datetime.now(UTC) + datetime.timedelta(days=30),
    )
    k1 = KepFactory(number=91001, title="Planned", owning_sig=sig, stage="alpha", latest_milestone="1.31")
    k1.approvers.add(dawn)
    k1.reviewers.add(rev)
    PrrApprovalFactory(kep=k1, stage="alpha", approver=pat)
    k2 = KepFactory(number=91002, title="Gone", owning_sig=sig, stage="beta", beta_milestone="1.31", status="withdrawn")
    k3 = KepFactory(number=91003, title="Slipped", owning_sig=sig, stage="alpha", status="provisional")
    k3.approvers.add(dawn)
    TrackedEnhancementFactory(kep=k3, release=past, status="removed_from_milestone")
    k4 = KepFactory(number=91004, title="Stuck", owning_sig=sig, stage="beta", beta_milestone="1.26")
    k4.approvers.add(dawn)
    k5 = KepFactory(number=91005, title="Later", owning_sig=sig, stage="alpha", latest_milestone="1.32")
    KepFactory(number=92001, title="Other SIG", owning_sig=apps, stage="alpha", latest_milestone="1.31")
    return {"sig": sig, "apps": apps, "past": past, "ahead": ahead, "keps": [k1, k2, k3, k4, k5], "dawn": dawn}


@pytest.fixture
def users(node):
    User = get_user_model()
    lead = User.objects.create_user("lead", password="x")
    sig_membership_grant(user=lead, sig=node["sig"], role=SigRole.LEAD)
    other_lead = User.objects.create_user("apps-lead", password="x")
    sig_membership_grant(user=other_lead, sig=node["apps"], role=SigRole.LEAD)
    liaison = User.objects.create_user("liaison", password="x")
    sig_membership_grant(user=liaison, sig=node["sig"], role=SigRole.LIAISON)
    nobody = User.objects.create_user("nobody", password="x")
    curator = User.objects.create_superuser("curator", password="x")
    return {"lead": lead, "other_lead": other_lead, "liaison": liaison, "nobody": nobody, "curator": curator}
