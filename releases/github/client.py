"""A small GitHub REST client over httpx: conditional requests, Link pagination, rate limits, retries.

It knows nothing of Django. The caller hands it the pages it cached earlier (`cache`: URL -> `CachedPage`)
and collects the pages fetched anew from each call's result, so the database is only touched by the caller's
thread while this client is used from several threads at once (httpx.Client is thread-safe; a semaphore keeps
at most `max_in_flight` requests open).

What GitHub documents and this client does about it (docs.github.com, "Best practices for using the REST
API", "Rate limits for the REST API", "Using pagination in the REST API"):

- every request sends `If-None-Match` with the ETag of the cached page; a `304` (free of rate limit)
  means the cached page still holds, including its `next` link;
- pagination follows the `Link` header's `rel="next"` URL as given (httpx parses it: `response.links`), but only
  on the API's own origin (scheme, host and port of `api_url`): a page pointing elsewhere is refused, so the token
  (sent on every request) never leaves for another host;
- a `403`/`429` with `X-RateLimit-Remaining: 0` waits until `X-RateLimit-Reset` when that is at most
  `max_rate_limit_wait` seconds away and otherwise raises `GitHubRateLimited` naming the reset time; a
  `Retry-After` (secondary limit) is honoured the same way; a `403`/`429` with neither waits a minute once; all
  waits for rate limits together stay under `max_rate_limit_total` (a server answering `Retry-After: 1` forever
  is given up on);
- `5xx` answers, timeouts and dropped connections are retried with exponential backoff, `max_retries`
  times; `401` and `404` raise at once with what to fix;
- every request has a deadline of its own (`request_deadline` seconds, however slowly the body trickles in: httpx's
  timeout is per read), and the whole client one (`deadline`, an instant on `clock`, e.g. a sync's end): past
  either, `GitHubDeadlineExceeded`;
- an error names the status and GitHub's `message`, never a body as sent (a proxy's page is not echoed);
- NUL and lone surrogates (JSON escapes PostgreSQL refuses in text and jsonb) are removed from every body.
"""

import datetime
import functools
import re
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import certifi
import httpx

from releases import metrics

API_VERSION = "2022-11-28"


class GitHubError(Exception):
    """A failure the sync reports in one line and stops on."""


class GitHubAuthError(GitHubError):
    pass


class GitHubNotFound(GitHubError):
    pass


class GitHubUnavailable(GitHubError):
    pass


class GitHubDeadlineExceeded(GitHubError):
    """A request, or the whole sync, ran past its deadline: the sync stops (what was synced is kept)."""


class GitHubRateLimited(GitHubError):
    def __init__(self, message: str, reset_at: datetime.datetime | None):
        super().__init__(message)
        self.reset_at = reset_at


@dataclass(frozen=True)
class CachedPage:
    """One page as GitHub last sent it: its ETag, its (trimmed) JSON body and its `next` link."""

    url: str
    etag: str
    body: Any
    next_url: str = ""


@dataclass
class Fetched:
    """What one (possibly paginated) GET gave: the items of every page, whether every page was a 304,
    and the pages to store in the cache (those that came with a new ETag)."""

    items: list
    unchanged: bool
    new_pages: list[CachedPage] = field(default_factory=list)
    body: Any = None  # the body of a single, non-list resource


#: JSON escapes of characters PostgreSQL refuses: NUL (text and jsonb) and UTF-16 surrogates, which reach Python
#: as lone surrogates when unpaired (not encodable as UTF-8). Paired ones are cleaned too; that costs an emoji.
_REFUSED_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
_REFUSED_CHARS = re.compile("[\x00\ud800-\udfff]")


def _clean(value: Any) -> Any:
    """`value` with NUL and surrogate characters removed from every string, keys included."""
    if isinstance(value, str):
        return _REFUSED_CHARS.sub("", value)
    if isinstance(value, list):
        return [_clean(item) for item in value]
    if isinstance(value, dict):
        return {_clean(key): _clean(item) for key, item in value.items()}
    return value


