"""A SIG's plan: candidates from each source, flags, capacity and the plan against outcome, on hand-made data."""

import datetime

import pytest
from django.core.management import call_command

from planning.choices import CapacityRole
from planning.models import CapacityLimit
from planning.selectors import plan_for
from planning.selectors_outcome import sig_outcomes
from planning.services import plan_candidate_propose, plan_decision_record
from releases.choices import MilestoneKind, ReleaseState
from releases.models import ReleaseStats
from tests.factories import KepFactory, MilestoneFactory, PersonFactory, ReleaseFactory, TrackedEnhancementFactory
from tests.keps.git_repos import EnhancementsRepo, kep_yaml

pytestmark = pytest.mark.django_db

UTC = datetime.UTC


def by_number(plan):
    return {c.kep.number: c for c in plan.candidates}


def test_candidates_from_each_source(node, users):
    plan_candidate_propose(
        user=users["nobody"], release="1.31", sig=node["sig"], kep=node["keps"][4], stage="beta", note="ready early"
    )
    rows = by_number(plan_for(version="1.31", sig=node["sig"]))
    assert sorted(rows) == [91001, 91002, 91003, 91004, 91005]  # not sig-apps' KEP-92001
    assert rows[91001].sources == ["kep.yaml"]
    assert rows[91002].sources == ["kep.yaml"]  # beta milestone 1.31, its current stage
    assert rows[91003].sources == ["slipped"]
    assert rows[91004].sources == ["perma-beta"]
    assert rows[91005].sources == ["proposed"]
    assert rows[91005].stage == "beta" and rows[91005].proposal.proposed_by == users["nobody"]
    assert rows[91003].last_outcome == "removed_from_milestone"


def test_flags(node):
    rows = by_number(plan_for(version="1.31", sig=node["sig"]))
    assert rows[91001].flags == []
    assert rows[91001].prr_approver == "pat" and rows[91001].prr_file
    assert rows[91002].flags == ["withdrawn", "no-prr-approver", "no-approver"]
    assert not rows[91002].counted  # listed, never counted as planned
    assert rows[91003].flags == ["not-implementable", "no-prr-approver"]
    assert "no-approver" in rows[91004].flags or rows[91004].approvers == ["dawn"]


def test_withdrawn_is_listed_last_and_not_loading_anyone(node):
    plan = plan_for(version="1.31", sig=node["sig"])
    assert plan.candidates[-1].kep.number == 91002


def test_slipped_twice_from_the_plan_history(node, tmp_path):
    repo = EnhancementsRepo(tmp_path / "enhancements")
    path = "keps/sig-node/91001-planned/kep.yaml"
    for minor, date in [(29, "2023-09-01T10:00:00Z"), (30, "2024-01-01T10:00:00Z"), (31, "2024-05-01T10:00:00Z")]:
        repo.commit({path: kep_yaml(91001, latest=f"1.{minor}")}, date=date)
    call_command("import_keps", "--history", str(repo.root), verbosity=0)
    rows = by_number(plan_for(version="1.31", sig=node["sig"]))
    assert rows[91001].slips == 2
    assert "slipped-twice" in rows[91001].flags


def test_past_release_reads_kep_yaml_at_its_freeze_from_the_plan_history(node, tmp_path):
    """v1.30's freeze was 9 Feb 2024: KEP-91001 named 1.30 then (and moved to 1.31 later); KEP-91004 named 1.30
    only after the freeze. Today's files name neither."""
    repo = EnhancementsRepo(tmp_path / "enhancements")
    one, four = "keps/sig-node/91001-planned/kep.yaml", "keps/sig-node/91004-stuck/kep.yaml"
    repo.commit({one: kep_yaml(91001, latest="1.30")}, date="2024-01-05T10:00:00Z")
    # The end of freeze day is Pacific: 20:00 UTC on the 9th is still freeze day there.
    repo.commit({four: kep_yaml(91004, stage="beta", latest="1.29")}, date="2024-02-09T20:00:00Z")
    repo.commit({one: kep_yaml(91001, latest="1.31")}, date="2024-03-01T10:00:00Z")
    repo.commit({four: kep_yaml(91004, stage="beta", latest="1.30")}, date="2024-03-02T10:00:00Z")
    call_command("import_keps", "--history", str(repo.root), verbosity=0)
    plan = plan_for(version="1.30", sig=node["sig"])
    assert plan.at_freeze and plan.kep_yaml_known
    rows = by_number(plan)
    assert rows[91001].sources == ["kep.yaml"]
    assert 91004 not in rows
    assert plan.outcome.planned_at_enhancements_freeze == 1


