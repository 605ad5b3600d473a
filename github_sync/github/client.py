"""The one HTTP path to GitHub: `GitHubClient`, over httpx. REST (`get_page`, `get_all`, `get_issue`) and GraphQL
(`github_sync.github.graphql`) are two thin callers of its `request`.

It knows nothing of Django. The caller hands it the pages it cached earlier (`cache`: URL -> `CachedPage`)
and collects the pages fetched anew from each call's result, so the database is only touched by the caller's
thread while this client is used from several threads at once (httpx.Client is thread-safe; a semaphore keeps
at most `max_in_flight` requests open).

What `request` guarantees, for every request, REST or GraphQL alike (docs.github.com, "Best practices for using
the REST API", "Rate limits for the REST API", "Rate limits and node limits for the GraphQL API", "Using
pagination in the REST API"):

- **one origin**: no request leaves the API's origin (scheme, host and port of `api_url`). The token goes only
  there. A redirect within the origin is followed (at most `max_redirects`; a 307/308 re-sends the same method and
  body, a 303 becomes a GET, a 301/302 of a POST is refused); a redirect anywhere else, a `Link` `next` page
  elsewhere, or a cached URL elsewhere is a `GitHubRefused` naming the URL, and its body is never read;
- **bounded answers**: every answer is read streamed, under a deadline of its own (`request_deadline` seconds,
  however slowly it trickles in: httpx's timeout is per read) and the client's (`deadline`, an instant on
  `clock`, e.g. a sync's end), and refused (`GitHubRefused`) as soon as it passes `max_answer_bytes` (10 MiB by
  default; after decompression), never buffered beyond that;
- **rate limits**, read in this module only (`rate_limit_wait`): a 403 or 429 with `x-ratelimit-remaining: 0`
  waits until `x-ratelimit-reset`, one with `Retry-After` waits that long; a 429 with neither, or a 403 whose
  message says it is a (secondary) rate limit, waits a minute once ("otherwise, wait for at least one minute");
  a wait longer than `max_rate_limit_wait` raises `GitHubRateLimited` naming the reset time, and all waits
  together stay under `max_rate_limit_total` (a server answering `Retry-After: 1` forever is given up on). Any
  other 403 is a `GitHubAuthError` (the token lacks a permission), the same for REST and GraphQL;
- `5xx` answers, timeouts and dropped connections are retried with exponential backoff, `max_retries` times;
  `401` is a `GitHubAuthError`; `404` and `410` a `GitHubNotFound` (with its `status`) naming what was asked,
  for the caller to call a skip or a usage error;
- **conditional requests**: `etag=` sends `If-None-Match`; a `304` (free of rate limit) is returned as is;
- an error names the status and GitHub's `message`, never a body as sent (a proxy's page is not echoed);
- NUL and lone surrogates (JSON escapes PostgreSQL refuses in text and jsonb) are removed from every body.
"""

import datetime
import functools
import re
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import certifi
import httpx

from github_sync import metrics

API_VERSION = "2022-11-28"
#: The largest answer read from GitHub (after decompression). A board page of 100 items is ~300 KB.
MAX_ANSWER_BYTES = 10 * 1024 * 1024
#: Redirects followed within the API's origin (GitHub uses 301 for a renamed repository or transferred issue).
MAX_REDIRECTS = 3
#: The most a paginated REST list may send in all (its pages together): a tracking issue's timeline is ~100 KB.
MAX_LIST_BYTES = 64 * 1024 * 1024
REDIRECTS = frozenset({301, 302, 303, 307, 308})


class GitHubError(Exception):
    """A failure the sync reports in one line and stops on."""


class GitHubAuthError(GitHubError):
    pass


class GitHubNotFound(GitHubError):
    """A 404 or 410 (`status`): what was asked is not there, or not visible to the token."""

    def __init__(self, message: str, status: int = 404):
        super().__init__(message)
        self.status = status


class GitHubUnavailable(GitHubError):
    pass


class GitHubRefused(GitHubError):
    """An answer sigtracker will not read: a redirect off the API's origin, or an answer past its size limit."""


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
    size: int = field(default=0, compare=False)  # bytes GitHub sent for it (0: from the cache)


@dataclass
class Fetched:
    """What one (possibly paginated) GET gave: the items of every page, whether every page was a 304,
    and the pages to store in the cache (those that came with a new ETag)."""

    items: list
    unchanged: bool
    new_pages: list[CachedPage] = field(default_factory=list)
    body: Any = None  # the body of a single, non-list resource