def _message(response: httpx.Response) -> str:
    """GitHub's one-line `message` from a JSON error body; nothing from any other body."""
    try:
        message = response.json().get("message", "")
    except (ValueError, AttributeError):
        return ""
    return " ".join(str(message).split())[:200] if isinstance(message, str) else ""


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One verifying TLS context per process: building one reads the CA bundle, which took a quarter of a second
    of every sync under load (each sync makes a client)."""
    return ssl.create_default_context(cafile=certifi.where())


class GitHubClient:
    def __init__(
        self,
        *,
        token: str,
        api_url: str = "https://api.github.com",
        cache: dict[str, CachedPage] | None = None,
        max_in_flight: int = 8,
        timeout: float = 30.0,
        max_retries: int = 4,
        backoff: float = 0.5,
        max_rate_limit_wait: float = 60.0,
        max_rate_limit_total: float = 120.0,
        request_deadline: float = 60.0,
        deadline: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ):
        self.api_url = api_url.rstrip("/")
        self.origin = _origin(httpx.URL(self.api_url))
        self.max_rate_limit_total = max_rate_limit_total
        self.request_deadline = request_deadline
        self.timeout = timeout
        self.deadline = deadline
        self.rate_limit_waited = 0.0
        self.cache = cache if cache is not None else {}
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_rate_limit_wait = max_rate_limit_wait
        self._sleep = sleep
        self._clock = clock
        self._slots = threading.BoundedSemaphore(max_in_flight)
        self._lock = threading.Lock()
        self.requests = 0
        self.not_modified = 0
        self.retries = 0
        self.http = httpx.Client(
            base_url=self.api_url,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": "sigtracker-github-sync",
            },
            timeout=timeout,
            limits=httpx.Limits(max_connections=max_in_flight, max_keepalive_connections=max_in_flight),
            follow_redirects=True,
            verify=_tls_context(),
        )

    def close(self) -> None:
        self.http.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def url(self, path: str, params: dict | None = None) -> str:
        """The absolute URL of `path` with `params`, as used for cache keys."""
        return str(self.http.build_request("GET", path, params=params).url)

    def same_origin(self, url: str) -> bool:
        """Whether `url` is on the API's own origin (relative URLs are)."""
        parsed = httpx.URL(url)
        return not parsed.is_absolute_url or _origin(parsed) == self.origin

    def start_deadline(self, seconds: float) -> None:
        """From now, the client gives up `seconds` from now (requests, retries and rate-limit waits together)."""
        self.deadline = self._clock() + seconds

    def _remaining(self) -> float | None:
        """Seconds left before the client's deadline (None: no deadline); raises once it has passed."""
        if self.deadline is None:
            return None
        left = self.deadline - self._clock()
        if left <= 0:
            raise GitHubDeadlineExceeded("GitHub sync stopped: past its deadline (GITHUB_SYNC_DEADLINE).")
        return left

    def _wait(self, seconds: float) -> None:
        """Sleep, but never past the deadline: a wait that would end after it stops the sync now."""
        left = self._remaining()
        if left is not None and seconds >= left:
            raise GitHubDeadlineExceeded(
                f"GitHub sync stopped: waiting {seconds:.0f} s more would pass its deadline (GITHUB_SYNC_DEADLINE)."
            )
        self._sleep(seconds)

    def _rate_limit_sleep(self, seconds: float) -> None:
        with self._lock:
            self.rate_limit_waited += seconds
            total = self.rate_limit_waited
        if total > self.max_rate_limit_total:
            raise GitHubRateLimited(
                f"GitHub keeps asking to wait (rate limit; {total:.0f} s asked in all, more than "
                f"{self.max_rate_limit_total:.0f} s); what was synced is kept, run again later.",
                None,
            )
        self._count("retries")
        self._wait(seconds)

    def _get(self, url: str, headers: dict) -> httpx.Response:
        """One GET of the API's own origin, read under the request's deadline (see `read_within_deadline`)."""
        if not self.same_origin(url):
            raise GitHubError(f"refused to request {httpx.URL(url).host}: not the GitHub API ({self.api_url})")
        return self.read_within_deadline("GET", url, what=url, headers=headers)

    def read_within_deadline(self, method: str, url: str, *, what: str, **request) -> httpx.Response:
        """One request whose body is read under a deadline of its own (and the client's): httpx's timeout bounds
        each read, so a server dripping a byte at a time would otherwise hold the request for ever. `what` names
        the request in the error a deadline gives."""
        budget = self.request_deadline
        left = self._remaining()
        if left is not None:
            budget = min(budget, left)
        ends = self._clock() + budget
        try:
            with self.http.stream(method, url, timeout=min(self.timeout, budget), **request) as streamed:
                chunks = []
                for chunk in streamed.iter_raw():
                    chunks.append(chunk)
                    if self._clock() > ends:
                        break
                else:
                    # A response of our own over the raw bytes: httpx decodes them (gzip) as it would have.
                    return httpx.Response(
                        streamed.status_code,
                        headers=streamed.headers,
                        content=b"".join(chunks),
                        request=streamed.request,
                    )
        except httpx.TimeoutException:
            if self._clock() < ends:
                raise  # one slow read, well within the deadline: retried like any timeout
        self._remaining()  # the sync's deadline, if that is the one passed, says so
        raise GitHubDeadlineExceeded(f"GitHub took more than {budget:.0f} s to answer {what}; sync stopped.")

    def _count(self, name: str) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)

    # --- one request --------------------------------------------------------------------------------------

    def _send(self, url: str, etag: str) -> httpx.Response:
        """GET `url` (conditionally), retrying what GitHub says may be retried; returns a 200 or 304."""
        attempt = 0
        waited_for_limit = False
        while True:
            headers = {"If-None-Match": etag} if etag else {}
            try:
                with self._slots:
                    self._count("requests")
                    response = self._get(url, headers)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                metrics.github_answer(None)
                attempt += 1
                if attempt > self.max_retries:
                    raise GitHubUnavailable(f"GitHub did not answer {url} after {attempt} tries: {exc}") from exc
                self._retry_wait(attempt)
                continue
            metrics.github_answer(response.status_code, response.headers)
            status = response.status_code
            if status in (200, 304):
                return response
            if status in (403, 429):
                wait = self._rate_limit_wait(response)
                if wait is not None:
                    if wait > self.max_rate_limit_wait:
                        reset = datetime.datetime.fromtimestamp(self._clock() + wait, tz=datetime.UTC)
                        raise GitHubRateLimited(
                            f"GitHub rate limit reached; it resets at {reset:%Y-%m-%d %H:%M:%S} UTC. "
                            "What was synced is kept; run again after that.",
                            reset,
                        )
                    self._rate_limit_sleep(wait)
                    continue
                if status == 429 or (status == 403 and "rate limit" in response.text.lower()):
                    # A secondary limit without headers: GitHub asks for at least a minute's pause, once.
                    if waited_for_limit:
                        raise GitHubRateLimited("GitHub keeps refusing requests (secondary rate limit).", None)
                    waited_for_limit = True
                    self._rate_limit_sleep(self.max_rate_limit_wait)
                    continue
                raise GitHubAuthError(
                    f"GitHub refused {url} (403): the token lacks access; set GITHUB_TOKEN to a token that can read it."
                )
            if status == 401:
                raise GitHubAuthError("GitHub rejected the token (401): set GITHUB_TOKEN to a valid token.")
            if status == 404:
                raise GitHubNotFound(f"GitHub has no {url} (404): check the repository name (--repo owner/name).")
            if status >= 500:
                attempt += 1
                if attempt > self.max_retries:
                    raise GitHubUnavailable(f"GitHub answered {status} for {url} {attempt} times; try again later.")
                self._retry_wait(attempt)
                continue
            message = _message(response)
            raise GitHubError(f"GitHub answered {status} for {url}" + (f": {message}" if message else ""))

    def _retry_wait(self, attempt: int) -> None:
        self._count("retries")
        self._wait(self.backoff * 2 ** (attempt - 1))

    def _rate_limit_wait(self, response: httpx.Response) -> float | None:
        """Seconds GitHub asks us to wait, from `Retry-After` or an exhausted primary limit; None if neither."""
        retry_after = response.headers.get("Retry-After")
        if retry_after is not None:
            try:
                return max(0.0, float(retry_after))
            except ValueError:
                return self.max_rate_limit_wait
        if response.headers.get("X-RateLimit-Remaining") == "0":
            try:
                reset = float(response.headers.get("X-RateLimit-Reset", ""))
            except ValueError:
                return self.max_rate_limit_wait
            # One second more than the reset: GitHub's clock and ours need not agree to the second.
            return max(0.0, reset - self._clock()) + 1.0
        return None

    # --- pages ------------------------------------------------------------------------------------------------

    def get_page(self, url: str, *, shape: Callable[[Any], Any] | None = None) -> tuple[CachedPage, bool]:
        """One page, from the cache when GitHub says it has not changed: (page, unchanged)."""
        cached = self.cache.get(url)
        response = self._send(url, cached.etag if cached else "")
        if response.status_code == 304 and cached is not None:
            self._count("not_modified")
            return cached, True
        try:
            body = response.json()
        except ValueError as exc:
            raise GitHubError(f"GitHub sent something other than JSON for {url}") from exc
        if _REFUSED_ESCAPE.search(response.text):
            body = _clean(body)
        if shape is not None:
            body = shape(body)
        next_url = response.links.get("next", {}).get("url", "")
        return CachedPage(url=url, etag=response.headers.get("ETag", ""), body=body, next_url=next_url), False

    def get_all(
        self, path: str, params: dict | None = None, *, shape: Callable[[Any], Any] | None = None, max_pages: int = 200
    ) -> Fetched:
        """Every page of a list (following `Link: rel="next"`), or the body of a single resource."""
        url = self.url(path, params)
        items: list = []
        unchanged = True
        new_pages: list[CachedPage] = []
        seen: set[str] = set()
        body = None
        while url and url not in seen and len(seen) < max_pages:
            if not self.same_origin(url):
                # The token goes with every request: a `next` link (or a cached one) elsewhere is not followed.
                raise GitHubError(
                    f"GitHub's next page for {path} is on {httpx.URL(url).host}, not the API's host: not followed."
                )
            seen.add(url)
            page, page_unchanged = self.get_page(url, shape=shape)
            if not page_unchanged:
                unchanged = False
                if page.etag:
                    new_pages.append(page)
            if isinstance(page.body, list):
                items.extend(page.body)
            else:
                body = page.body
            url = page.next_url
        return Fetched(items=items, unchanged=unchanged, new_pages=new_pages, body=body)
