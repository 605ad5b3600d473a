"""The GitHub sync's settings, client, report and the instants of a release it reads timelines against."""

import datetime
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models import Min

from github_sync.github import (
    GitHubClient,
)
from releases.choices import MilestoneKind
from releases.models import (
    Milestone,
    Release,
)
from releases.rules import (
    CYCLE_START_KIND,
    RELEASE_KIND,
)

DEFAULT_REPO = "kubernetes/enhancements"
#: Requests in flight at once: GitHub asks integrators not to hammer it; 8 keeps a release sync to seconds.
MAX_IN_FLIGHT = 8
#: New tracked enhancements written per transaction, and cached pages stored per statement, while fetching.
CREATE_BATCH = 16
STORE_BATCH = 40
#: How far before the cycle start to look for issues updated (a SIG may opt in before the cycle opens).
SINCE_MARGIN = datetime.timedelta(days=30)
#: Namespace of the PostgreSQL advisory lock that serialises syncs of one release.
LOCK_NAMESPACE = 0x6769  # "gi"
#: The longest a sync waits for another sync of the same release to finish; then it gives up (that one is
#: doing the work) rather than hold a worker slot behind it.
LOCK_WAIT_SECONDS = 30.0


class GitHubSyncError(Exception):
    """A sync that cannot start (no token, unknown release or milestone): one line for the user."""


@dataclass
class SyncReport:
    version: str
    repo: str
    dry_run: bool = False
    issues_read: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    history_added: int = 0
    history_superseded: int = 0
    requests: int = 0
    not_modified: int = 0
    retries: int = 0
    seconds: float = 0.0
    not_opted_in: list[int] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    planned: list[str] = field(default_factory=list)
    stopped: str = ""

    def summary(self) -> str:
        verb = "would create" if self.dry_run else "created"
        return (
            f"v{self.version} from {self.repo}: {self.issues_read} issues read; tracked enhancements {verb} "
            f"{self.created}, updated {self.updated}, unchanged {self.unchanged}; history rows added "
            f"{self.history_added}, superseded {self.history_superseded}; {len(self.not_opted_in)} in milestone, "
            f"not opted in; {self.requests} requests "
            f"({self.not_modified} not modified, {self.retries} retries) in {self.seconds:.1f} s."
        )


def github_settings() -> tuple[str, str]:
    """(token, API URL) from the settings; raises GitHubSyncError naming what to set."""
    token = getattr(settings, "GITHUB_TOKEN", "")
    if not token:
        raise GitHubSyncError("GITHUB_TOKEN is not set: export a GitHub token (public read access is enough).")
    return token, getattr(settings, "GITHUB_API_URL", "") or "https://api.github.com"


def github_client(*, cache: dict | None = None) -> GitHubClient:
    token, api_url = github_settings()
    return GitHubClient(token=token, api_url=api_url, cache=cache, max_in_flight=MAX_IN_FLIGHT)


# --- instants of the release ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cycle:
    start: datetime.datetime | None
    enhancements_freeze: datetime.datetime | None
    release_day: datetime.datetime | None


def _midnight(day: datetime.date | None) -> datetime.datetime | None:
    return datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC) if day else None


def release_cycle(release: Release, due_on: datetime.datetime | None) -> Cycle:
    first = {
        row["kind"]: row["at"]
        for row in Milestone.objects.filter(release=release, sig__isnull=True)
        .values("kind")
        .annotate(at=Min("at"))
        .order_by()
    }
    return Cycle(
        start=first.get(CYCLE_START_KIND) or _midnight(release.cycle_start),
        enhancements_freeze=first.get(MilestoneKind.ENHANCEMENTS_FREEZE),
        release_day=first.get(RELEASE_KIND) or _midnight(release.release_date) or due_on,
    )