def test_past_release_without_history_says_kep_yaml_is_unknown(node):
    plan = plan_for(version="1.30", sig=node["sig"])
    assert plan.at_freeze and not plan.kep_yaml_known
    assert plan.outcome.planned_at_enhancements_freeze is None
    assert 91001 not in by_number(plan)  # today's files are not taken for the files at the freeze


def test_capacity_counts_all_candidates_before_decisions_and_committed_or_maybe_after(node, users):
    plan = plan_for(version="1.31", sig=node["sig"])
    dawn = next(r for r in plan.capacity if r.person == "dawn" and r.role == CapacityRole.APPROVER)
    assert dawn.planned == 3 and dawn.limit == 3 and not dawn.over  # 91001, 91003, 91004
    assert "at least 3" in dawn.basis
    plan_decision_record(user=users["lead"], release="1.31", sig=node["sig"], kep=node["keps"][0], decision="commit")
    plan_decision_record(
        user=users["lead"], release="1.31", sig=node["sig"], kep=node["keps"][2], decision="not_this_release"
    )
    plan = plan_for(version="1.31", sig=node["sig"])
    dawn = next(r for r in plan.capacity if r.person == "dawn" and r.role == CapacityRole.APPROVER)
    assert dawn.planned == 1 and dawn.keps == [91001]


def test_capacity_from_past_outcomes_and_the_admin_override(node, users):
    """dawn approved 4 KEPs that shipped in v1.29 and 2 in v1.28: her proven capacity is 4. With five
    candidates naming her she is over; a curator's limit of 6 lifts her."""
    sig = node["sig"]
    dawn = node["dawn"]
    r28, r29 = ReleaseFactory(version="1.28"), ReleaseFactory(version="1.29")
    for release, count in ((r28, 2), (r29, 4)):
        for _ in range(count):
            kep = KepFactory(owning_sig=sig, stage="stable")
            kep.approvers.add(dawn)
            TrackedEnhancementFactory(kep=kep, release=release, status="done")
    TrackedEnhancementFactory(kep=KepFactory(owning_sig=sig), release=r29, status="removed_from_milestone")
    for number in (91101, 91102):
        kep = KepFactory(number=number, owning_sig=sig, stage="alpha", latest_milestone="1.31")
        kep.approvers.add(dawn)
    plan = plan_for(version="1.31", sig=sig)
    row = next(r for r in plan.capacity if r.person == "dawn" and r.role == CapacityRole.APPROVER)
    assert (row.planned, row.limit, row.over) == (5, 4, True)
    assert row.basis == "proven: 4 shipped as approver in v1.29, the most in one release"
    assert "approver-over-capacity" in by_number(plan)[91001].flags
    assert "approver-over-capacity" not in by_number(plan)[91002].flags  # withdrawn: never counted
    CapacityLimit.objects.create(
        person=dawn, role=CapacityRole.APPROVER, limit=6, note="full time", set_by=users["curator"]
    )
    plan = plan_for(version="1.31", sig=sig)
    row = next(r for r in plan.capacity if r.person == "dawn" and r.role == CapacityRole.APPROVER)
    assert (row.limit, row.over) == (6, False)
    assert row.basis.startswith("set by curator on ") and row.basis.endswith(": full time")
    assert "approver-over-capacity" not in by_number(plan)[91001].flags


def test_prr_approver_capacity_counts_the_shipped_stage(node):
    pat = PersonFactory(github="prr-pat")
    release = ReleaseFactory(version="1.29")
    for stage in ("alpha", "alpha", "alpha", "beta"):
        kep = KepFactory(owning_sig=node["sig"], stage=stage)
        kep.prr_approvals.create(stage=stage, approver=pat)
        TrackedEnhancementFactory(kep=kep, release=release, status="done", target_stage="alpha")
    kep = KepFactory(number=91201, owning_sig=node["sig"], stage="alpha", latest_milestone="1.31")
    kep.prr_approvals.create(stage="alpha", approver=pat)
    row = next(r for r in plan_for(version="1.31", sig=node["sig"]).capacity if r.person == "prr-pat")
    assert row.role == "prr_approver" and row.limit == 3
    assert "the most shipped as prr approver in one release is 3" not in row.basis
    assert row.basis == "proven: 3 shipped as prr approver in v1.29, the most in one release"


