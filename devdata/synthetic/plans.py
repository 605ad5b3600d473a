"""The plan of a run: the error it raises, the KEPs' planned journeys through the releases."""

import datetime
from dataclasses import dataclass, field


class SyntheticDataError(Exception):
    """The synthetic data cannot be generated (non-empty database, bad scale)."""


@dataclass
class _Attempt:
    """One tracked enhancement to be: a KEP opted into a release aiming at a stage, and how it ended."""

    release: int
    target: str  # TargetStage value
    type: str  # EnhancementType value
    outcome: str  # "done", "removed", "deferred", or "open" (active release)


@dataclass
class _KepPlan:
    number: int
    title: str
    sig: int  # index into the run's SIGs
    created: datetime.date
    kind: str  # "", "perma", "removal"
    stage_idx: int = 0  # next stage to aim at
    done_at: dict = field(default_factory=dict)  # target stage -> release minor version (int)
    next_release: int = 99
    finished: bool = False
    abandoned: bool = False
    provisional: bool = False
    attempts: list = field(default_factory=list)
