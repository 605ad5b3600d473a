"""The release-cycle rules, stated once.

Which milestones freeze something, which freeze of the enhancements board each of them checks, which board
status belongs to which freeze, what still counts as "in play", what a KEP must have by each freeze, and the
time zones the release team quotes deadlines in. Every page, stat, reminder, importer and the GitHub sync
import these names from here; no other module restates any of them (tests/releases/test_rules.py checks
that the consumers agree).

Sources: the release team's enhancements handbook (sig-release `release-team/role-handbooks/enhancements/`)
and the release schedules (sig-release `releases/release-1.xx/README.md`).
"""

import datetime
import functools
import itertools
import zoneinfo
from dataclasses import dataclass, field

from core.versions import parse_version  # noqa: F401  (a rule's name)
from keps.plans import PLAN_STAGE_ORDER, plan_slip, planned_target  # noqa: F401  (the rules' names)

from .choices import (
    EnhancementStatus,
    ExceptionDecision,
    Freeze,
    MilestoneKind,
    PrrStatus,
    ReleaseState,
    StatsSource,
    TargetStage,
)

# --- time zones the release team quotes -----------------------------------------------------------------

UTC = datetime.UTC
#: "PT", "PST", "PDT" and "Pacific" in the schedules: US Pacific time as the date has it.
PACIFIC = zoneinfo.ZoneInfo("America/Los_Angeles")
#: Anywhere on Earth: a deadline "AoE" has passed only once it has passed in the last time zone, UTC−12.
AOE = datetime.timezone(datetime.timedelta(hours=-12), "AoE")

# --- milestones -----------------------------------------------------------------------------------------

#: Kinds of milestone that freeze something: reminders go out before these, calendars mark them as freezes.
FREEZE_KINDS = (
    MilestoneKind.PRR_FREEZE,
    MilestoneKind.ENHANCEMENTS_FREEZE,
    MilestoneKind.SIG_SOFT_FREEZE,
    MilestoneKind.FEATURE_BLOG_FREEZE,
    MilestoneKind.CODE_FREEZE,
    MilestoneKind.TEST_FREEZE,
    MilestoneKind.DOCS_FREEZE,
)

#: Which freeze of the enhancements board a milestone checks: what "at risk" and "ready" mean on its day.
#: SIG Node's soft freeze is the SIG's own deadline ahead of code freeze; the feature-blog freeze falls
#: between enhancements and code freeze and asks nothing of the board beyond being tracked; test freeze
#: comes after code freeze, when the code must already be in.
MILESTONE_FREEZE = {
    MilestoneKind.PRR_FREEZE: Freeze.PRR,
    MilestoneKind.ENHANCEMENTS_FREEZE: Freeze.ENHANCEMENTS,
    MilestoneKind.SIG_SOFT_FREEZE: Freeze.CODE,
    MilestoneKind.FEATURE_BLOG_FREEZE: Freeze.ENHANCEMENTS,
    MilestoneKind.CODE_FREEZE: Freeze.CODE,
    MilestoneKind.TEST_FREEZE: Freeze.CODE,
    MilestoneKind.DOCS_FREEZE: Freeze.DOCS,
}

#: The milestone that closes each freeze of the board (the funnel's steps and "which freeze did it miss").
FREEZE_MILESTONE = {
    Freeze.PRR: MilestoneKind.PRR_FREEZE,
    Freeze.ENHANCEMENTS: MilestoneKind.ENHANCEMENTS_FREEZE,
    Freeze.CODE: MilestoneKind.CODE_FREEZE,
    Freeze.DOCS: MilestoneKind.DOCS_FREEZE,
}

