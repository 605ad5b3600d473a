"""The board's words in sigtracker's vocabulary (releases.rules): the spellings cycles used, and nothing guessed."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from github_sync.rules import (
    board_exception_decision,
    board_exception_freeze,
    board_labels_disagree,
    board_prr_status,
    board_sig,
    board_stage,
    board_status,
    board_type,
    is_release_board_title,
)
from releases.choices import EnhancementStatus as S


@pytest.mark.parametrize(
    "value, status",
    [
        ("Tracked For Enhancement Freeze", S.TRACKED_ENHANCEMENTS),
        ("Tracked for enhancements freeze", S.TRACKED_ENHANCEMENTS),
        ("At Risk for Enhancements Freeze", S.AT_RISK_ENHANCEMENTS),
        ("AT RISK FOR CODE FREEZE", S.AT_RISK_CODE),
        ("Tracked for Code Freeze", S.TRACKED_CODE),
        ("At risk for Docs Freeze", S.AT_RISK_DOCS),
        ("Tracked for PRR Freeze", S.TRACKED_PRR),
        ("Exception Pending", S.EXCEPTION_PENDING),
        ("Exception Approved", S.EXCEPTION_APPROVED),
        ("Deferred", S.DEFERRED),
        ("Removed From Milestone", S.REMOVED),
        ("  removed from   milestone ", S.REMOVED),
    ],
)
def test_status_spellings(value, status):
    assert board_status(value) == status


@pytest.mark.parametrize("value", ["Tracked", "At risk", "Tracked for freeze", "Blocked", "", "Code freeze"])
def test_status_not_guessed(value):
    assert board_status(value) is None


@given(st.text(max_size=40))
def test_status_is_known_or_none(value):
    assert board_status(value) in (None, *S.values)


def test_other_columns():
    assert [board_type(v) for v in ("Net New", "Major Change", "graduating", "Deprecation", "Docs", "Spike")] == [
        "net_new",
        "major_change",
        "graduating",
        "deprecation",
        "docs",
        None,
    ]
    assert [board_stage(v) for v in ("Alpha", "beta", "Stable", "GA", "Rocket")] == [
        "alpha",
        "beta",
        "stable",
        "stable",
        None,
    ]
    assert [board_prr_status(v) for v in ("Not Started", "In Review", "Approved", "??")] == [
        "not_started",
        "in_review",
        "approved",
        None,
    ]
    assert board_sig("SIG Node") == board_sig("sig-node") == board_sig("node") == "sig-node"
    assert board_sig("SIG API Machinery") == "sig-api-machinery" and board_sig("") == ""
    assert [board_exception_freeze(v) for v in ("Enhancements Freeze", "Code Freeze Exception", "Docs", "Lunch")] == [
        "enhancements",
        "code",
        "docs",
        None,
    ]
    assert [board_exception_decision(v) for v in ("In Review", "Approved", "Rejected", "Maybe")] == [
        "pending",
        "approved",
        "rejected",
        None,
    ]


def test_board_titles():
    assert is_release_board_title("v1.36 Enhancements Tracking", "1.36")
    assert is_release_board_title("1.29 Enhancement Tracking", "1.29")
    assert not is_release_board_title("v1.36 Enhancements Tracking", "1.3")
    assert not is_release_board_title("v1.36 Release Notes", "1.36")


def test_disagreement_is_in_play_against_out():
    assert board_labels_disagree(board=S.TRACKED_CODE, labels=S.REMOVED)
    assert board_labels_disagree(board=S.REMOVED, labels=S.TRACKED_ENHANCEMENTS)
    assert not board_labels_disagree(board=S.AT_RISK_CODE, labels=S.TRACKED_ENHANCEMENTS)  # labels can't say freeze
    assert not board_labels_disagree(board=S.TRACKED_CODE, labels="")  # no label history: nothing to compare
