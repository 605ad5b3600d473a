"""What meeting notes say about a release's retrospective: the records the notes parser
(`meetings.importers.notes`) makes and the retro service (`releases.services.retro`) writes. They live here,
with the service that consumes them, so the release app does not import the meetings app above it."""

from __future__ import annotations

from dataclasses import dataclass, field

from community.importers.people import PresenterRef

__all__ = ["KepRowRecord", "RetroEntryRecord", "RetroRecord"]


@dataclass
class RetroEntryRecord:
    category: str  # went_well | to_improve | action_item (releases.choices.RetroCategory values)
    text: str
    owner: PresenterRef | None
    status: str  # "" unless an action item: open | in_progress | done | dropped
    line: int


@dataclass
class KepRowRecord:
    number: int
    title: str
    status: str  # releases.choices.EnhancementStatus value
    type: str  # EnhancementType value or ""
    target_stage: str  # TargetStage value or ""
    assignee: str  # GitHub handle or ""
    line: int


@dataclass
class RetroRecord:
    """What one meeting says about one release's retrospective."""

    release: str
    held: bool  # the meeting held this release's retro (not merely quoted its tally)
    line: int
    source_url: str = ""
    tracked: int | None = None
    merged: int | None = None
    entries: list[RetroEntryRecord] = field(default_factory=list)
    keps: list[KepRowRecord] = field(default_factory=list)
