"""The releases domain's models, one module per kind of record; every name is importable from here."""

from ..rules import parse_version

# isort: off
# In this order, not sorted: the app registry lists the models in the order they are imported, and a database
# export (`core.backup`) writes its rows in the registry's order, so re-sorting these lines would reorder every export.
from .release import Milestone, Release, ReleaseQuerySet
from .status_writes import StatusWriteRefused, status_writer
from .tracking import BOARD_ORDER, KEPLESS_NOTE, TrackedEnhancement, TrackedEnhancementQuerySet
from .exception_requests import EnhancementException
from .feature_sheet import FeatureSheetRow
from .release_team import ReleaseTeamMember
from .status_history import CurrentHistoryManager, EnhancementStatusChange
from .stats import ReleaseStats

# isort: on

__all__ = [
    "BOARD_ORDER",
    "KEPLESS_NOTE",
    "CurrentHistoryManager",
    "EnhancementException",
    "EnhancementStatusChange",
    "FeatureSheetRow",
    "Milestone",
    "Release",
    "ReleaseQuerySet",
    "ReleaseStats",
    "ReleaseTeamMember",
    "StatusWriteRefused",
    "TrackedEnhancement",
    "TrackedEnhancementQuerySet",
    "parse_version",
    "status_writer",
]