@dataclass(frozen=True)
class IssueAnswer:
    """One issue as `GitHubClient.get_issue` read it: `changed` False when GitHub answered 304 to the ETag given
    (then `body` is None and `etag` the one given); else the issue's JSON and its new ETag."""

    changed: bool
    etag: str
    body: dict | None


#: JSON escapes of characters PostgreSQL refuses: NUL (text and jsonb) and UTF-16 surrogates, which reach Python
#: as lone surrogates when unpaired (not encodable as UTF-8). Paired ones are cleaned too; that costs an emoji.
_REFUSED_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
_REFUSED_CHARS = re.compile("[\x00\ud800-\udfff]")


def clean(value: Any) -> Any:
    """`value` with NUL and surrogate characters removed from every string, keys included."""
    if isinstance(value, str):
        return _REFUSED_CHARS.sub("", value)
    if isinstance(value, list):
        return [clean(item) for item in value]
    if isinstance(value, dict):
        return {clean(key): clean(item) for key, item in value.items()}
    return value


def read_json(response: httpx.Response, what: str) -> Any:
    """The JSON of an answer, cleaned of what PostgreSQL refuses; a `GitHubError` naming `what` if not JSON."""
    try:
        body = response.json()
    except ValueError as exc:
        raise GitHubError(f"GitHub sent something other than JSON for {what}") from exc
    return clean(body) if _REFUSED_ESCAPE.search(response.text) else body


def github_message(response: httpx.Response) -> str:
    """GitHub's one-line `message` from a JSON error body; nothing from any other body."""
    try:
        message = response.json().get("message", "")
    except (ValueError, AttributeError):
        return ""
    return " ".join(str(message).split())[:200] if isinstance(message, str) else ""


# --- rate-limit headers: read here and nowhere else --------------------------------------------------------------


def rate_limit_wait(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds GitHub's headers ask to wait (`Retry-After`, or an exhausted primary limit's `x-ratelimit-reset`,
    plus a second of clock skew); None when they ask for no wait. An unreadable value asks for a minute."""
    retry_after = headers.get("Retry-After")
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            return 60.0
    if headers.get("X-RateLimit-Remaining") == "0":
        try:
            reset = float(headers.get("X-RateLimit-Reset", ""))
        except ValueError:
            return 60.0
        return max(0.0, reset - now) + 1.0
    return None


def rate_limit_remaining(headers: Mapping[str, str] | None) -> int | None:
    """`x-ratelimit-remaining` as a number, when GitHub sent one."""
    remaining = (headers or {}).get("X-RateLimit-Remaining")
    return int(remaining) if remaining is not None and remaining.isdigit() else None


def _says_rate_limit(response: httpx.Response) -> bool:
    """Whether a 403's JSON `message` says it is a rate limit (GitHub's secondary limits may come without headers)."""
    return "rate limit" in github_message(response).lower()


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def _where(url: httpx.URL) -> str:
    """A URL as named in an error: scheme, host, port and path; no query (whatever it carries)."""
    return str(url.copy_with(query=None, fragment=None))


def _too_large(what: str, limit: int) -> GitHubRefused:
    return GitHubRefused(f"GitHub's answer to {what} is larger than {limit / 2**20:g} MiB: refused, not read further.")


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One verifying TLS context per process: building one reads the CA bundle, which took a quarter of a second
    of every sync under load (each sync makes a client)."""
    return ssl.create_default_context(cafile=certifi.where())


