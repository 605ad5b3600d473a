"""Milestones: which kinds freeze something, which freeze of the enhancements board each checks, and what each
kind of freeze asks of a KEP."""

from releases.choices import Freeze, MilestoneKind

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