#: What each kind of freeze asks of a KEP, one line per requirement, after the enhancements handbook's
#: communication templates and sig-release `releases/release_phases.md` (the emails list them as written here).
REQUIREMENTS = {
    MilestoneKind.PRR_FREEZE: (
        "the tracking issue in kubernetes/enhancements in this release's milestone, with the lead-opted-in label",
        "a PR open or merged with the KEP's production readiness (PRR) questionnaire filled out",
        "a PR open or merged with kep.yaml updated: stage, latest-milestone and the milestone struct",
        "a PR open or merged with a PRR approval file naming the PRR approver for the target stage",
    ),
    MilestoneKind.ENHANCEMENTS_FREEZE: (
        "the tracking issue in this release's milestone, with the lead-opted-in label",
        "kep.yaml merged into kubernetes/enhancements with status implementable, stage and latest-milestone "
        "set for this release",
        "the KEP README merged, on the latest template, with up-to-date graduation criteria and test plan",
        "the production readiness review (PRR approval) completed and merged",
        "no other unmerged PRs that change the KEP README or kep.yaml",
    ),
    MilestoneKind.SIG_SOFT_FREEZE: ("every code PR reviewed and ready to merge (the SIG's own deadline)",),
    MilestoneKind.FEATURE_BLOG_FREEZE: (
        "if the enhancement gets a feature blog: a placeholder PR for it opened in kubernetes/website",
    ),
    MilestoneKind.CODE_FREEZE: (
        "every k/k (kubernetes/kubernetes) PR of the enhancement linked in the tracking issue's description",
        "every k/k PR merged, or merge-ready with the approved and lgtm labels, tests included",
    ),
    MilestoneKind.TEST_FREEZE: (
        "every test PR of the enhancement in k/k merged, or merge-ready with the approved and lgtm labels",
    ),
    MilestoneKind.DOCS_FREEZE: (
        "the docs PR in kubernetes/website ready to merge: technical review done, lgtm and approve labels, "
        "no outstanding SIG Docs comments",
    ),
}

#: Where the release's timeline starts and ends (the funnel and the GitHub sync read these).
CYCLE_START_KIND = MilestoneKind.CYCLE_START
RELEASE_KIND = MilestoneKind.RELEASE

# --- the enhancements board -----------------------------------------------------------------------------

#: The order of the board's freezes: a KEP tracked for a later freeze has met every earlier one.
FREEZE_ORDER = (Freeze.PRR, Freeze.ENHANCEMENTS, Freeze.CODE, Freeze.DOCS)

AT_RISK_FOR = {
    Freeze.PRR: EnhancementStatus.AT_RISK_PRR,
    Freeze.ENHANCEMENTS: EnhancementStatus.AT_RISK_ENHANCEMENTS,
    Freeze.CODE: EnhancementStatus.AT_RISK_CODE,
    Freeze.DOCS: EnhancementStatus.AT_RISK_DOCS,
}
TRACKED_FOR = {
    Freeze.PRR: EnhancementStatus.TRACKED_PRR,
    Freeze.ENHANCEMENTS: EnhancementStatus.TRACKED_ENHANCEMENTS,
    Freeze.CODE: EnhancementStatus.TRACKED_CODE,
    Freeze.DOCS: EnhancementStatus.TRACKED_DOCS,
}
#: Which freeze a board status refers to (exception and final statuses refer to none).
STATUS_FREEZE = {
    **{status: freeze for freeze, status in AT_RISK_FOR.items()},
    **{status: freeze for freeze, status in TRACKED_FOR.items()},
}
AT_RISK_STATUSES = tuple(AT_RISK_FOR.values())

#: A row that has left the release: the SIG deferred it, or it missed a requirement. Both count as a slip.
OUT_OF_PLAY = (EnhancementStatus.DEFERRED, EnhancementStatus.REMOVED)
SLIP_STATUSES = OUT_OF_PLAY
#: Statuses after which nothing more happens to a row in this release.
FINAL_STATUSES = (*OUT_OF_PLAY, EnhancementStatus.DONE)

#: Statuses that count as "tracked" at the enhancements freeze instant: on the board and past that freeze's
#: bar (tracked for it, or already at a later freeze, in an exception, or done). An "at risk for enhancements
#: freeze" row at the freeze instant has missed it: the release team removes it. The merge rate's denominator
#: (done ÷ tracked at the enhancements freeze) and the GitHub sync's "still tracked" read this.
TRACKED_STATUSES = (
    EnhancementStatus.TRACKED_ENHANCEMENTS,
    EnhancementStatus.AT_RISK_CODE,
    EnhancementStatus.TRACKED_CODE,
    EnhancementStatus.AT_RISK_DOCS,
    EnhancementStatus.TRACKED_DOCS,
    EnhancementStatus.EXCEPTION_PENDING,
    EnhancementStatus.EXCEPTION_APPROVED,
    EnhancementStatus.DONE,
)


def freeze_missed(
    *, last_status: str | None, passed: Freeze | str | None, denied: Freeze | str | None = None
) -> Freeze | None:
    """The freeze a KEP that left the release slipped at.

    From its last board status before it left: at risk for, or tracked for, a freeze is the freeze it was
    working towards (the board flips "tracked" to "removed" when a KEP fails the freeze it was tracked for).
    From the calendar: the latest freeze that had passed when it left. The later of the two, since a KEP is
    removed at or after the freeze it missed: one tracked for enhancements freeze and removed after code freeze
    missed code freeze. An exception the release team denied (or approved, then took back) for a freeze
    (`denied`) says which freeze it failed: v1.25's KEP-1287, denied a code freeze exception, missed code freeze
    though it left before the code freeze instant.
    """
    candidates = [FREEZE_ORDER.index(Freeze(denied))] if denied else []
    own = STATUS_FREEZE.get(last_status) if last_status else None
    if own is not None:
        candidates.append(FREEZE_ORDER.index(own))
    if passed:
        candidates.append(FREEZE_ORDER.index(Freeze(passed)))
    return FREEZE_ORDER[max(candidates)] if candidates else None


