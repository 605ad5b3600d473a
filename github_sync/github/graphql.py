"""GitHub's GraphQL API: a thin caller of `GitHubClient.request`, the one HTTP path to GitHub.

Its endpoint follows from the REST API's base URL (`GITHUB_API_URL`), as GitHub documents both ("Forming calls
with GraphQL"): `https://api.github.com` -> `https://api.github.com/graphql`; GitHub Enterprise Server's
`https://HOST/api/v3` -> `https://HOST/api/graphql`, which is not under the REST prefix.

The tracking board is a ProjectV2, which the REST API does not serve with its field values; GraphQL does.
A query goes out over the client's `request` (same token, same origin and redirect rule, same deadlines, size
limit, retries and rate-limit waits with their budget, the same reading of a 403). What differs in GraphQL
(docs.github.com, "Rate limits and node limits for the GraphQL API", "Troubleshooting") is read here:

- a query is a POST, never conditional: there is no ETag and no free 304, so every request costs points;
  `rateLimit { cost remaining resetAt }` in each query says how many (summed in `points`);
- a failed query is often an HTTP 200 with an `errors` array (a query invalid against the server's schema may
  also come as a 400 or 422 with one): `type: "RATE_LIMITED"` is the primary limit (waited for until
  `x-ratelimit-reset`, or `resetAt`, when that is near; otherwise `GitHubRateLimited`), `NOT_FOUND` names what
  is missing, `INSUFFICIENT_SCOPES` the token's missing scope (`read:project`).
"""

import datetime
from typing import Any

import httpx

from .client import (
    GitHubAuthError,
    GitHubClient,
    GitHubError,
    GitHubNotFound,
    rate_limit_wait,
    read_json,
)


def graphql_url(api_url: str) -> str:
    """The GraphQL endpoint of the GitHub whose REST API is at `api_url`."""
    url = httpx.URL(api_url.rstrip("/"))
    if url.path.endswith("/api/v3"):
        return str(url.copy_with(path=url.path[: -len("v3")] + "graphql"))
    return f"{url}/graphql"


class GraphQL:
    """Queries over a `GitHubClient`; counts requests on it and the points GitHub says they cost."""

    def __init__(self, client: GitHubClient):
        self.client = client
        self.url = graphql_url(client.api_url)
        self.points = 0
        self.remaining: int | None = None

    def query(self, query: str, variables: dict | None = None, *, max_bytes: int | None = None) -> dict:
        """The `data` of one query; raises a `GitHubError` for what GitHub refused. `max_bytes` lowers the
        client's size limit for the answer."""
        payload = {"query": query, "variables": variables or {}}
        while True:
            response = self.client.request(
                "POST",
                self.url,
                json=payload,
                what=f"the GraphQL endpoint {self.url}",
                keep=frozenset({400, 422}),
                max_bytes=max_bytes,
            )
            status = response.status_code
            body = read_json(response, "a GraphQL query")
            body = body if isinstance(body, dict) else {}
            errors = body.get("errors") or []
            if not isinstance(errors, list):
                errors = [errors]
            if status != 200:
                # A query the server would not run (invalid against its schema) may come back as a 400 or 422
                # with the same `errors` (the GraphQL-over-HTTP draft); their messages say what was refused.
                if errors:
                    self._raise(errors)
                raise GitHubError(f"GitHub GraphQL answered {status}")
            if any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED" for e in errors):
                self.client.wait_for_rate_limit(self._reset_wait(response, body))
                continue
            data = body.get("data") if isinstance(body.get("data"), dict) else {}
            self._count_points(data)
            if errors:
                self._raise(errors)
            return data

    def _reset_wait(self, response: httpx.Response, body: dict) -> float:
        """Seconds until the primary limit resets: `x-ratelimit-reset`, else the query's `rateLimit.resetAt`."""
        wait = rate_limit_wait(response.headers, self.client.now())
        if wait is not None:
            return wait
        data = body.get("data") if isinstance(body.get("data"), dict) else {}
        limit = data.get("rateLimit") if isinstance(data.get("rateLimit"), dict) else {}
        try:
            at = datetime.datetime.fromisoformat(str(limit.get("resetAt")).replace("Z", "+00:00"))
        except ValueError:
            return self.client.max_rate_limit_wait
        if at.tzinfo is None:
            return self.client.max_rate_limit_wait
        return max(0.0, at.timestamp() - self.client.now()) + 1.0

    def _count_points(self, data: dict) -> None:
        limit = data.get("rateLimit") if isinstance(data, dict) else None
        if isinstance(limit, dict):
            if isinstance(limit.get("cost"), int):
                self.points += limit["cost"]
            if isinstance(limit.get("remaining"), int):
                self.remaining = limit["remaining"]

    @staticmethod
    def _raise(errors: list[Any]) -> None:
        first = errors[0] if isinstance(errors[0], dict) else {}
        kind = str(first.get("type") or "")
        # A validator reports each problem of a query apart ("Unknown type ...", "Value ... does not exist"): the
        # first three say what was refused; the callers read the text (see board_sync.board_read).
        said = [" ".join(str(e.get("message") or "").split()) for e in errors[:3] if isinstance(e, dict)]
        message = "; ".join(m for m in said if m)[:300]
        if kind == "NOT_FOUND":
            raise GitHubNotFound(f"GitHub GraphQL: {message or 'not found'}")
        if kind in ("INSUFFICIENT_SCOPES", "FORBIDDEN"):
            raise GitHubAuthError(
                f"GitHub GraphQL refused the query ({message}): the token needs the read:project scope."
            )
        raise GitHubError(f"GitHub GraphQL error{f' {kind}' if kind else ''}: {message}")
