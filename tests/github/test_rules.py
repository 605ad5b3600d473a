"""The GitHub rules of releases.rules, one scenario per row of the table, with the instants checked.
Pure functions: no database, no server."""

import datetime

from github_sync.github.payloads import TimelineEvent
from github_sync.rules import github_issue_verdict
from releases.choices import EnhancementStatus as S

D = datetime.timedelta
CYCLE = datetime.datetime(2025, 9, 8, tzinfo=datetime.UTC)
EF = datetime.datetime(2025, 10, 17, 0, 0, tzinfo=datetime.UTC)
CF = datetime.datetime(2025, 11, 7, tzinfo=datetime.UTC)
R = datetime.datetime(2025, 12, 17, tzinfo=datetime.UTC)
NOW = R + D(days=30)


def ev(kind, at, *, label="", milestone="", actor="lead"):
    return TimelineEvent(kind=kind, at=at, actor=actor, label=label, milestone=milestone)


def verdict(events, version="1.35", now=NOW, **kwargs):
    return github_issue_verdict(
        version=version,
        events=sorted(events, key=lambda e: e.at),
        enhancements_freeze=EF,
        release_day=R,
        cycle_start=CYCLE,
        now=now,
        **kwargs,
    )


def steps(v):
    return [(c.at, c.status, c.author) for c in v.changes]


def test_opted_in_whichever_came_later_milestone_or_label():
    t1, t2 = CYCLE + D(days=1), CYCLE + D(days=3)
    v = verdict([ev("milestoned", t1, milestone="v1.35", actor="m"), ev("labeled", t2, label="lead-opted-in")])
    assert v.opted_in_at == t2 and steps(v) == [(t2, S.AT_RISK_ENHANCEMENTS, "lead")]
    v = verdict([ev("labeled", t1, label="lead-opted-in"), ev("milestoned", t2, milestone="v1.35", actor="m")])
    assert v.opted_in_at == t2 and steps(v) == [(t2, S.AT_RISK_ENHANCEMENTS, "m")]


def test_tracked_yes_before_and_after_enhancements_freeze():
    opt = [ev("milestoned", CYCLE, milestone="v1.35"), ev("labeled", CYCLE, label="lead-opted-in")]
    before = verdict([*opt, ev("labeled", EF - D(hours=1), label="tracked/yes", actor="enh")])
    assert steps(before)[1:2] == [(EF - D(hours=1), S.TRACKED_ENHANCEMENTS, "enh")]
    assert before.status_at(EF) == S.TRACKED_ENHANCEMENTS
    after = verdict([*opt, ev("labeled", EF + D(days=2), label="tracked/yes", actor="enh")], now=EF + D(days=3))
    assert steps(after)[-1] == (EF + D(days=2), S.TRACKED_CODE, "enh")
    assert after.status_at(EF) == S.AT_RISK_ENHANCEMENTS


def test_removed_by_tracked_no_then_demilestoned_stays_one_removal():
    t_rm = CF + D(hours=2)
    v = verdict(
        [
            ev("milestoned", CYCLE, milestone="v1.35"),
            ev("labeled", CYCLE, label="lead-opted-in"),
            ev("labeled", EF - D(days=1), label="tracked/yes"),
            ev("unlabeled", t_rm, label="tracked/yes", actor="enh"),
            ev("labeled", t_rm, label="tracked/no", actor="enh"),
            ev("demilestoned", t_rm + D(minutes=1), milestone="v1.35", actor="bot"),
        ]
    )
    assert v.status == S.REMOVED and steps(v)[-1] == (t_rm, S.REMOVED, "enh")
    assert v.status_at(EF) == S.TRACKED_ENHANCEMENTS  # tracked at EF: counts as tracked, not done
    assert sum(c.status == S.REMOVED for c in v.changes) == 1


def test_tracked_yes_removed_alone_removes():
    t = EF - D(days=2)
    v = verdict(
        [
            ev("milestoned", CYCLE, milestone="v1.35"),
            ev("labeled", CYCLE, label="lead-opted-in"),
            ev("labeled", t - D(days=1), label="tracked/yes"),
            ev("unlabeled", t, label="tracked/yes", actor="enh"),
        ]
    )
    assert steps(v)[-1] == (t, S.REMOVED, "enh") and v.status_at(EF) == S.REMOVED  # never counted as tracked


def test_done_at_release_day_and_not_before_it_comes():
    events = [
        ev("milestoned", CYCLE, milestone="v1.35"),
        ev("labeled", CYCLE, label="lead-opted-in"),
        ev("labeled", EF - D(days=1), label="tracked/yes"),
        ev("unlabeled", R + D(days=2), label="tracked/yes", actor="cleanup"),  # end-of-release clean-up: ignored
    ]
    v = verdict(events)
    assert steps(v)[-1] == (R, S.DONE, "")
    assert verdict(events, now=R - D(days=1)).status == S.TRACKED_ENHANCEMENTS


def test_in_milestone_never_opted_in_is_not_tracked_except_before_the_label_existed():
    events = [ev("milestoned", CYCLE, milestone="v1.35")]
    v = verdict(events)
    assert v.in_milestone and v.not_opted_in and v.changes == []
    old = verdict([ev("milestoned", CYCLE, milestone="v1.25")], version="1.25")
    assert old.opted_in_at == CYCLE and old.status == S.AT_RISK_ENHANCEMENTS


def test_stage_at_enhancements_freeze_and_sig_label():
    v = verdict(
        [
            ev("labeled", CYCLE, label="sig/node"),
            ev("labeled", CYCLE, label="stage/beta"),
            ev("milestoned", CYCLE, milestone="v1.35"),
            ev("labeled", CYCLE, label="lead-opted-in"),
            ev("unlabeled", EF + D(days=1), label="stage/beta"),
            ev("labeled", EF + D(days=1), label="stage/stable"),
        ]
    )
    assert v.target_stage == "beta" and v.sigs == ("sig-node",)


def test_leftover_tracked_labels_from_an_earlier_release_say_nothing():
    earlier = CYCLE - D(days=60)
    v = verdict(
        [
            ev("milestoned", earlier, milestone="v1.34"),
            ev("labeled", earlier, label="lead-opted-in"),
            ev("labeled", earlier + D(days=1), label="tracked/no"),
            ev("demilestoned", earlier + D(days=1), milestone="v1.34"),
            ev("milestoned", CYCLE + D(days=1), milestone="v1.35", actor="lead2"),
        ]
    )
    assert steps(v) == [(CYCLE + D(days=1), S.AT_RISK_ENHANCEMENTS, "lead2")]


def test_re_added_after_removal_in_one_comment():
    t = EF + D(days=5)
    v = verdict(
        [
            ev("milestoned", CYCLE, milestone="v1.35"),
            ev("labeled", CYCLE, label="lead-opted-in"),
            ev("labeled", EF - D(days=3), label="tracked/no"),
            ev("demilestoned", EF - D(days=3), milestone="v1.35"),
            ev("labeled", t, label="tracked/yes", actor="enh"),
            ev("unlabeled", t, label="tracked/no", actor="enh"),
            ev("milestoned", t, milestone="v1.35", actor="enh"),
        ],
        now=t + D(days=1),
    )
    assert [c.status for c in v.changes] == [S.AT_RISK_ENHANCEMENTS, S.REMOVED, S.TRACKED_CODE]
    assert v.changes[-1].at == t
