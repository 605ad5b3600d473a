"""Reading the release team's KEP tracking issues from GitHub's REST API.

- `client`: one conditional, rate-limit-aware, retrying HTTP client over httpx (no Django inside).
- `payloads`: turns GitHub's JSON (issues, timelines, milestones) into plain records, liberally.

The rules that turn those records into board statuses live in `releases.rules`; the writes in
`releases.services.github_sync`.
"""

from .client import (
    CachedPage,
    GitHubAuthError,
    GitHubClient,
    GitHubDeadlineExceeded,
    GitHubError,
    GitHubNotFound,
    GitHubRateLimited,
    GitHubUnavailable,
)
from .payloads import Issue, MalformedPayload, Milestone, TimelineEvent, parse_issue, parse_milestone, parse_timeline

__all__ = [
    "CachedPage",
    "GitHubAuthError",
    "GitHubClient",
    "GitHubDeadlineExceeded",
    "GitHubError",
    "GitHubNotFound",
    "GitHubRateLimited",
    "GitHubUnavailable",
    "Issue",
    "MalformedPayload",
    "Milestone",
    "TimelineEvent",
    "parse_issue",
    "parse_milestone",
    "parse_timeline",
]
