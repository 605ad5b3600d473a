"""The release-cycle rules (releases/rules/) and the consumers that must agree with them.

For every kind of freeze and every board status, the dashboard's at-risk list, the reminders' "who still
has to act" and the rules say the same thing; the KEP timeline names the freeze a slip missed from the same
table; the funnel counts what the rules call in play.
"""

import datetime
from pathlib import Path

import pytest

from keps.models import PrrApproval
from releases import rules, selectors
from releases.choices import EnhancementStatus, Freeze, MilestoneKind
from releases.models import EnhancementStatusChange, TrackedEnhancement
from releases.prr import prr_of, with_prr
from releases.selectors_kep_timeline import kep_timeline
from reminders.content import digest_context
from reminders.due import reminders_due
from reminders.planning import reminder_deliveries_plan
from tests.factories import KepFactory, MilestoneFactory, PersonFactory, ReleaseFactory, SigFactory
from tests.factories import TrackedEnhancementFactory as TrackedFactory

UTC = datetime.UTC
DAY = datetime.timedelta(days=1)
FREEZE_AT = datetime.datetime(2030, 3, 4, 18, 0, tzinfo=UTC)


def test_every_freeze_kind_checks_a_freeze_of_the_board_and_has_requirements():
    assert set(rules.MILESTONE_FREEZE) == set(rules.FREEZE_KINDS)
    assert set(rules.REQUIREMENTS) == set(rules.FREEZE_KINDS)
    assert all(rules.REQUIREMENTS[kind] for kind in rules.FREEZE_KINDS)
    # The feature-blog freeze asks for its own thing, not the enhancements freeze's list.
    blog, enhancements = MilestoneKind.FEATURE_BLOG_FREEZE, MilestoneKind.ENHANCEMENTS_FREEZE
    assert rules.REQUIREMENTS[blog] != rules.REQUIREMENTS[enhancements]
    # Each board freeze is closed by the milestone of the same name.
    for freeze, kind in rules.FREEZE_MILESTONE.items():
        assert rules.MILESTONE_FREEZE[kind] == freeze


@pytest.mark.parametrize("status", EnhancementStatus.values)
def test_every_status_is_classified_once(status):
    out = status in rules.OUT_OF_PLAY
    assert rules.is_in_play(status) is not out
    if status in rules.AT_RISK_STATUSES:
        assert rules.STATUS_FREEZE[status] and not out
        # At risk for a freeze is not ready for it, but has met the freezes before it.
        own = rules.STATUS_FREEZE[status]
        assert not rules.is_ready_for(status, own)
        for earlier in rules.FREEZE_ORDER[: rules.FREEZE_ORDER.index(own)]:
            assert rules.is_ready_for(status, earlier)


def test_exceptions_and_done():
    for freeze in rules.FREEZE_ORDER:
        assert rules.is_ready_for(EnhancementStatus.DONE, freeze, exception_window=True)
        assert not rules.is_ready_for(EnhancementStatus.EXCEPTION_PENDING, freeze)
        assert rules.is_ready_for(EnhancementStatus.EXCEPTION_APPROVED, freeze)
        assert not rules.is_ready_for(EnhancementStatus.EXCEPTION_APPROVED, freeze, exception_window=True)


def _board(kind):
    """A release with one freeze of `kind` and one tracked KEP in every status, each with its own author."""
    release = ReleaseFactory(version="1.40")
    milestone = MilestoneFactory(release=release, kind=kind, at=FREEZE_AT, sends_reminders=True)
    sig = SigFactory(slug="sig-node", mailing_list="node@example.com")
    opened = FREEZE_AT - 30 * DAY
    rows = {}
    for number, status in enumerate(EnhancementStatus.values, start=3000):
        kep = KepFactory(number=number, owning_sig=sig)
        author = PersonFactory(github=f"author{number}", email=f"author{number}@example.com")
        kep.authors.add(author)
        row = TrackedFactory(release=release, kep=kep, sig=sig, status=status, created_at=opened)
        EnhancementStatusChange.objects.create(tracked_enhancement=row, to_status=status, changed_at=opened)
        rows[status] = row
    return release, milestone, rows