def at_risk_statuses_for(kind: str | None) -> list[str]:
    """The statuses that count as "at risk" on the day of a milestone of `kind` (every at-risk status when
    the milestone checks no freeze of the board, or when there is no milestone)."""
    freeze = MILESTONE_FREEZE.get(kind) if kind else None
    return [AT_RISK_FOR[freeze]] if freeze else list(AT_RISK_STATUSES)


def is_done(status: str | None) -> bool:
    """Whether a row in `status` shipped in the release (the merge rate's numerator)."""
    return status == EnhancementStatus.DONE


def is_in_play(status: str | None) -> bool:
    """Whether a row in `status` still counts for the release (on the board, not deferred or removed)."""
    return bool(status) and status not in OUT_OF_PLAY


def counts_as_tracked_at_freeze(status: str | None) -> bool:
    """Whether a row whose board status was `status` at the enhancements freeze instant counts as tracked for
    the release's merge rate (done ÷ tracked at that freeze). None (not on the board yet) does not."""
    return status in TRACKED_STATUSES


def prr_status(*, board_status: str, file_approver: str = "") -> str:
    """A KEP's PRR status for the release's target stage: the board's where it says something (an admin or a sync
    set it), else approved when the KEP's `keps/prod-readiness/<sig>/<number>.yaml` names an approver for that
    stage (`file_approver`, imported as a PRR approval), else not started."""
    if board_status and board_status != PrrStatus.NOT_STARTED:
        return board_status
    return PrrStatus.APPROVED if file_approver else PrrStatus.NOT_STARTED


def is_ready_for(status: str, freeze: Freeze | str, *, exception_window: bool = False, prr: str | None = None) -> bool:
    """Whether a row in `status` already meets `freeze`.

    Done meets everything. A pending exception meets nothing yet; an approved one meets the freeze itself but
    not the close of its exception window (the work must have merged by then). A status for a later freeze
    meets every earlier one; an "at risk" status meets only the freezes before its own. Rows out of play
    need nothing. With `prr` (the row's PRR status by `prr_status`), the PRR freeze asks of a KEP the release team
    has not checked yet (at risk for PRR or for enhancements freeze) what it asks in REQUIREMENTS: its PRR
    approved. Without `prr`, the board status alone decides.
    """
    if status == EnhancementStatus.DONE or status in OUT_OF_PLAY:
        return True
    if status == EnhancementStatus.EXCEPTION_PENDING:
        return False
    if status == EnhancementStatus.EXCEPTION_APPROVED:
        return not exception_window
    if (
        prr is not None
        and Freeze(freeze) == Freeze.PRR
        and status
        in (
            EnhancementStatus.AT_RISK_PRR,
            EnhancementStatus.AT_RISK_ENHANCEMENTS,
        )
    ):
        return prr == PrrStatus.APPROVED
    own = STATUS_FREEZE.get(status)
    if own is None:
        return True
    level, wanted = FREEZE_ORDER.index(own), FREEZE_ORDER.index(Freeze(freeze))
    return level > wanted if status in AT_RISK_STATUSES else level >= wanted


# --- what a release's figures may claim -------------------------------------------------------------------
#
# One definition of "tracked at enhancements freeze" and of the merge rate (done ÷ tracked at that freeze),
# read by the stats (headline, funnel, chart, CSV, API). A figure says where it comes from: the board's history,
# or the tally a retro recorded when that history covers fewer KEPs; never a rate over a subset. Until its
# release day a release has progress, not a merge rate, and a freeze still ahead has no count.


def milestone_passed(at: datetime.datetime | None, *, now: datetime.datetime) -> bool:
    """Whether a milestone at `at` has come by `now`; an unknown instant has not."""
    return at is not None and at <= now


def release_day_instant(release_day: datetime.datetime | datetime.date | None) -> datetime.datetime | None:
    """A release day as an instant: its release milestone's, or a release date from 00:00 UTC (as the schedules'
    release milestones are kept)."""
    if release_day is not None and not isinstance(release_day, datetime.datetime):
        return datetime.datetime.combine(release_day, datetime.time(), tzinfo=UTC)
    return release_day


