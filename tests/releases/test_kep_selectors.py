"""KEP-page selectors: perma-beta arithmetic, the KEP timeline, review load and design groups."""

import datetime

import pytest

from keps import selectors
from meetings import selectors as meeting_selectors
from releases import selectors_approvers, selectors_kep_timeline, selectors_perma_beta
from releases.choices import EnhancementStatus, MilestoneKind
from releases.models import EnhancementStatusChange
from tests.factories import (
    AgendaItemFactory,
    DesignGroupFactory,
    FeatureGateFactory,
    KepFactory,
    MeetingFactory,
    MilestoneFactory,
    PersonFactory,
    PrrApprovalFactory,
    ReleaseFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db
UTC = datetime.UTC


def releases(*versions):
    return {v: ReleaseFactory(version=v) for v in versions}


# --- perma-beta -----------------------------------------------------------------------------------------


def test_perma_beta_counts_releases_since_the_stage_against_the_newest_release():
    releases("1.22", "1.23", "1.24", "1.25")
    old = KepFactory(number=1, stage="beta", beta_milestone="1.22")  # 3 releases in beta at 1.25
    KepFactory(number=2, stage="beta", beta_milestone="1.23")  # 2
    KepFactory(number=3, stage="stable", beta_milestone="1.20", stable_milestone="1.22")  # graduated
    result = selectors_perma_beta.perma_beta_list(filters={})
    assert result.newest == "1.25"
    assert result.min_releases == 3
    assert [(row.kep.number, row.releases, row.since) for row in result.rows] == [(old.number, 3, "1.22")]


@pytest.mark.parametrize(("n", "expected"), [(1, [1, 2]), (2, [1, 2]), (3, [1]), (4, [])])
def test_perma_beta_n_is_a_filter(n, expected):
    releases("1.25")
    KepFactory(number=1, stage="beta", beta_milestone="1.22")
    KepFactory(number=2, stage="beta", beta_milestone="1.23")
    rows = selectors_perma_beta.perma_beta_list(filters={"min_releases": str(n)}).rows
    assert [row.kep.number for row in rows] == expected


def test_perma_beta_alpha_and_stage_filter():
    releases("1.30")
    KepFactory(number=1, stage="alpha", alpha_milestone="1.21")
    KepFactory(number=2, stage="beta", beta_milestone="1.25")
    assert [r.kep.number for r in selectors_perma_beta.perma_beta_list(filters={}).rows] == [1, 2]
    assert [r.kep.number for r in selectors_perma_beta.perma_beta_list(filters={"stage": "alpha"}).rows] == [1]


def test_perma_beta_orders_numerically_across_1_9_and_1_10():
    releases("1.10")
    KepFactory(number=1, stage="beta", beta_milestone="1.9")
    KepFactory(number=2, stage="beta", beta_milestone="1.7")
    rows = selectors_perma_beta.perma_beta_list(filters={"min_releases": "1"}).rows
    assert [(r.kep.number, r.releases) for r in rows] == [(2, 3), (1, 1)]


def test_newest_release_includes_kep_milestones():
    releases("1.24")
    KepFactory(stage="beta", beta_milestone="1.22", latest_milestone="1.26")
    assert selectors_perma_beta.newest_release_version() == "1.26"


def around_today(start_days: int, end_days: int) -> dict:
    """A release's dates relative to today: its state is read from them."""
    today = datetime.date.today()
    return {
        "cycle_start": today + datetime.timedelta(days=start_days),
        "planned_release_date": today + datetime.timedelta(days=end_days),
    }


def test_perma_beta_counts_against_the_current_release_not_the_newest_known():
    ReleaseFactory(version="1.34", state="released")
    ReleaseFactory(version="1.35", state="active", **around_today(-10, 80))
    ReleaseFactory(version="1.37", state="planning", **around_today(100, 200))  # a schedule published early
    KepFactory(number=1, stage="beta", beta_milestone="1.31", latest_milestone="1.40")
    result = selectors_perma_beta.perma_beta_list(filters={})
    assert result.newest == "1.35"
    assert [(r.kep.number, r.releases) for r in result.rows] == [(1, 4)]


def test_perma_beta_without_an_active_release_counts_against_the_latest_released():
    ReleaseFactory(version="1.34", state="released")
    ReleaseFactory(version="1.36", state="planning", **around_today(30, 120))
    KepFactory(number=1, stage="beta", beta_milestone="1.31")
    assert selectors_perma_beta.perma_beta_list(filters={}).newest == "1.34"


@pytest.mark.parametrize("status", ["withdrawn", "rejected", "replaced", "implemented"])
def test_perma_beta_leaves_out_closed_keps(status):
    releases("1.30")
    KepFactory(number=1, stage="alpha", alpha_milestone="1.19", status=status)
    KepFactory(number=2, stage="alpha", alpha_milestone="1.19", status="implementable")
    assert [r.kep.number for r in selectors_perma_beta.perma_beta_list(filters={}).rows] == [2]


def test_perma_beta_without_stage_milestone_uses_the_tracking_board():
    rel = releases("1.21", "1.26")
    kep = KepFactory(number=7, stage="beta", beta_milestone="")
    TrackedEnhancementFactory(kep=kep, release=rel["1.21"], target_stage="beta", status=EnhancementStatus.DONE)
    undated = KepFactory(number=8, stage="beta", beta_milestone="")
    result = selectors_perma_beta.perma_beta_list(filters={})
    assert [(r.kep.number, r.since, r.since_source, r.releases) for r in result.rows] == [
        (7, "1.21", "tracking board", 5)
    ]
    assert result.undated == 1
    assert undated.number not in [r.kep.number for r in result.rows]


@pytest.mark.parametrize("keps", [2, 40])
def test_perma_beta_reads_a_fixed_number_of_queries_whatever_the_keps(keps, django_assert_max_num_queries):
    rel = releases("1.21", "1.26")
    for number in range(keps):
        if number % 2:
            KepFactory(number=number + 1, stage="beta", beta_milestone="1.22")
        else:
            kep = KepFactory(number=number + 1, stage="beta", beta_milestone="")
            TrackedEnhancementFactory(kep=kep, release=rel["1.21"], target_stage="beta", status=EnhancementStatus.DONE)
    # The current release, the SIG choices, the KEPs in the stage, their boards, the qualifying KEPs.
    with django_assert_max_num_queries(5):
        result = selectors_perma_beta.perma_beta_list(filters={})
    assert len(result.rows) == keps and result.undated == 0


def test_perma_beta_lists_gates_owner_and_latest_mention():
    releases("1.27")
    kep = KepFactory(number=1287, stage="beta", beta_milestone="1.22")
    kep.authors.add(PersonFactory(github="vinaykul"))
    FeatureGateFactory(kep=kep, name="InPlacePodVerticalScaling")
    older = MeetingFactory(date=datetime.date(2022, 3, 1))
    newer = MeetingFactory(date=datetime.date(2022, 9, 6))
    AgendaItemFactory(meeting=older).keps.add(kep)
    AgendaItemFactory(meeting=newer).keps.add(kep)
    (row,) = selectors_perma_beta.perma_beta_list(filters={}).rows
    meeting_selectors.perma_beta_enrich(rows=[row])
    assert [g.name for g in row.feature_gates] == ["InPlacePodVerticalScaling"]
    assert row.kep.owning_sig.slug == "sig-node"
    assert row.kep.last_mention_date == datetime.date(2022, 9, 6)
    assert row.last_mention_url == "/meetings/sig-node/2022-09-06/"


def test_perma_beta_with_no_release_known_lists_nothing():
    KepFactory(number=1, stage="beta", beta_milestone="1.22")
    result = selectors_perma_beta.perma_beta_list(filters={"min_releases": "1"})
    assert (result.newest, result.rows, result.undated) == ("", [], 1)
    KepFactory(number=2, stage="beta", beta_milestone="1.22", latest_milestone="1.22")
    result = selectors_perma_beta.perma_beta_list(filters={"min_releases": "1"})
    assert (result.newest, result.rows) == ("1.22", [])  # its own latest milestone: 0 releases in beta


# --- timeline -------------------------------------------------------------------------------------------


def test_timeline_slips_missed_freeze_and_stages():
    rel = releases("1.25", "1.26", "1.27", "1.28")
    kep = KepFactory(number=1287, stage="beta", alpha_milestone="1.27", beta_milestone="", stable_milestone="1.40")
    t25 = TrackedEnhancementFactory(kep=kep, release=rel["1.25"], status=EnhancementStatus.REMOVED)
    EnhancementStatusChange.objects.create(
        tracked_enhancement=t25, from_status="", to_status="at_risk_enhancements",
        changed_at=datetime.datetime(2022, 9, 1, tzinfo=UTC),
    )  # fmt: skip
    EnhancementStatusChange.objects.create(
        tracked_enhancement=t25, from_status="at_risk_code", to_status="removed_from_milestone",
        changed_at=datetime.datetime(2022, 11, 2, tzinfo=UTC),
    )  # fmt: skip
    # No status history: the freeze is read from the release's schedule.
    t26 = TrackedEnhancementFactory(kep=kep, release=rel["1.26"], status=EnhancementStatus.DEFERRED)
    MilestoneFactory(release=rel["1.26"], kind=MilestoneKind.ENHANCEMENTS_FREEZE,
                     at=datetime.datetime(2023, 2, 10, tzinfo=UTC))  # fmt: skip
    EnhancementStatusChange.objects.create(
        tracked_enhancement=t26, from_status="", to_status="deferred",
        changed_at=datetime.datetime(2023, 2, 11, tzinfo=UTC),
    )  # fmt: skip
    TrackedEnhancementFactory(kep=kep, release=rel["1.27"], target_stage="alpha", status=EnhancementStatus.DONE)
    TrackedEnhancementFactory(kep=kep, release=rel["1.28"], target_stage="beta", status=EnhancementStatus.DONE)

    timeline = selectors_kep_timeline.kep_timeline(kep=kep)
    assert [r.release.version for r in timeline.rows] == ["1.25", "1.26", "1.27", "1.28"]
    assert timeline.slips == 2
    assert [r.slips_so_far for r in timeline.rows] == [1, 2, 2, 2]
    assert [r.missed_freeze for r in timeline.rows] == ["Code freeze", "Enhancements freeze", "", ""]
    # Reached: what shipped (done rows); kep.yaml's milestones are plans, kept apart where nothing shipped yet.
    assert timeline.reached == {"alpha": ("1.27", "tracking board"), "beta": ("1.28", "tracking board")}
    assert timeline.planned == {"stable": "1.40"}


def test_timeline_removed_without_any_record_of_when():
    kep = KepFactory()
    TrackedEnhancementFactory(kep=kep, status=EnhancementStatus.REMOVED)
    (row,) = selectors_kep_timeline.kep_timeline(kep=kep).rows
    assert row.slipped and row.missed_freeze == ""


def test_mentions_newest_first_and_capped():
    kep = KepFactory()
    for week in range(5):
        AgendaItemFactory(meeting=MeetingFactory(date=datetime.date(2022, 1, 4) + datetime.timedelta(weeks=week)),
                          title=f"week {week}").keps.add(kep)  # fmt: skip
    shown, total = meeting_selectors.kep_mentions(kep=kep, limit=3)
    assert [item.title for item in shown] == ["week 4", "week 3", "week 2"]
    assert total == 5


# --- review load ----------------------------------------------------------------------------------------


def test_approver_load_by_stage_with_prr_approver_of_the_target_stage():
    rel = releases("1.27", "1.28")
    derek, john, wojtek = (PersonFactory(github=g) for g in ("derekwaynecarr", "johnbelamaric", "wojtek-t"))
    resize = KepFactory(number=1287)
    probes = KepFactory(number=2727)
    other = KepFactory(number=3000)
    resize.approvers.add(derek)
    probes.approvers.add(derek)
    PrrApprovalFactory(kep=resize, stage="alpha", approver=john)
    PrrApprovalFactory(kep=resize, stage="beta", approver=wojtek)
    PrrApprovalFactory(kep=probes, stage="alpha", approver=john)  # no beta approval yet: alpha's approver holds
    TrackedEnhancementFactory(kep=resize, release=rel["1.28"], target_stage="beta")
    TrackedEnhancementFactory(kep=probes, release=rel["1.28"], target_stage="beta")
    TrackedEnhancementFactory(kep=other, release=rel["1.27"], target_stage="alpha")

    loads = {(load.person.github, load.role): load for load in selectors_approvers.approver_load(release=rel["1.28"])}
    assert set(loads) == {
        ("derekwaynecarr", "approver"),
        ("wojtek-t", "PRR approver"),
        ("johnbelamaric", "PRR approver"),
    }
    assert loads["derekwaynecarr", "approver"].count("beta") == 2
    assert [k.number for k in loads["wojtek-t", "PRR approver"].by_stage["beta"]] == [1287]
    assert [k.number for k in loads["johnbelamaric", "PRR approver"].by_stage["beta"]] == [2727]
    assert selectors_approvers.approver_load(release=None) == []


# --- design groups --------------------------------------------------------------------------------------


def test_design_group_shared_keps_are_linked_both_ways():
    dra, sched = DesignGroupFactory(slug="dra"), DesignGroupFactory(slug="scheduler")
    shared = KepFactory(number=4381)
    dra.keps.add(shared, KepFactory(number=3063))
    sched.keps.add(shared)
    dra_detail = selectors.design_group_detail(group=dra)
    sched_detail = selectors.design_group_detail(group=sched)
    assert [(k.kep.number, [g.slug for g in k.other_groups]) for k in dra_detail.shared] == [(4381, ["scheduler"])]
    assert [(k.kep.number, [g.slug for g in k.other_groups]) for k in sched_detail.shared] == [(4381, ["dra"])]


def test_design_group_needs_split_past_20_active_keps():
    group = DesignGroupFactory()
    group.keps.add(*[KepFactory(status="implementable") for _ in range(20)], KepFactory(status="implemented"))
    detail = selectors.design_group_detail(group=group)
    assert detail.active_count == 20 and not detail.needs_split
    group.keps.add(KepFactory(status="provisional"))
    detail = selectors.design_group_detail(group=group)
    assert detail.active_count == 21 and detail.needs_split
    listed = selectors.design_group_list().get(pk=group.pk)
    assert (listed.kep_count, listed.active_count) == (22, 21)


def test_kep_list_sorts_latest_milestone_numerically():
    KepFactory(number=1, latest_milestone="1.10")
    KepFactory(number=2, latest_milestone="1.9")
    KepFactory(number=3, latest_milestone="")
    ordered = selectors.kep_list().exclude(latest_milestone="").order_by("latest_major", "latest_minor")
    assert [k.number for k in ordered] == [2, 1]


def test_perma_beta_owning_sig_filter():
    releases("1.30")
    sched = KepFactory(number=1, stage="beta", beta_milestone="1.22", owning_sig__slug="sig-scheduling")
    KepFactory(number=2, stage="beta", beta_milestone="1.22")
    rows = selectors_perma_beta.perma_beta_list(filters={"owning_sig": "sig-scheduling"}).rows
    assert [r.kep.number for r in rows] == [sched.number]


def test_approver_load_sig_filter():
    rel = releases("1.28")["1.28"]
    approver = PersonFactory(github="dchen1107")
    node_kep, sched_kep = KepFactory(number=1), KepFactory(number=2, owning_sig__slug="sig-scheduling")
    for kep in (node_kep, sched_kep):
        kep.approvers.add(approver)
        TrackedEnhancementFactory(kep=kep, release=rel, target_stage="stable")
    (everyone,) = selectors_approvers.approver_load(release=rel)
    assert everyone.total == 2
    (node_only,) = selectors_approvers.approver_load(release=rel, sig=node_kep.owning_sig)
    assert [k.number for k in node_only.stable] == [1]