@pytest.mark.django_db
@pytest.mark.parametrize("kind", rules.FREEZE_KINDS)
def test_dashboard_reminders_and_rules_agree_for_every_freeze_kind_and_status(kind):
    release, milestone, rows = _board(kind)
    freeze = rules.MILESTONE_FREEZE[kind]

    at_risk_rows, _, _ = selectors.at_risk_for_milestone(release=release, milestone=milestone, limit=100)
    at_risk = {row.status for row in at_risk_rows}

    planned = reminder_deliveries_plan(now=FREEZE_AT - 7 * DAY)
    chased = {number for p in planned if p.kind == "personal" for number in p.keps}
    reminded = {status: row for status, row in rows.items() if row.kep.number in chased}
    # Readiness by the rule, PRR included (no KEP here has a PRR approval, on the board or in a file).
    board = {row.status: row for row in with_prr(TrackedEnhancement.objects.filter(release=release))}
    not_ready = {
        status
        for status in EnhancementStatus.values
        if not rules.is_ready_for(status, freeze, prr=prr_of(board[status]))
    }

    assert at_risk == {rules.AT_RISK_FOR[freeze]}
    assert set(reminded) == not_ready
    # Whatever the dashboard calls at risk, the reminders chase.
    assert at_risk <= set(reminded)


@pytest.mark.django_db
def test_kep_timeline_names_the_freeze_a_slip_missed_from_the_rules():
    release = ReleaseFactory(version="1.41")
    sig = SigFactory(slug="sig-node")
    kep = KepFactory(number=4100, owning_sig=sig)
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=FREEZE_AT)
    # A SIG soft freeze between the two board freezes is not itself a freeze of the board.
    MilestoneFactory(release=release, kind=MilestoneKind.SIG_SOFT_FREEZE, at=FREEZE_AT + 10 * DAY)
    row = TrackedFactory(release=release, kep=kep, sig=sig, status=EnhancementStatus.REMOVED)
    # Removed with no freeze-bearing status in its history: the latest board freeze before it decides.
    EnhancementStatusChange.objects.create(
        tracked_enhancement=row, to_status=EnhancementStatus.REMOVED, changed_at=FREEZE_AT + 12 * DAY
    )
    timeline = kep_timeline(kep=kep)
    assert timeline.slips == 1
    assert [r.missed_freeze for r in timeline.rows] == [Freeze.ENHANCEMENTS.label]


@pytest.mark.parametrize(
    ("last_status", "passed", "missed"),
    [
        ("at_risk_enhancements", Freeze.ENHANCEMENTS, Freeze.ENHANCEMENTS),
        ("at_risk_code", Freeze.ENHANCEMENTS, Freeze.CODE),  # the SIG gave up before code freeze
        ("tracked_enhancements", Freeze.CODE, Freeze.CODE),  # tracked at EF, removed after CF
        ("tracked_enhancements", None, Freeze.ENHANCEMENTS),
        ("tracked_code", Freeze.CODE, Freeze.CODE),  # tracked late, flipped to tracked/no at code freeze
        ("tracked_code", Freeze.DOCS, Freeze.DOCS),
        (None, Freeze.PRR, Freeze.PRR),
        ("exception_pending", None, None),
        (None, None, None),
    ],
)
def test_the_freeze_a_slip_missed(last_status, passed, missed):
    assert rules.freeze_missed(last_status=last_status, passed=passed) == missed


# --- PRR status, readiness with PRR, and the figures a release may claim -----------------------------------------


def test_prr_status_is_the_boards_else_the_files():
    assert rules.prr_status(board_status="not_started", file_approver="") == "not_started"
    assert rules.prr_status(board_status="not_started", file_approver="deads2k") == "approved"
    # What the board says wins: in review stays in review although a file names an approver.
    assert rules.prr_status(board_status="in_review", file_approver="deads2k") == "in_review"


@pytest.mark.parametrize(
    ("status", "prr", "ready"),
    [
        (EnhancementStatus.AT_RISK_ENHANCEMENTS, "not_started", False),  # was "Ready — AT RISK"
        (EnhancementStatus.AT_RISK_ENHANCEMENTS, "approved", True),
        (EnhancementStatus.AT_RISK_PRR, "approved", True),
        (EnhancementStatus.AT_RISK_PRR, "in_review", False),
        (EnhancementStatus.TRACKED_PRR, "not_started", True),  # the release team checked it
        (EnhancementStatus.TRACKED_ENHANCEMENTS, "not_started", True),
    ],
)
def test_the_prr_freeze_asks_an_unchecked_kep_for_its_approved_prr(status, prr, ready):
    assert rules.is_ready_for(status, Freeze.PRR, prr=prr) is ready
    # Enhancements freeze asks more than PRR: nothing the PRR alone makes ready there.
    if status in (EnhancementStatus.AT_RISK_ENHANCEMENTS, EnhancementStatus.AT_RISK_PRR):
        assert not rules.is_ready_for(status, Freeze.ENHANCEMENTS, prr=prr)