def release_day_passed(*, release_day: datetime.datetime | datetime.date | None, now: datetime.datetime) -> bool:
    """Whether a release has shipped by `now`, by its own release day (`release_day_instant`). A release without
    a known release day has not: its figures stay progress."""
    return milestone_passed(release_day_instant(release_day), now=now)


def tracked_at_enhancements_freeze(*, status_then: str | None, status_now: str, recorded: bool) -> bool | None:
    """Whether a row counts as tracked at the enhancements freeze: its board status at the freeze instant was
    past that freeze's bar (`counts_as_tracked_at_freeze`), or it is done anyway (an exception). `recorded` says
    whether the history knows where the row stood then; when it does not (its history starts later, at an
    assumed instant, as a retro table imported from meeting notes does) and the row is not done: None."""
    if status_now == EnhancementStatus.DONE:
        return True
    if status_then is None and not recorded:
        return None
    return counts_as_tracked_at_freeze(status_then)


@dataclass(frozen=True)
class MergeFigures:
    """A release's (or one SIG's) headline figures and where they come from."""

    tracked: int
    done: int
    #: done ÷ tracked; None before the release day, with nothing tracked, or when the history covers only part
    #: of the release and no tally says how much.
    rate: float | None
    #: "tracked_rows" (the board's history) or "recorded_tally" (the retro's tally, the history covering less).
    source: str
    #: Rows whose standing at the enhancements freeze was not recorded (left out of `tracked`).
    not_recorded: int
    #: Before the release day: `tracked` and `done` are progress so far.
    in_cycle: bool


def merge_figures(
    *,
    tracked: int,
    done: int,
    not_recorded: int,
    recorded_tracked: int | None,
    recorded_done: int | None,
    shipped: bool,
) -> MergeFigures:
    """The headline from the history's counts (`tracked`, `done`, `not_recorded` as
    `tracked_at_enhancements_freeze` gives them) and a retro's recorded tally, if any.

    When the tally names more tracked KEPs than the history knows were tracked, the tally is the denominator (and
    its merged count the numerator): a rate over the history's subset would say 6 of 6 where the retro said 6 of
    23. Without a tally, a history with rows of unknown standing gives counts but no rate."""
    if recorded_tracked is not None and recorded_done is not None and recorded_tracked > tracked:
        rate = recorded_done / recorded_tracked if shipped else None
        return MergeFigures(
            recorded_tracked, recorded_done, rate, StatsSource.RECORDED_TALLY, not_recorded, not shipped
        )
    rate = done / tracked if shipped and tracked and not not_recorded else None
    return MergeFigures(tracked, done, rate, StatsSource.TRACKED_ROWS, not_recorded, not shipped)


# --- the GitHub tracking issue (kubernetes/enhancements) ------------------------------------------------
#
# Each KEP has a tracking issue in kubernetes/enhancements (issue number = KEP number). The release team says
# what is planned, tracked and removed with its milestone (`v1.35`) and labels (`lead-opted-in`, `tracked/yes`,
# `tracked/no`, `stage/*`, `sig/*`); the issue's timeline says when each changed and who changed it. The
# enhancements handbook: opting in is the SIG lead's `lead-opted-in` label on an issue in the release milestone;
# removal is "/remove-label tracked/yes /label tracked/no /milestone clear", re-adding the reverse; at the end of
# a release the labels are cleared for the next one. These functions turn one issue's timeline into the board
# statuses it went through, with their instants; `releases.services.github_sync` writes them.
#
#   GitHub says                                                  sigtracker records
#   milestone vX and `lead-opted-in` (whichever came later)      tracked in X, at risk for enhancements freeze
#   `tracked/yes` added                                          tracked for enhancements freeze (before EF),
#                                                                tracked for code freeze (after)
#   `tracked/no` added, `tracked/yes` removed, or the milestone  removed from milestone, at that instant
#   left vX, before release day R
#   still milestone vX with `tracked/yes` at R                   done (shipped), at R
#   milestone vX but never `lead-opted-in`                       not tracked; reported as "not opted in"
#   (before 1.26, when the label did not exist: milestone vX alone opts in)
#   `stage/*` at EF, `sig/*`                                     target stage; the SIG
#
# Label events at or after R are the end-of-release clean-up and are ignored. `tracked/*` labels left over from
# an earlier release (added while the milestone was another release's, or before X's cycle began) say nothing
# about X.

OPT_IN_LABEL = "lead-opted-in"
TRACKED_YES_LABEL = "tracked/yes"
TRACKED_NO_LABEL = "tracked/no"
STAGE_LABEL_PREFIX = "stage/"
SIG_LABEL_PREFIX = "sig/"
#: The first release whose KEPs had to be opted in with the `lead-opted-in` label.
OPT_IN_LABEL_SINCE = (1, 26)


