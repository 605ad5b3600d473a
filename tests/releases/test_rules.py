"""The release-cycle rules (releases/rules.py) and the consumers that must agree with them.

For every kind of freeze and every board status, the dashboard's at-risk list, the reminders' "who still
has to act" and the rules say the same thing; the KEP timeline names the freeze a slip missed from the same
table; the funnel counts what the rules call in play.
"""

import datetime

import pytest

from keps import selectors as kep_selectors
from releases import rules, selectors
from releases.choices import EnhancementStatus, Freeze, MilestoneKind
from releases.models import EnhancementStatusChange
from releases.services import reminders
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
    freeze = rules.freeze_of_milestone(kind)

    at_risk_rows, _, _ = selectors.at_risk_for_milestone(release=release, milestone=milestone, limit=100)
    at_risk = {row.status for row in at_risk_rows}

    planned = reminders.reminder_deliveries_plan(now=FREEZE_AT - 7 * DAY)
    chased = {number for p in planned if p.kind == "personal" for number in p.keps}
    reminded = {status: row for status, row in rows.items() if row.kep.number in chased}
    not_ready = {status for status in EnhancementStatus.values if not rules.is_ready_for(status, freeze)}

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
    timeline = kep_selectors.kep_timeline(kep=kep)
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
