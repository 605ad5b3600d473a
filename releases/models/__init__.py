"""The releases domain's models, one module per kind of record; every name is importable from here."""

from ..rules import parse_version

# isort: off
# In the order the models were declared in when they were one module: the app registry lists them in import order,
# and a database export writes its rows in the registry's order (`core.backup`), so the order stays as it was.
from .release import Milestone, Release, ReleaseQuerySet
from .status_writes import StatusWriteRefused, status_writer
from .tracking import KEPLESS_NOTE, TrackedEnhancement, TrackedEnhancementQuerySet
from .exception_requests import EnhancementException
from .feature_sheet import FeatureSheetRow
from .release_team import ReleaseTeamMember
from .status_history import CurrentHistoryManager, EnhancementStatusChange
from .retros import RetroItem, Retrospective
from .stats import ReleaseStats
from .github_cache import GitHubCachedResponse

# isort: on

__all__ = [
    "KEPLESS_NOTE",
    "CurrentHistoryManager",
    "EnhancementException",
    "EnhancementStatusChange",
    "FeatureSheetRow",
    "GitHubCachedResponse",
    "Milestone",
    "Release",
    "ReleaseQuerySet",
    "ReleaseStats",
    "ReleaseTeamMember",
    "RetroItem",
    "Retrospective",
    "StatusWriteRefused",
    "TrackedEnhancement",
    "TrackedEnhancementQuerySet",
    "parse_version",
    "status_writer",
]