class GitHubClient:
    """One connection pool, token and set of limits for all of a sync's requests to GitHub (see the module's
    docstring for what each request is held to). Use as a context manager, or `close()` it."""

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
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        max_redirects: int = MAX_REDIRECTS,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ):
        self.api_url = api_url.rstrip("/")
        self.origin = _origin(httpx.URL(self.api_url))
        self.max_rate_limit_total = max_rate_limit_total
        self.request_deadline = request_deadline
        self.timeout = timeout
        self.deadline = deadline
        self.max_answer_bytes = max_answer_bytes
        self.max_redirects = max_redirects
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
            follow_redirects=False,  # followed by `_exchange`, within the origin only
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

    def same_origin(self, url: str | httpx.URL) -> bool:
        """Whether `url` is on the API's own origin (relative URLs are)."""
        parsed = httpx.URL(url)
        return not parsed.is_absolute_url or _origin(parsed) == self.origin

    def now(self) -> float:
        """The client's clock (seconds since the epoch), the one its deadlines and rate-limit resets are read on."""
        return self._clock()

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

    def wait_for_rate_limit(self, seconds: float) -> None:
        """Wait `seconds` for a rate limit to pass, or raise `GitHubRateLimited` when that is too far ahead (more
        than `max_rate_limit_wait`) or the waits of this client add up to more than `max_rate_limit_total`."""
        if seconds > self.max_rate_limit_wait:
            reset = datetime.datetime.fromtimestamp(self._clock() + seconds, tz=datetime.UTC)
            raise GitHubRateLimited(
                f"GitHub rate limit reached; it resets at {reset:%Y-%m-%d %H:%M:%S} UTC. "
                "What was synced is kept; run again after that.",
                reset,
            )
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

    def _count(self, name: str) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)

    def _retry_wait(self, attempt: int) -> None:
        self._count("retries")
        self._wait(self.backoff * 2 ** (attempt - 1))

    # --- the one request path ------------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        url: str,
        *,
        etag: str = "",
        json: Any = None,
        what: str = "",
        keep: frozenset = frozenset(),
        max_bytes: int | None = None,
    ) -> httpx.Response:
        """One request to the API's origin under every rule of the module's docstring; returns a 2xx or 304 (or a
        status in `keep`, which the caller reads itself), raises a `GitHubError` for anything else. `what` names
        the request in errors (the URL by default); `etag` makes a GET conditional; `max_bytes` lowers the size
        limit for this request."""
        what = what or url
        limit = min(max_bytes or self.max_answer_bytes, self.max_answer_bytes)
        attempt = 0
        limited_once = False
        while True:
            headers = {"If-None-Match": etag} if etag else {}
            try:
                with self._slots:
                    self._count("requests")
                    response = self._exchange(method, url, headers=headers, json=json, what=what, limit=limit)
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                metrics.github_answer(None)
                attempt += 1
                if attempt > self.max_retries:
                    raise GitHubUnavailable(f"GitHub did not answer {what} after {attempt} tries: {exc}") from exc
                self._retry_wait(attempt)
                continue
            status = response.status_code
            metrics.github_answer(status, rate_limit_remaining(response.headers))
            if 200 <= status < 300 or status == 304 or status in keep:
                return response
            if status in (403, 429):
                wait = rate_limit_wait(response.headers, self._clock())
                if wait is None and (status == 429 or _says_rate_limit(response)):
                    # A secondary limit without headers: GitHub asks for at least a minute's pause, once.
                    if limited_once:
                        raise GitHubRateLimited(f"GitHub keeps refusing {what} (secondary rate limit).", None)
                    limited_once, wait = True, self.max_rate_limit_wait
                if wait is not None:
                    self.wait_for_rate_limit(wait)
                    continue
                message = github_message(response)
                raise GitHubAuthError(
                    f"GitHub refused {what} (403{': ' + message if message else ''}): the token lacks a permission "
                    "it needs; set GITHUB_TOKEN to a token that can read it."
                )
            if status == 401:
                raise GitHubAuthError("GitHub rejected the token (401): set GITHUB_TOKEN to a valid token.")
            if status in (404, 410):
                raise GitHubNotFound(f"GitHub has no {what} ({status})", status)
            if status >= 500:
                attempt += 1
                if attempt > self.max_retries:
                    raise GitHubUnavailable(f"GitHub answered {status} for {what} {attempt} times; try again later.")
                self._retry_wait(attempt)
                continue
            message = github_message(response)
            raise GitHubError(f"GitHub answered {status} for {what}" + (f": {message}" if message else ""))

    def _exchange(self, method: str, url: str, *, headers: dict, json: Any, what: str, limit: int) -> httpx.Response:
        """One request and the redirects within the origin that answer it (none elsewhere)."""
        target = httpx.URL(url)
        for _hop in range(self.max_redirects + 1):
            if not self.same_origin(target):
                raise GitHubRefused(f"refused to request {_where(target)}: not the GitHub API ({self.api_url})")
            response = self._read(method, target, headers=headers, json=json, what=what, limit=limit)
            if response.status_code not in REDIRECTS:
                return response
            location = response.headers.get("Location")
            if not location:
                raise GitHubError(f"GitHub answered {response.status_code} for {what} with nowhere to go")
            target = response.request.url.join(location)
            if not self.same_origin(target):
                raise GitHubRefused(
                    f"GitHub redirected {what} to {_where(target)}, outside its API ({self.api_url}): not followed."
                )
            if method != "GET" and response.status_code in (301, 302):
                raise GitHubRefused(f"GitHub redirected {what} with a {response.status_code}: not re-sent.")
            if response.status_code == 303:
                method, json = "GET", None
        raise GitHubRefused(f"GitHub redirected {what} more than {self.max_redirects} times: not followed.")

    def _read(self, method: str, url: httpx.URL, *, headers: dict, json: Any, what: str, limit: int) -> httpx.Response:
        """One request whose body is read streamed under a deadline of its own (and the client's) and the size
        limit: httpx's timeout bounds each read, so a server dripping a byte at a time would otherwise hold the
        request for ever, and one sending 150 MB would have it all buffered. A redirect's body is not read."""
        budget = self.request_deadline
        left = self._remaining()
        if left is not None:
            budget = min(budget, left)
        ends = self._clock() + budget
        timeout = min(self.timeout, budget)
        try:
            with self.http.stream(method, url, headers=headers, json=json, timeout=timeout) as streamed:
                if streamed.status_code in REDIRECTS:
                    return httpx.Response(streamed.status_code, headers=streamed.headers, request=streamed.request)
                declared = streamed.headers.get("Content-Length", "")
                if declared.isdigit() and int(declared) > limit:
                    raise _too_large(what, limit)
                chunks, size = [], 0
                for chunk in streamed.iter_bytes():  # decoded: the limit holds after gzip too
                    size += len(chunk)
                    if size > limit:
                        raise _too_large(what, limit)
                    chunks.append(chunk)
                    if self._clock() > ends:
                        break
                else:
                    kept = [
                        (key, value)
                        for key, value in streamed.headers.multi_items()
                        if key.lower() not in ("content-encoding", "content-length", "transfer-encoding")
                    ]
                    return httpx.Response(
                        streamed.status_code, headers=kept, content=b"".join(chunks), request=streamed.request
                    )
        except httpx.TimeoutException:
            if self._clock() < ends:
                raise  # one slow read, well within the deadline: retried like any timeout
        self._remaining()  # the sync's deadline, if that is the one passed, says so
        raise GitHubDeadlineExceeded(f"GitHub took more than {budget:.0f} s to answer {what}; sync stopped.")

    # --- REST -----------------------------------------------------------------------------------------------------

    def get_issue(self, repo: str, number: int, *, etag: str = "") -> IssueAnswer:
        """Issue `number` of `repo` ("owner/name"), conditionally: with the `etag` of an earlier answer, GitHub's
        304 (free of rate limit) comes back as `changed=False`. A transferred issue's 301 is followed within the
        API; a deleted or hidden one raises `GitHubNotFound` (`status` 404 or 410)."""
        url = self.url(f"/repos/{repo}/issues/{int(number)}")
        response = self.request("GET", url, etag=etag)
        if response.status_code == 304:
            self._count("not_modified")
            return IssueAnswer(changed=False, etag=etag, body=None)
        body = read_json(response, url)
        if not isinstance(body, dict):
            raise GitHubError(f"GitHub's answer for {url} is not an issue")
        return IssueAnswer(changed=True, etag=response.headers.get("ETag", ""), body=body)

    def get_page(self, url: str, *, shape: Callable[[Any], Any] | None = None) -> tuple[CachedPage, bool]:
        """One page, from the cache when GitHub says it has not changed: (page, unchanged)."""
        cached = self.cache.get(url)
        response = self.request("GET", url, etag=cached.etag if cached else "")
        if response.status_code == 304 and cached is not None:
            self._count("not_modified")
            return cached, True
        body = read_json(response, url)
        if shape is not None:
            body = shape(body)
        next_url = response.links.get("next", {}).get("url", "")
        page = CachedPage(
            url=url, etag=response.headers.get("ETag", ""), body=body, next_url=next_url, size=len(response.content)
        )
        return page, False

    def get_all(
        self, path: str, params: dict | None = None, *, shape: Callable[[Any], Any] | None = None, max_pages: int = 200
    ) -> Fetched:
        """Every page of a list (following `Link: rel="next"`, at most `max_pages` pages and `MAX_LIST_BYTES` in
        all), or the body of a single resource."""
        url = self.url(path, params)
        size = 0
        items: list = []
        unchanged = True
        new_pages: list[CachedPage] = []
        seen: set[str] = set()
        body = None
        while url and url not in seen and len(seen) < max_pages:
            if not self.same_origin(url):
                # The token goes with every request: a `next` link (or a cached one) elsewhere is not followed.
                raise GitHubRefused(
                    f"GitHub's next page for {path} is on {httpx.URL(url).host}, not the API's host: not followed."
                )
            seen.add(url)
            page, page_unchanged = self.get_page(url, shape=shape)
            size += page.size
            if size > MAX_LIST_BYTES:
                raise GitHubRefused(
                    f"GitHub's pages of {path} add up to more than {MAX_LIST_BYTES >> 20} MiB: refused, not read "
                    "further."
                )
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
