"""Reading the release team's KEP tracking issues and board from GitHub's REST and GraphQL APIs.

- `client`: the one HTTP path to GitHub (`GitHubClient`, over httpx, no Django inside): auth, timeouts, the
  same-origin rule and redirects, retries, rate limits, ETags and size limits. `GitHubClient.get_issue` reads one
  issue conditionally (its ETag), e.g.::

      with GitHubClient(token=token, api_url=api_url) as client:
          answer = client.get_issue("kubernetes/enhancements", 1287, etag=stored_etag)
          if answer.changed:
              store(answer.etag, answer.body)

- `graphql`: GraphQL queries, a thin caller of the same client.
- `payloads`: turns GitHub's JSON (issues, timelines, milestones) into plain records, liberally.

The rules that turn those records into board statuses live in `releases.rules`; the writes in
`github_sync.services.github_sync`.
"""

from .client import (
    CachedPage,
    GitHubAuthError,
    GitHubClient,
    GitHubDeadlineExceeded,
    GitHubError,
    GitHubNotFound,
    GitHubRateLimited,
    GitHubRefused,
    GitHubUnavailable,
    IssueAnswer,
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
    "GitHubRefused",
    "GitHubUnavailable",
    "IssueAnswer",
    "Issue",
    "MalformedPayload",
    "Milestone",
    "TimelineEvent",
    "parse_issue",
    "parse_milestone",
    "parse_timeline",
]
