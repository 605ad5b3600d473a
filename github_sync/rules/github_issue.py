"""The GitHub tracking issue (kubernetes/enhancements): its labels and milestone, and what its timeline says.

Each KEP has a tracking issue in kubernetes/enhancements (issue number = KEP number). The release team says
what is planned, tracked and removed with its milestone (`v1.35`) and labels (`lead-opted-in`, `tracked/yes`,
`tracked/no`, `stage/*`, `sig/*`); the issue's timeline says when each changed and who changed it. The
enhancements handbook: opting in is the SIG lead's `lead-opted-in` label on an issue in the release milestone;
removal is "/remove-label tracked/yes /label tracked/no /milestone clear", re-adding the reverse; at the end of
a release the labels are cleared for the next one. These functions turn one issue's timeline into the board
statuses it went through, with their instants; `github_sync.services.github_sync` writes them.

  GitHub says                                                  sigtracker records
  milestone vX and `lead-opted-in` (whichever came later)      tracked in X, at risk for enhancements freeze
  `tracked/yes` added                                          tracked for enhancements freeze (before EF),
                                                               tracked for code freeze (after)
  `tracked/no` added, `tracked/yes` removed, or the milestone  removed from milestone, at that instant
  left vX, before release day R
  still milestone vX with `tracked/yes` at R                   done (shipped), at R
  milestone vX but never `lead-opted-in`                       not tracked; reported as "not opted in"
  (before 1.26, when the label did not exist: milestone vX alone opts in)
  `stage/*` at EF, `sig/*`                                     target stage; the SIG

Label events at or after R are the end-of-release clean-up and are ignored. `tracked/*` labels left over from
an earlier release (added while the milestone was another release's, or before X's cycle began) say nothing
about X.
"""

import datetime
import functools
import itertools
from dataclasses import dataclass, field

from core.versions import parse_version
from releases.choices import EnhancementStatus, TargetStage
from releases.rules import TRACKED_STATUSES

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


@dataclass
class _IssueReplay:
    """One issue's labels and milestone as the replay of its timeline has reached them, read for release `version`."""

    version: str
    cycle_start: datetime.datetime | None
    #: label name -> (added at, added while the milestone was another release's)
    labels: dict[str, tuple[datetime.datetime, bool]] = field(default_factory=dict)
    milestone: str = ""

    def apply(self, at: datetime.datetime, group) -> tuple[str, bool]:
        """Apply the events of one instant; (the last actor among them, whether `tracked/yes` was added)."""
        author = ""
        relabeled_yes = False
        for event in group:
            if event.kind == "labeled":
                other_release = bool(self.milestone) and not is_release_milestone(self.milestone, self.version)
                self.labels[event.label] = (at, other_release)
                relabeled_yes |= event.label == TRACKED_YES_LABEL
            elif event.kind == "unlabeled":
                self.labels.pop(event.label, None)
            elif event.kind == "milestoned":
                self.milestone = event.milestone
            elif event.kind == "demilestoned":
                if self.milestone == event.milestone or not self.milestone:
                    self.milestone = ""
            else:
                continue
            author = event.actor or author
        return author, relabeled_yes

    @property
    def in_release(self) -> bool:
        return is_release_milestone(self.milestone, self.version)

    def fresh(self, name: str) -> bool:
        """Whether label `name` is on the issue and says something about this release: added while the milestone
        was no other release's, and not before this release's cycle began."""
        if name not in self.labels:
            return False
        added_at, stale = self.labels[name]
        return not stale and (self.cycle_start is None or added_at >= self.cycle_start)

    def opts_in(self, *, opt_in_required: bool) -> bool:
        """Whether the issue is now opted in to the release: in its milestone, with `lead-opted-in` (or, before
        that label existed, the milestone alone), or already tracked/yes."""
        opted = OPT_IN_LABEL in self.labels if opt_in_required else True
        return self.in_release and (opted or self.fresh(TRACKED_YES_LABEL))

    def status_after(self, *, status: str, relabeled_yes: bool, tracked_for: str) -> str:
        """The board status of an opted-in issue once an instant's events are applied, from `status` before it."""
        if self.fresh(TRACKED_NO_LABEL) or not self.in_release:
            return EnhancementStatus.REMOVED
        if self.fresh(TRACKED_YES_LABEL):
            return status if status in TRACKED_STATUSES and not relabeled_yes else tracked_for
        if status in (EnhancementStatus.AT_RISK_ENHANCEMENTS, None):
            return EnhancementStatus.AT_RISK_ENHANCEMENTS
        # `tracked/yes` taken away (or never given back after a removal): out of the release.
        return EnhancementStatus.REMOVED

    def ships(self, *, status: str | None) -> bool:
        """Whether an issue in `status` when its release day comes ships: still tracked, in the milestone, with a
        `tracked/yes` of this release."""
        return status in TRACKED_STATUSES and self.in_release and self.fresh(TRACKED_YES_LABEL)


