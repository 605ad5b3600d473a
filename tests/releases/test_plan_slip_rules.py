"""The slip rule of planned releases (`releases.rules.plan_slip`, `planned_target`): one case per clause."""

import datetime
import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from releases.rules import PACIFIC, end_of_day_pacific, plan_slip, planned_target


@pytest.mark.parametrize(
    ("before", "after", "slipped_from"),
    [
        (("alpha", "1.22"), ("alpha", "1.23"), "1.22"),  # the stage's milestone moved later: a slip
        (("alpha", "1.26"), ("beta", "1.27"), ""),  # graduated: no slip
        (("beta", "1.27"), ("stable", "1.29"), ""),  # graduated again
        (("alpha", "1.27"), ("alpha", "1.26"), ""),  # moved earlier: no slip
        (("alpha", "1.27"), ("alpha", "1.27"), ""),  # unchanged
        (("beta", "1.30"), ("alpha", "1.31"), "1.30"),  # went back a stage and later: not advancing, a slip
        (("alpha", "1.9"), ("alpha", "1.10"), "1.9"),  # releases compare numerically
        (("alpha", ""), ("alpha", "1.27"), ""),  # no earlier target to slip from
        (("alpha", "1.27"), ("alpha", ""), ""),  # a placeholder is no release
        (("", "1.27"), ("alpha", "1.28"), ""),  # a stage appearing: nothing to compare
    ],
)
def test_plan_slip(before, after, slipped_from):
    assert (
        plan_slip(before_stage=before[0], before_target=before[1], after_stage=after[0], after_target=after[1])
        == slipped_from
    )


def test_staying_alpha_for_another_release_is_a_slip():
    """alpha reached in 1.27; latest-milestone 1.28 with stage still alpha: the alpha target is now 1.28."""
    before = planned_target(stage="alpha", latest="1.27", milestones={"alpha": "1.27"})
    after = planned_target(stage="alpha", latest="1.28", milestones={"alpha": "1.27"})
    assert (before, after) == ("1.27", "1.28")
    assert plan_slip(before_stage="alpha", before_target=before, after_stage="alpha", after_target=after) == "1.27"


def test_staying_stable_is_not_a_slip():
    """Stable is an end state: a later latest-milestone (upkeep) does not move the stable target."""
    before = planned_target(stage="stable", latest="1.29", milestones={"stable": "1.29"})
    after = planned_target(stage="stable", latest="1.30", milestones={"stable": "1.29"})
    assert before == after == "1.29"
    assert planned_target(stage="stable", latest="1.30", milestones={}) == "1.30"


def test_end_of_freeze_day_is_midnight_pacific():
    freeze = datetime.datetime(2024, 6, 14, 23, 0, tzinfo=datetime.UTC)  # 16:00 PDT
    assert end_of_day_pacific(freeze) == datetime.datetime(2024, 6, 15, tzinfo=PACIFIC)
    assert end_of_day_pacific(freeze).astimezone(datetime.UTC).hour == 7


def test_end_of_an_all_day_freeze_is_midnight_pacific_after_its_date():
    stored = datetime.datetime(2024, 6, 14, tzinfo=datetime.UTC)  # all day on 14 June, stored as midnight UTC
    assert end_of_day_pacific(stored, all_day=True) == datetime.datetime(2024, 6, 15, tzinfo=PACIFIC)


@given(st.lists(st.integers(20, 40), min_size=2, max_size=8, unique=True))
def test_a_stage_kept_while_its_target_only_moves_later_slips_each_time(minors):
    minors = sorted(minors)
    slips = [
        plan_slip(before_stage="beta", before_target=f"1.{a}", after_stage="beta", after_target=f"1.{b}")
        for a, b in itertools.pairwise(minors)
    ]
    assert slips == [f"1.{a}" for a in minors[:-1]]


@given(st.integers(20, 40), st.integers(0, 5), st.integers(1, 2))
def test_advancing_a_stage_is_never_a_slip(minor, later, steps):
    stages = ["alpha", "beta", "stable"]
    before = stages[0]
    after = stages[steps]
    assert not plan_slip(
        before_stage=before, before_target=f"1.{minor}", after_stage=after, after_target=f"1.{minor + later}"
    )