@dataclass(frozen=True)
class GitHubStatusChange:
    at: datetime.datetime
    status: str
    author: str = ""
    note: str = ""


@dataclass
class GitHubVerdict:
    """What one issue's timeline says about one release."""

    in_milestone: bool = False
    opted_in_at: datetime.datetime | None = None
    changes: list[GitHubStatusChange] = field(default_factory=list)
    target_stage: str = ""
    sigs: tuple[str, ...] = ()

    @property
    def tracked(self) -> bool:
        return self.opted_in_at is not None

    @property
    def not_opted_in(self) -> bool:
        return self.in_milestone and self.opted_in_at is None

    @property
    def status(self) -> str | None:
        return self.changes[-1].status if self.changes else None

    def status_at(self, instant: datetime.datetime) -> str | None:
        before = [change for change in self.changes if change.at <= instant]
        return before[-1].status if before else None


def github_milestone_title(version: str) -> str:
    """The milestone of a release in kubernetes/enhancements: 1.35 -> v1.35."""
    return f"v{version}"


@functools.lru_cache(maxsize=1024)
def is_release_milestone(title: str, version: str) -> bool:
    """Whether a milestone title (`v1.35`, `1.35`, `v1.35.0`) names the release `version` (cached: the sync asks
    once per timeline instant, some 13,000 times for a release)."""
    try:
        return bool(title) and parse_version(title) == parse_version(version)
    except ValueError:
        return False


def sig_from_label(label: str) -> str:
    """`sig/node` -> `sig-node`; "" for other labels."""
    return f"sig-{label[len(SIG_LABEL_PREFIX) :]}" if label.startswith(SIG_LABEL_PREFIX) else ""


def stage_from_labels(labels) -> str:
    """The target stage named by a `stage/*` label (the last one, if several), or ""."""
    stages = [label[len(STAGE_LABEL_PREFIX) :] for label in labels if label.startswith(STAGE_LABEL_PREFIX)]
    stages = [stage for stage in stages if stage in TargetStage.values]
    return stages[-1] if stages else ""


def github_issue_verdict(
    *,
    version: str,
    events,
    labels_now=(),
    enhancements_freeze: datetime.datetime | None = None,
    release_day: datetime.datetime | None = None,
    cycle_start: datetime.datetime | None = None,
    now: datetime.datetime | None = None,
) -> GitHubVerdict:
    """Replay one tracking issue's timeline (`events`: records with `kind`, `at`, `actor`, `label`, `milestone`,
    oldest first) for release `version` and say what the board went through, per the table above.

    Events at one instant (one comment's slash commands) are applied together before the status is read, so
    "/label tracked/yes /milestone v1.35" does not pass through "removed". `now` bounds "done at R": a release
    day still ahead ships nothing yet.
    """
    opt_in_required = parse_version(version) >= OPT_IN_LABEL_SINCE
    verdict = GitHubVerdict()
    labels: dict[str, tuple[datetime.datetime, bool]] = {}  # name -> (added at, added under another release)
    milestone = ""
    labels_at_freeze = None
    status = None

    def fresh(name: str) -> bool:
        if name not in labels:
            return False
        added_at, stale = labels[name]
        return not stale and (cycle_start is None or added_at >= cycle_start)

    for at, group in itertools.groupby(events, key=lambda event: event.at):
        if release_day is not None and at >= release_day:
            break
        if enhancements_freeze is not None and labels_at_freeze is None and at > enhancements_freeze:
            labels_at_freeze = list(labels)
        group = list(group)
        author = ""
        relabeled_yes = False
        for event in group:
            if event.kind == "labeled":
                other_release = bool(milestone) and not is_release_milestone(milestone, version)
                labels[event.label] = (at, other_release)
                relabeled_yes |= event.label == TRACKED_YES_LABEL
            elif event.kind == "unlabeled":
                labels.pop(event.label, None)
            elif event.kind == "milestoned":
                milestone = event.milestone
            elif event.kind == "demilestoned":
                if milestone == event.milestone or not milestone:
                    milestone = ""
            else:
                continue
            author = event.actor or author
        in_release = is_release_milestone(milestone, version)
        verdict.in_milestone |= in_release
        if verdict.opted_in_at is None:
            opted = OPT_IN_LABEL in labels if opt_in_required else True
            if not (in_release and (opted or fresh(TRACKED_YES_LABEL))):
                continue
            verdict.opted_in_at = at
            status = EnhancementStatus.AT_RISK_ENHANCEMENTS
            verdict.changes.append(GitHubStatusChange(at, status, author, "opted in"))
        tracked_for = (
            EnhancementStatus.TRACKED_ENHANCEMENTS
            if enhancements_freeze is None or at < enhancements_freeze
            else EnhancementStatus.TRACKED_CODE
        )
        if fresh(TRACKED_NO_LABEL) or not in_release:
            new = EnhancementStatus.REMOVED
        elif fresh(TRACKED_YES_LABEL):
            new = status if status in TRACKED_STATUSES and not relabeled_yes else tracked_for
        elif status in (EnhancementStatus.AT_RISK_ENHANCEMENTS, None):
            new = EnhancementStatus.AT_RISK_ENHANCEMENTS
        else:
            # `tracked/yes` taken away (or never given back after a removal): out of the release.
            new = EnhancementStatus.REMOVED
        if new != status:
            verdict.changes.append(GitHubStatusChange(at, new, author))
            status = new

    if (
        release_day is not None
        and (now is None or release_day <= now)
        and status in TRACKED_STATUSES
        and is_release_milestone(milestone, version)
        and fresh(TRACKED_YES_LABEL)
    ):
        verdict.changes.append(
            GitHubStatusChange(release_day, EnhancementStatus.DONE, "", "in the milestone with tracked/yes at release")
        )
    final_labels = list(labels) or list(labels_now)
    verdict.target_stage = stage_from_labels(labels_at_freeze or []) or stage_from_labels(final_labels)
    verdict.target_stage = verdict.target_stage or stage_from_labels(labels_now)
    sigs = [sig_from_label(label) for label in [*final_labels, *labels_now]]
    verdict.sigs = tuple(dict.fromkeys(sig for sig in sigs if sig))
    return verdict