@pytest.mark.django_db
def test_digest_lists_no_kep_as_ready_and_at_risk_on_the_day_before_prr_freeze():
    release, milestone, rows = _board(MilestoneKind.PRR_FREEZE)
    approved = rows[EnhancementStatus.AT_RISK_ENHANCEMENTS]
    PrrApproval.objects.create(kep=approved.kep, stage=approved.target_stage or "alpha", approver=PersonFactory())
    if not approved.target_stage:
        approved.kep.stage = "alpha"
        approved.kep.save()
    due = next(d for d in reminders_due(now=FREEZE_AT - DAY) if d.milestone == milestone)
    context = digest_context(dues=[due], recipient="node@example.com", as_of=FREEZE_AT - DAY)
    ready = next(block for block in context["blocks"] if block["title"] == "Ready")
    assert approved.kep.number in [kep["number"] for kep in ready["keps"]]
    assert not any(kep["at_risk"] for kep in ready["keps"])
    needing = [kep["number"] for block in context["blocks"] if block["needs"] for kep in block["keps"]]
    # At risk for the PRR freeze with no approval, and a pending exception: still need something.
    unapproved = {EnhancementStatus.AT_RISK_PRR, EnhancementStatus.EXCEPTION_PENDING}
    assert {rows[status].kep.number for status in unapproved} <= set(needing)


@pytest.mark.parametrize(
    ("history", "tally", "shipped", "expected"),
    [
        ((6, 6, 17), (23, 6), True, (23, 6, 6 / 23, "recorded_tally", False)),  # v1.24 from the notes
        ((6, 6, 17), None, True, (6, 6, None, "tracked_rows", False)),  # a subset: no rate
        ((24, 13, 0), (24, 13), True, (24, 13, 13 / 24, "tracked_rows", False)),
        ((30, 13, 0), (24, 13), True, (30, 13, 13 / 30, "tracked_rows", False)),  # the history knows more
        ((6, 0, 0), None, False, (6, 0, None, "tracked_rows", True)),  # in its cycle: progress, no rate
        ((6, 0, 0), (23, 6), False, (23, 6, None, "recorded_tally", True)),
    ],
)
def test_merge_figures(history, tally, shipped, expected):
    tracked, done, not_recorded = history
    recorded_tracked, recorded_done = tally or (None, None)
    figures = rules.merge_figures(
        tracked=tracked,
        done=done,
        not_recorded=not_recorded,
        recorded_tracked=recorded_tracked,
        recorded_done=recorded_done,
        shipped=shipped,
    )
    assert (figures.tracked, figures.done, figures.rate, figures.source, figures.in_cycle) == expected


def test_tracked_at_enhancements_freeze_and_release_day():
    assert rules.tracked_at_enhancements_freeze(status_then=None, status_now="done", recorded=False) is True
    removed = "removed_from_milestone"
    assert rules.tracked_at_enhancements_freeze(status_then=None, status_now=removed, recorded=False) is None
    assert rules.tracked_at_enhancements_freeze(status_then=None, status_now=removed, recorded=True) is False
    assert rules.tracked_at_enhancements_freeze(
        status_then="tracked_enhancements", status_now="removed_from_milestone", recorded=True
    )
    day = datetime.date(2030, 3, 4)
    assert not rules.release_day_passed(release_day=None, now=FREEZE_AT)
    assert rules.release_day_passed(release_day=day, now=datetime.datetime(2030, 3, 4, tzinfo=UTC))
    assert not rules.release_day_passed(release_day=day, now=datetime.datetime(2030, 3, 3, 23, 59, tzinfo=UTC))


def test_no_template_names_the_pacific_zone_of_its_own():
    """Pages show US Pacific time with the `pacific` filter (`rules.PACIFIC`), so no template names the zone."""
    root = Path(__file__).resolve().parents[2]
    templates = [path for pattern in ("*/templates/**/*.html", "*/templates/**/*.txt") for path in root.glob(pattern)]
    assert len(templates) > 20
    assert [str(path) for path in templates if rules.PACIFIC.key in path.read_text()] == []
