"""What a kep.yaml plans: the release a KEP targets for its current stage, and when a change of plan is a slip.

Pure rules on kep.yaml values, read by the plan-history import (`keps.importers.kep_history`) and, through
`releases.rules`, by the release pages and stats.
"""

#: The order a KEP's stages advance in. Staying put (or going back) is "not advancing".
PLAN_STAGE_ORDER = ("alpha", "beta", "stable", "deprecated", "removed")
#: Stages that are an end state: a later `latest-milestone` there is upkeep, not a plan for the stage, so only
#: the stage's own milestone counts as its target.
_SETTLED_STAGES = ("stable", "deprecated", "removed")


def _release_key(version: str) -> tuple[int, int]:
    major, _, minor = version.partition(".")
    return int(major), int(minor)


def planned_target(*, stage: str, latest: str, milestones) -> str:
    """The release a kep.yaml plans for its current stage ('' when it names none).

    For alpha and beta the later of the stage's milestone and `latest-milestone`: staying alpha for another
    release moves `latest-milestone` only. For stable, deprecated and removed the stage's own milestone (falling
    back to `latest-milestone` while it is unset).
    """
    own = milestones.get(stage, "") if stage else ""
    if not stage:
        return latest
    if stage in _SETTLED_STAGES:
        return own or latest
    candidates = [version for version in (own, latest) if version]
    return max(candidates, key=_release_key) if candidates else ""


def stage_milestone(*, stage: str, latest: str, milestones) -> str:
    """The current stage's own milestone: what a slip moves ('' when the plan names none).

    `milestone.<stage>` when the kep.yaml sets it; else `latest-milestone` (older kep.yaml files, and files without
    a stage, give only that). Unlike `planned_target`, a later `latest-milestone` does not override the stage's
    own milestone: an alpha kept for more releases after its alpha shipped moves `latest-milestone` only, and
    that is no slip of the alpha.
    """
    own = milestones.get(stage, "") if stage else ""
    return own or latest


def plan_slip(*, before_stage: str, before_target: str, after_stage: str, after_target: str) -> str:
    """The release a KEP slipped from when its plan changed from (before) to (after); '' when it is no slip.

    `before_target` and `after_target` are the current stage's own milestones (`stage_milestone`).
    A slip is the milestone for the KEP's current stage moving to a later release without the stage advancing:
    alpha planned for 1.26 then 1.27 is a slip from 1.26; beta planned for 1.27 after alpha in 1.26 is not
    (it graduated); a target moving earlier, or a plan without a target, is not either. Counted per KEP, per SIG
    and per release slipped from; the source is kubernetes/enhancements' master history, so a slip is dated when
    the moved plan merged, not when a freeze was missed (that is the tracked sets' `SLIP_STATUSES`).
    """
    if not (before_target and after_target):
        return ""
    rank = {stage: index for index, stage in enumerate(PLAN_STAGE_ORDER)}
    if after_stage and before_stage and rank.get(after_stage, -1) > rank.get(before_stage, -1):
        return ""
    if after_stage != before_stage and not (after_stage and before_stage):
        return ""  # a stage appearing or vanishing: no stage to compare, no slip claimed
    return before_target if _release_key(after_target) > _release_key(before_target) else ""


#: kep.yaml's stage -> the `milestone:` key of that stage (a stage of its own name; `removed` has none).
_STAGE_MILESTONE_KEY = {"alpha": "alpha", "beta": "beta", "stable": "stable", "deprecated": "deprecated"}


def plan_names_release(*, stage: str, latest: str, milestones, version: str) -> bool:
    """Whether a kep.yaml plans `version`: it names it as `latest-milestone` or as the milestone of its current
    `stage` (the candidates of a SIG's plan for a release; `planning.selectors`)."""
    if not version:
        return False
    if latest == version:
        return True
    key = _STAGE_MILESTONE_KEY.get(stage or "")
    return bool(key) and (milestones or {}).get(key, "") == version