# --- where the release cycle stands -----------------------------------------------------------------------------
# A release's state is read from its own dates at the moment of asking, never frozen when it was imported: the
# stored `Release.state` is only a copy kept current by the import and by beat (`release_states_refresh`).

#: How long a cycle runs at most, for a release whose schedule gives no release day (a proposal, a README
#: whose dates were never filled in): it is over once this long has passed since its last known date. Cycles ran
#: 10-16 weeks since 1.10 (1.19's 20 weeks are the one outlier); 16 weeks keeps such a release "current" no
#: longer than a real one could be, so a schedule abandoned in 2018 is not today's release.
TYPICAL_CYCLE = datetime.timedelta(weeks=16)


def _day(value) -> datetime.date | None:
    if value is None or not isinstance(value, datetime.datetime):
        return value
    return value.astimezone(UTC).date()


def release_span(release) -> tuple[datetime.date | None, datetime.date | None, datetime.date | None]:
    """(first day, release day, last known day) of a release, read from `cycle_start`, `release_date` and, when
    the object carries them, `first_milestone` / `last_milestone` (instants of its earliest and latest milestone)."""
    first_milestone = _day(getattr(release, "first_milestone", None))
    last_milestone = _day(getattr(release, "last_milestone", None))
    start = release.cycle_start or first_milestone
    end = release.release_date
    known = [day for day in (start, end, last_milestone) if day is not None]
    return start, end, max(known) if known else None


def release_state(release, *, now: datetime.datetime) -> str:
    """Planning, active (in its cycle) or released, at `now` (UTC days):

    - released from its release day (the actual one, else the planned one);
    - active from its cycle start (else its first milestone; with neither, `TYPICAL_CYCLE` before its release day);
    - with no release day known, over (released, day unknown) once `TYPICAL_CYCLE` has passed since its last
      known date;
    - with no date at all, the state curated by hand (a release added in the admin before its schedule is
      published), else planning.
    """
    today = now.astimezone(UTC).date()
    start, end, last = release_span(release)
    if last is None:
        return getattr(release, "state", None) or ReleaseState.PLANNING
    if end is not None:
        if end <= today:
            return ReleaseState.RELEASED
        begins = start or end - TYPICAL_CYCLE
        return ReleaseState.ACTIVE if begins <= today else ReleaseState.PLANNING
    if start is None or start > today:
        return ReleaseState.PLANNING
    return ReleaseState.RELEASED if last + TYPICAL_CYCLE < today else ReleaseState.ACTIVE


