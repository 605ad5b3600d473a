"""GitHub's GraphQL API through the REST client's connection, token and limits.

Its endpoint follows from the REST API's base URL (`GITHUB_API_URL`), as GitHub documents both ("Forming calls
with GraphQL"): `https://api.github.com` -> `https://api.github.com/graphql`; GitHub Enterprise Server's
`https://HOST/api/v3` -> `https://HOST/api/graphql`, which is not under the REST prefix.

The tracking board is a ProjectV2, which the REST API does not serve with its field values; GraphQL does.
A query goes out over the same `GitHubClient` (same httpx client and token, same origin, same deadlines, the
same retry and rate-limit waits and their budget) with what differs in GraphQL (docs.github.com, "Rate limits
and node limits for the GraphQL API", "Troubleshooting"):

- a query is a POST, never conditional: there is no ETag and no free 304, so every request costs points;
  `rateLimit { cost remaining resetAt }` in each query says how many (summed in `points`);
- a failed query is often an HTTP 200 with an `errors` array (a query invalid against the server's schema may
  also come as a 400 or 422 with one): `type: "RATE_LIMITED"` is the primary limit
  (waited for until `x-ratelimit-reset`, or `resetAt`, when that is near; otherwise `GitHubRateLimited`),
  `NOT_FOUND` names what is missing, `INSUFFICIENT_SCOPES` the token's missing scope (`read:project`);
- a 403/429 with `Retry-After` or `x-ratelimit-remaining: 0` is a secondary or primary limit as in REST;
  5xx, timeouts and dropped connections are retried with backoff.
"""

import datetime
from typing import Any

import httpx

from releases import metrics

from .client import (
    GitHubAuthError,
    GitHubClient,
    GitHubError,
    GitHubNotFound,
    GitHubRateLimited,
    GitHubUnavailable,
    _clean,
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

    def query(self, query: str, variables: dict | None = None) -> dict:
        """The `data` of one query; raises a `GitHubError` for what GitHub refused."""
        client = self.client
        attempt = 0
        waited_for_limit = False
        while True:
            try:
                with client._slots:
                    client._count("requests")
                    response = self._post({"query": query, "variables": variables or {}})
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                metrics.github_answer(None)
                attempt += 1
                if attempt > client.max_retries:
                    raise GitHubUnavailable(f"GitHub GraphQL did not answer after {attempt} tries: {exc}") from exc
                client._retry_wait(attempt)
                continue
            metrics.github_answer(response.status_code, response.headers)
            status = response.status_code
            if status in (403, 429):
                wait = client._rate_limit_wait(response)
                if wait is None and not waited_for_limit:
                    waited_for_limit = True
                    wait = client.max_rate_limit_wait
                elif wait is None:
                    raise GitHubRateLimited("GitHub keeps refusing GraphQL queries (secondary rate limit).", None)
                self._wait_or_stop(wait)
                continue
            if status == 401:
                raise GitHubAuthError("GitHub rejected the token (401): set GITHUB_TOKEN to a valid token.")
            if status >= 500:
                attempt += 1
                if attempt > client.max_retries:
                    raise GitHubUnavailable(f"GitHub GraphQL answered {status} {attempt} times; try again later.")
                client._retry_wait(attempt)
                continue
            if status == 404:
                raise GitHubNotFound(f"GitHub has no GraphQL endpoint at {self.url} (404).")
            try:
                body = response.json()
            except ValueError as exc:
                raise GitHubError(f"GitHub GraphQL answered {status} with something other than JSON") from exc
            body = _clean(body) if isinstance(body, dict) else {}
            errors = body.get("errors") or []
            if status != 200:
                # A query the server would not run (invalid against its schema) may come back as a 400 or 422
                # with the same `errors` (the GraphQL-over-HTTP draft); their messages say what was refused.
                if status in (400, 422) and errors:
                    self._raise(errors)
                raise GitHubError(f"GitHub GraphQL answered {status}")
            if any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED" for e in errors):
                self._wait_or_stop(self._reset_wait(response, body))
                continue
            self._count_points(body.get("data") or {})
            if errors:
                self._raise(errors)
            return body.get("data") or {}

    def _post(self, payload: dict) -> httpx.Response:
        """One POST read under the request's deadline and the client's, as the client reads a GET."""
        return self.client.read_within_deadline("POST", self.url, what="a GraphQL query", json=payload)

    def _reset_wait(self, response: httpx.Response, body: dict) -> float:
        """Seconds until the primary limit resets: `x-ratelimit-reset`, else the query's `rateLimit.resetAt`."""
        wait = self.client._rate_limit_wait(response)
        if wait is not None:
            return wait
        reset_at = ((body.get("data") or {}).get("rateLimit") or {}).get("resetAt")
        try:
            at = datetime.datetime.fromisoformat(str(reset_at).replace("Z", "+00:00"))
        except ValueError:
            return self.client.max_rate_limit_wait
        return max(0.0, at.timestamp() - self.client._clock()) + 1.0

    def _wait_or_stop(self, wait: float) -> None:
        client = self.client
        if wait > client.max_rate_limit_wait:
            reset = datetime.datetime.fromtimestamp(client._clock() + wait, tz=datetime.UTC)
            raise GitHubRateLimited(
                f"GitHub GraphQL rate limit reached; it resets at {reset:%Y-%m-%d %H:%M:%S} UTC. "
                "What was synced is kept; run again after that.",
                reset,
            )
        client._rate_limit_sleep(wait)

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