def _tracked_for(at: datetime.datetime, enhancements_freeze: datetime.datetime | None) -> str:
    """What `tracked/yes` added at `at` means: tracked for enhancements freeze before it, for code freeze after."""
    if enhancements_freeze is None or at < enhancements_freeze:
        return EnhancementStatus.TRACKED_ENHANCEMENTS
    return EnhancementStatus.TRACKED_CODE


def _stage_and_sigs(*, labels, labels_at_freeze, labels_now) -> tuple[str, tuple[str, ...]]:
    """The target stage (the `stage/*` label at the enhancements freeze, else the last one the replay saw, else
    today's) and the SIGs of the issue's labels, the replay's first, then today's."""
    final_labels = list(labels) or list(labels_now)
    stage = stage_from_labels(labels_at_freeze or []) or stage_from_labels(final_labels)
    stage = stage or stage_from_labels(labels_now)
    sigs = [sig_from_label(label) for label in [*final_labels, *labels_now]]
    return stage, tuple(dict.fromkeys(sig for sig in sigs if sig))


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
    oldest first) for release `version` and say what the board went through, per the table of the module docstring.

    Events at one instant (one comment's slash commands) are applied together before the status is read, so
    "/label tracked/yes /milestone v1.35" does not pass through "removed". `now` bounds "done at R": a release
    day still ahead ships nothing yet.
    """
    opt_in_required = parse_version(version) >= OPT_IN_LABEL_SINCE
    verdict = GitHubVerdict()
    issue = _IssueReplay(version=version, cycle_start=cycle_start)
    labels_at_freeze = None
    status = None

    for at, group in itertools.groupby(events, key=lambda event: event.at):
        if release_day is not None and at >= release_day:
            break
        if enhancements_freeze is not None and labels_at_freeze is None and at > enhancements_freeze:
            labels_at_freeze = list(issue.labels)
        author, relabeled_yes = issue.apply(at, group)
        verdict.in_milestone |= issue.in_release
        if verdict.opted_in_at is None:
            if not issue.opts_in(opt_in_required=opt_in_required):
                continue
            verdict.opted_in_at = at
            status = EnhancementStatus.AT_RISK_ENHANCEMENTS
            verdict.changes.append(GitHubStatusChange(at, status, author, "opted in"))
        new = issue.status_after(
            status=status, relabeled_yes=relabeled_yes, tracked_for=_tracked_for(at, enhancements_freeze)
        )
        if new != status:
            verdict.changes.append(GitHubStatusChange(at, new, author))
            status = new

    if release_day is not None and (now is None or release_day <= now) and issue.ships(status=status):
        verdict.changes.append(
            GitHubStatusChange(release_day, EnhancementStatus.DONE, "", "in the milestone with tracked/yes at release")
        )
    verdict.target_stage, verdict.sigs = _stage_and_sigs(
        labels=issue.labels, labels_at_freeze=labels_at_freeze, labels_now=labels_now
    )
    return verdict