def release_states(releases, *, now: datetime.datetime) -> list[tuple[object, str]]:
    """(release, state) for each of `releases` at `now`: `release_state` of its own dates, and one rule across them:
    minors ship in order, so a release with no date at all that is older than a released one is released too (day
    unknown). v1.4, known only from its features sheet, is not "planning" while v1.8 is out. A dateless release newer
    than every released one keeps its curated state: nothing says when it runs."""
    states = [(release, release_state(release, now=now)) for release in releases]
    newest = max(((r.major, r.minor) for r, state in states if state == ReleaseState.RELEASED), default=None)
    return [
        (
            release,
            ReleaseState.RELEASED
            if newest is not None
            and state == ReleaseState.PLANNING
            and release_span(release)[2] is None
            and (release.major, release.minor) < newest
            else state,
        )
        for release, state in states
    ]


@dataclass(frozen=True)
class CurrentRelease:
    """The answer to "which release is it?" at an instant, and how to say it.

    `release` is the release whose cycle contains the instant (`in_cycle`); between cycles, the latest released
    one, with `next_release` the one whose schedule is published (or None when it is not yet)."""

    release: object
    state: str
    in_cycle: bool
    next_release: object | None = None

    @property
    def summary(self) -> str:
        """ "v1.37 released 26 Aug 2026; the v1.38 schedule is not published yet", or "v1.38 in its cycle ..."."""
        release = self.release
        day = release.release_date
        if self.in_cycle:
            text = f"v{release.version} is in its cycle"
            return text + (f", release day {day:%-d %b %Y}" if day else ", release day not published")
        if self.state == ReleaseState.PLANNING:
            start = release_span(release)[0]
            return f"v{release.version} begins {start:%-d %b %Y}" if start else f"v{release.version} is planned"
        said = f"v{release.version} released {day:%-d %b %Y}" if day else f"v{release.version} is over"
        following = self.next_release
        if following is not None:
            start = release_span(following)[0]
            return said + (
                f"; v{following.version} begins {start:%-d %b %Y}" if start else f"; v{following.version} is planned"
            )
        return said + f"; the v{release.major}.{release.minor + 1} schedule is not published yet"


def current_release(releases, *, now: datetime.datetime) -> CurrentRelease | None:
    """The current release at `now`, among `releases` (objects with version, major, minor, cycle_start,
    release_date, and optionally first_milestone / last_milestone): the one in its cycle (the newest, should two
    overlap); between cycles, the latest released one and the next planned; before any release, the first planned
    one. Every page, selector, task and the API ask this, through `Release.objects.current()`."""
    states = release_states(releases, now=now)
    if not states:
        return None

    def version(item):
        return (item[0].major, item[0].minor)

    active = [item for item in states if item[1] == ReleaseState.ACTIVE]
    if active:
        release, state = max(active, key=version)
        return CurrentRelease(release=release, state=state, in_cycle=True)
    planned = sorted((item for item in states if item[1] == ReleaseState.PLANNING), key=version)
    released = [item for item in states if item[1] == ReleaseState.RELEASED]
    if released:
        release, state = max(released, key=version)
        # The next release is the one whose schedule is published, or the very next minor added by hand before it
        # is: v1.35, known only from its exception requests and roster, is not what follows v1.27.
        following = next(
            (
                r
                for r, _ in planned
                if (r.major, r.minor) > (release.major, release.minor)
                and (release_span(r)[2] is not None or (r.major, r.minor) == (release.major, release.minor + 1))
            ),
            None,
        )
        return CurrentRelease(release=release, state=state, in_cycle=False, next_release=following)
    release, state = planned[0]
    return CurrentRelease(release=release, state=state, in_cycle=False)


# --- planned releases (kep.yaml history): the rules live with the KEPs (keps.plans) -----------------------


def end_of_day_pacific(at: datetime.datetime, *, all_day: bool = False) -> datetime.datetime:
    """The end of `at`'s day in US Pacific time, as an aware instant: "at the end of freeze day" in schedules.

    An all-day milestone stores midnight UTC of its date (`Milestone.at`): its day is that date, not the
    Pacific day of that instant (the evening before)."""
    day = (at.astimezone(UTC).date() if all_day else at.astimezone(PACIFIC).date()) + datetime.timedelta(days=1)
    return datetime.datetime.combine(day, datetime.time(), tzinfo=PACIFIC)


# --- the Release Tracking Board (a GitHub ProjectV2) ----------------------------------------------------------
#
# The board's columns are single-select fields whose option names each cycle's team retypes from the previous
# board (tracking-board.md: "manually create fields with the same ... Option values"), so their spelling drifts:
# "Tracked For Enhancement Freeze" (v1.29), "Tracked for enhancements freeze", "At Risk for Code Freeze",
# "Removed From Milestone". A name is compared in a normal form (lower case, words only, "enhancement" and
# "enhancements" alike); a value with no entry here maps to None and is reported, never guessed.

