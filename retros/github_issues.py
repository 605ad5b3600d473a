"""The one place retros talk to GitHub: reading an issue's state through the project's client
(github_sync/github/client.py), conditionally (ETag), within a deadline. Kept to this adapter so a change of the
client's interface touches one function."""

from __future__ import annotations

import re
from dataclasses import dataclass

from github_sync.github.client import GitHubClient, GitHubNotFound

__all__ = ["IssueRef", "IssueState", "IssueGone", "issue_ref", "issue_state_read"]

#: https://github.com/<owner>/<repo>/issues/<number> (pull requests are not action items' issues).
_ISSUE_URL = re.compile(r"^https://github\.com/([A-Za-z0-9-]{1,39})/([A-Za-z0-9._-]{1,100})/issues/(\d{1,9})/?$")


@dataclass(frozen=True)
class IssueRef:
    owner: str
    repo: str
    number: int

    @property
    def api_path(self) -> str:
        return f"/repos/{self.owner}/{self.repo}/issues/{self.number}"


@dataclass(frozen=True)
class IssueState:
    state: str  # "open" | "closed"
    state_reason: str  # "completed" | "not_planned" | "reopened" | ""
    etag: str


class IssueGone(Exception):
    """GitHub has no such issue (404): deleted, transferred to a private repository, or mistyped."""


def issue_ref(url: str) -> IssueRef | None:
    """The issue a pasted URL names, or None when it is not a GitHub issue URL."""
    m = _ISSUE_URL.match((url or "").strip())
    return IssueRef(m.group(1), m.group(2), int(m.group(3))) if m else None


def _shape(body) -> dict:
    """What is kept of GitHub's answer: the state and why it was closed (anything else, or a non-object, is not)."""
    body = body if isinstance(body, dict) else {}
    reason = body.get("state_reason")
    return {"state": str(body.get("state") or "")[:20], "reason": reason if isinstance(reason, str) else ""}


def issue_state_read(
    *, ref: IssueRef, etag: str, token: str, api_url: str, deadline: float, client: GitHubClient | None = None
) -> IssueState | None:
    """The issue's state, or None when GitHub answers 304 to `etag` (unchanged since the last read)."""
    own = client is None
    if own:
        client = GitHubClient(token=token, api_url=api_url, request_deadline=min(30.0, deadline))
        client.start_deadline(deadline)
    try:
        answer = client.get_issue(f"{ref.owner}/{ref.repo}", ref.number, etag=etag)
    except GitHubNotFound as exc:
        raise IssueGone(str(exc)) from exc
    finally:
        if own:
            client.close()
    if not answer.changed:
        return None
    shaped = _shape(answer.body)
    return IssueState(state=shaped["state"], state_reason=str(shaped["reason"] or "")[:20], etag=answer.etag[:200])