def test_outcome_computed_by_hand(node, users, tmp_path):
    """v1.30 for sig-node: kep.yaml named 1.30 for KEP-91001 and KEP-91006 at the freeze (KEP-91007 too, but it
    was withdrawn then): planned 2. The leads committed KEP-91001 and marked KEP-91006 maybe: committed 1. The
    board tracked 3 at the freeze of which 1 shipped (stats)."""
    sig = node["sig"]
    KepFactory(number=91006, owning_sig=sig, stage="alpha")
    KepFactory(number=91007, owning_sig=sig, stage="alpha", status="withdrawn")
    repo = EnhancementsRepo(tmp_path / "enhancements")
    repo.commit(
        {
            "keps/sig-node/91001-a/kep.yaml": kep_yaml(91001, latest="1.30"),
            "keps/sig-node/91006-b/kep.yaml": kep_yaml(91006, stage="beta", milestones={"beta": "1.30"}),
            "keps/sig-node/91007-c/kep.yaml": kep_yaml(91007, latest="1.30", status="withdrawn"),
        },
        date="2024-01-05T10:00:00Z",
    )
    call_command("import_keps", "--history", str(repo.root), verbosity=0)
    past = node["past"]
    for number, decision in ((91001, "commit"), (91006, "maybe")):
        plan_decision_record(
            user=users["lead"],
            release="1.30",
            sig=sig,
            kep=KepFactory._meta.model.objects.get(number=number),
            decision=decision,
        )
    ReleaseStats.objects.create(release=past, sig=sig, tracked=3, done=1, counts={"status": {"done": 1, "deferred": 2}})
    ReleaseStats.objects.create(release=past, sig=None, tracked=9, done=4, counts={"status": {"done": 4}})
    outcome = plan_for(version="1.30", sig=sig).outcome
    assert outcome.as_dict() == {
        "planned_at_enhancements_freeze": 2,
        "committed": 1,
        "tracked_at_enhancements_freeze": 3,
        "shipped": 1,
    }
    by_release = {o.version: o for o in sig_outcomes(sig=sig, now=datetime.datetime.now(UTC))}
    assert by_release["1.30"].as_dict() == outcome.as_dict()
    # v1.31: freeze ahead, nothing decided: every figure unknown, none zero.
    assert by_release["1.31"].as_dict() == dict.fromkeys(outcome.as_dict())
    # sig-apps tracked nothing in v1.30 (no stats row of its own, the release's figures known): 0, not unknown.
    apps = {o.version: o for o in sig_outcomes(sig=node["apps"], now=datetime.datetime.now(UTC))}
    assert apps["1.30"].tracked_at_enhancements_freeze == 0 and apps["1.30"].shipped == 0


def test_plan_for_a_version_without_a_schedule(node):
    """A SIG plans a release before its schedule exists: KEP-91005 names 1.32, no Release row."""
    plan = plan_for(version="1.32", sig=node["sig"])
    assert plan.release is None and not plan.at_freeze
    assert {c.kep.number: c.sources for c in plan.candidates} == {91004: ["perma-beta"], 91005: ["kep.yaml"]}


def test_released_previous_release_makes_unfinished_rows_slipped(node):
    ahead = node["ahead"]
    ahead.state = ReleaseState.RELEASED
    ahead.save()
    kep = KepFactory(number=91301, owning_sig=node["sig"], stage="beta")
    TrackedEnhancementFactory(kep=kep, release=ahead, status="tracked_code")
    done = KepFactory(number=91302, owning_sig=node["sig"], stage="beta")
    TrackedEnhancementFactory(kep=done, release=ahead, status="done")
    MilestoneFactory(release=ReleaseFactory(version="1.32"), kind=MilestoneKind.ENHANCEMENTS_FREEZE)
    rows = by_number(plan_for(version="1.32", sig=node["sig"]))
    assert rows[91301].sources == ["slipped"] and 91302 not in rows


def test_perma_betas_are_counted_against_the_release_before_the_plan(node):
    """Beta since 1.28: two releases by 1.30 (not a candidate for 1.31), three by 1.31 (a candidate for 1.32)."""
    KepFactory(number=91401, owning_sig=node["sig"], stage="beta", beta_milestone="1.28")
    assert 91401 not in by_number(plan_for(version="1.31", sig=node["sig"]))
    assert by_number(plan_for(version="1.32", sig=node["sig"]))[91401].sources == ["perma-beta"]