#: Board titles the release team has used for a release's board, `{version}` without the "v".
BOARD_TITLES = (
    "v{version} Enhancements Tracking",
    "{version} Enhancements Tracking",
    "Enhancements Tracking v{version}",
    "v{version} Enhancements Tracking Board",
    "{version} Enhancements Tracking Board",
    "v{version} Release Tracking",
)


def _board_words(value: str) -> str:
    words = "".join(ch if ch.isalnum() else " " for ch in (value or "").lower()).split()
    return " ".join("enhancements" if word == "enhancement" else word for word in words)


def is_release_board_title(title: str, version: str) -> bool:
    """Whether a project titled `title` is the tracking board of release `version` (e.g. 1.36)."""
    normal = _board_words(title)
    return any(normal == _board_words(pattern.format(version=version)) for pattern in BOARD_TITLES)


_BOARD_STATUS = {
    **{f"at risk for {freeze.label.lower()}": status for freeze, status in AT_RISK_FOR.items()},
    **{f"tracked for {freeze.label.lower()}": status for freeze, status in TRACKED_FOR.items()},
    "at risk for production readiness freeze": EnhancementStatus.AT_RISK_PRR,
    "tracked for production readiness freeze": EnhancementStatus.TRACKED_PRR,
    "exception pending": EnhancementStatus.EXCEPTION_PENDING,
    "exception approved": EnhancementStatus.EXCEPTION_APPROVED,
    "deferred": EnhancementStatus.DEFERRED,
    "removed from milestone": EnhancementStatus.REMOVED,
    "removed from release": EnhancementStatus.REMOVED,
    "done": EnhancementStatus.DONE,
}
_BOARD_STATUS = {_board_words(name): status for name, status in _BOARD_STATUS.items()}

_BOARD_TYPE = {
    "net new": "net_new",
    "new": "net_new",
    "major change": "major_change",
    "graduating": "graduating",
    "deprecation": "deprecation",
    "removal": "removal",
    "docs": "docs",
}

_BOARD_STAGE = {name: name for name in TargetStage.values} | {"ga": TargetStage.STABLE, "deprecated": "deprecation"}

_BOARD_PRR = {
    "not started": PrrStatus.NOT_STARTED,
    "in review": PrrStatus.IN_REVIEW,
    "in progress": PrrStatus.IN_REVIEW,
    "approved": PrrStatus.APPROVED,
    "done": PrrStatus.APPROVED,
}


def board_status(value: str) -> str | None:
    """sigtracker's status for the board's Status `value`; None for a value it has no name for."""
    return _BOARD_STATUS.get(_board_words(value))


def board_type(value: str) -> str | None:
    return _BOARD_TYPE.get(_board_words(value))


def board_stage(value: str) -> str | None:
    return _BOARD_STAGE.get(_board_words(value))


def board_prr_status(value: str) -> str | None:
    return _BOARD_PRR.get(_board_words(value))


def board_sig(value: str) -> str:
    """The SIG slug of the board's SIG value, as `sig_from_label` gives it ("SIG Node", "sig-node", "node" ->
    "sig-node"); "" for no value."""
    words = _board_words(value).split()
    if words[:1] == ["sig"]:
        words = words[1:]
    return f"sig-{'-'.join(words)}" if words else ""


def board_labels_disagree(*, board: str, labels: str) -> bool:
    """Whether the board's status and the one the issue's labels and milestone imply tell different stories:
    one has the KEP in the release and the other not (tracked/no, or still in the milestone when the board
    removed it). Different freezes of a KEP in play are not a disagreement: labels cannot say which freeze."""
    return bool(board and labels) and is_in_play(board) != is_in_play(labels)


_BOARD_DECISION = {
    "in review": ExceptionDecision.PENDING,
    "pending": ExceptionDecision.PENDING,
    "approved": ExceptionDecision.APPROVED,
    "rejected": ExceptionDecision.REJECTED,
    "denied": ExceptionDecision.REJECTED,
}


def board_exception_freeze(value: str) -> str | None:
    """The freeze of the board's "Exception Request Type" ("Enhancements Freeze", "Code Freeze Exception", ...)."""
    words = set(_board_words(value).split())
    for freeze, names in (
        (Freeze.PRR, {"prr", "production"}),
        (Freeze.ENHANCEMENTS, {"enhancements"}),
        (Freeze.CODE, {"code"}),
        (Freeze.DOCS, {"docs", "documentation"}),
    ):
        if words & names:
            return freeze
    return None


def board_exception_decision(value: str) -> str | None:
    """The decision of the board's "Exception Status" (In Review, Approved, Rejected); None when unknown."""
    return _BOARD_DECISION.get(_board_words(value))
