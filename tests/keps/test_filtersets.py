"""One test per filter of the KEP-page FilterSets, each asserting how many rows match."""

import pytest

from keps.filtersets import DesignGroupFilterSet, FeatureGateFilterSet, KepFilterSet
from keps.models import DesignGroup, FeatureGate, Kep
from tests.factories import (
    DesignGroupFactory,
    FeatureGateFactory,
    KepFactory,
    PersonFactory,
    PrrApprovalFactory,
    ReleaseFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def keps():
    node, sched = SigFactory(slug="sig-node"), SigFactory(slug="sig-scheduling")
    alice, bob = PersonFactory(github="alice"), PersonFactory(github="Bob")
    a = KepFactory(number=2727, title="gRPC container probes", owning_sig=node, stage="stable", status="implemented")
    b = KepFactory(number=1287, title="In-place pod resize", owning_sig=node, stage="beta", status="implementable")
    c = KepFactory(number=624, title="Scheduling framework", owning_sig=sched, stage="stable", status="implemented")
    d = KepFactory(number=4671, title="Gang scheduling", owning_sig=sched, stage="alpha", status="provisional")
    b.participating_sigs.add(sched)
    d.participating_sigs.add(node)
    a.authors.add(alice)
    b.authors.add(alice, bob)
    b.approvers.add(bob)
    c.approvers.add(bob, alice)
    PrrApprovalFactory(kep=b, stage="beta", approver=alice)
    PrrApprovalFactory(kep=b, stage="alpha", approver=alice)
    resize = DesignGroupFactory(slug="in-place-resize")
    resize.keps.add(b)
    gang = DesignGroupFactory(slug="workload-gang")
    gang.keps.add(c, d)
    r27, r28 = ReleaseFactory(version="1.27"), ReleaseFactory(version="1.28")
    TrackedEnhancementFactory(kep=b, release=r27)
    TrackedEnhancementFactory(kep=b, release=r28)
    TrackedEnhancementFactory(kep=d, release=r28)
    return {"a": a, "b": b, "c": c, "d": d}


def count(data):
    return KepFilterSet(data, queryset=Kep.objects.all()).qs.count()


def test_no_filter_lists_all(keps):
    assert count({}) == 4


@pytest.mark.parametrize(
    ("query", "expected"),
    [("2727", 1), ("KEP-2727", 1), ("#624", 1), ("scheduling", 2), ("RESIZE", 1), ("nothing like it", 0)],
)
def test_q_searches_number_and_title(keps, query, expected):
    assert count({"q": query}) == expected


def test_owning_sig(keps):
    assert count({"owning_sig": "sig-node"}) == 2


def test_participating_sig(keps):
    assert count({"participating_sig": "sig-scheduling"}) == 1


def test_stage(keps):
    assert count({"stage": "stable"}) == 2


def test_status(keps):
    assert count({"status": "provisional"}) == 1


def test_author_is_case_insensitive_and_distinct(keps):
    assert count({"author": "ALICE"}) == 2


def test_approver(keps):
    assert count({"approver": "bob"}) == 2


def test_prr_approver_counts_each_kep_once(keps):
    assert count({"prr_approver": "alice"}) == 1


def test_design_group(keps):
    assert count({"design_group": "workload-gang"}) == 2


def test_release_tracked_in(keps):
    assert count({"release": "1.28"}) == 2
    assert count({"release": "1.27"}) == 1


def test_filters_combine(keps):
    assert count({"owning_sig": "sig-node", "stage": "beta", "release": "1.28"}) == 1


def test_unknown_choice_is_a_form_error(keps):
    filterset = KepFilterSet({"owning_sig": "sig-nope"}, queryset=Kep.objects.all())
    assert not filterset.is_valid()
    assert "owning_sig" in filterset.errors


def test_feature_gate_filters():
    node, sched = SigFactory(slug="sig-node"), SigFactory(slug="sig-scheduling")
    kep = KepFactory(number=1287, owning_sig=node, stage="beta")
    FeatureGateFactory(name="InPlacePodVerticalScaling", kep=kep, components=["kubelet", "kube-apiserver"])
    FeatureGateFactory(name="SchedulerQueueingHints", kep=KepFactory(owning_sig=sched, stage="beta"),
                       components=["kube-scheduler"])  # fmt: skip
    FeatureGateFactory(name="KubeletPodResources", kep=KepFactory(owning_sig=node, stage="stable"),
                       components=["kubelet"])  # fmt: skip

    def gates(data):
        return FeatureGateFilterSet(data, queryset=FeatureGate.objects.all()).qs.count()

    assert gates({}) == 3
    assert gates({"q": "inplace"}) == 1
    assert gates({"q": "1287"}) == 1
    assert gates({"component": "kubelet"}) == 2
    # `kube` is not a component: the match is per element, not a substring of the list.
    assert gates({"component": "kube"}) == 0
    assert gates({"stage": "beta"}) == 2
    assert gates({"sig": "sig-scheduling"}) == 1


def test_design_group_filters():
    node = SigFactory(slug="sig-node")
    first = DesignGroupFactory(name="Dynamic resource allocation", summary="DRA and device plugins")
    first.sigs.add(node)
    DesignGroupFactory(name="Scheduler core", coverage_status="detailed")

    def groups(data):
        return DesignGroupFilterSet(data, queryset=DesignGroup.objects.all()).qs.count()

    assert groups({"q": "device"}) == 1
    assert groups({"sig": "sig-node"}) == 1
    assert groups({"coverage_status": "detailed"}) == 1
