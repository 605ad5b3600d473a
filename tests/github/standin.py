"""A stand-in for GitHub's REST API: a real HTTP server on a local port, serving the documented shapes.

Not a mock of our client: sigtracker talks to it over HTTP through GITHUB_API_URL exactly as to
api.github.com. It serves what the sync reads (docs.github.com, REST "Issues", "Timeline events",
"Milestones"): `GET /repos/{owner}/{repo}/milestones`, `.../issues` (with `state`, `since`, `milestone`,
`per_page`, `page`; pull requests included, as GitHub does), `.../issues/{number}` and
`.../issues/{number}/timeline`, each paginated with a `Link` header, each with an `ETag` that answers a
matching `If-None-Match` with `304`, and the `X-RateLimit-*` headers.

Faults are queued with `fail_next(...)` (e.g. one `502`) and `rate_limit_next(...)` (a primary-limit
`403` with `X-RateLimit-Remaining: 0` and a reset a few seconds ahead). `latency` delays every response.
Scenario helpers build issues from their timeline: `add_issue(number, events=[labeled(...), ...])`
works out the issue's current labels, milestone and `updated_at` the way GitHub would.
"""

import datetime
import hashlib
import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

from tests.core.servers import serve_in_thread

TOKEN = "test-token"
_ids = itertools.count(1000)


def iso(at: datetime.datetime) -> str:
    return at.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def user(login: str) -> dict:
    return {
        "login": login,
        "id": abs(hash(login)) % 10**8,
        "node_id": f"U_{login}",
        "type": "User",
        "site_admin": False,
        "html_url": f"https://github.com/{login}",
    }


def _event(kind: str, at: datetime.datetime, actor: str | None, **extra) -> dict:
    event_id = next(_ids)
    event = {
        "id": event_id,
        "node_id": f"E_{event_id}",
        "url": f"https://api.github.com/repos/kubernetes/enhancements/issues/events/{event_id}",
        "event": kind,
        "commit_id": None,
        "commit_url": None,
        "created_at": iso(at),
        "performed_via_github_app": None,
        **extra,
    }
    if actor is not None:
        event["actor"] = user(actor)
    return event


def labeled(name: str, at, actor: str = "release-bot") -> dict:
    return _event("labeled", at, actor, label={"name": name, "color": "ededed"})


def unlabeled(name: str, at, actor: str = "release-bot") -> dict:
    return _event("unlabeled", at, actor, label={"name": name, "color": "ededed"})


def milestoned(title: str, at, actor: str = "release-bot") -> dict:
    return _event("milestoned", at, actor, milestone={"title": title})


def demilestoned(title: str, at, actor: str = "release-bot") -> dict:
    return _event("demilestoned", at, actor, milestone={"title": title})


def closed(at, actor: str = "release-bot") -> dict:
    return _event("closed", at, actor, state_reason="completed")


def commented(body: str, at, login: str = "someone", *, number: int = 1) -> dict:
    """A comment as the timeline lists it: `user`, `body`, `html_url`; no `actor`."""
    comment_id = next(_ids)
    return {
        "id": comment_id,
        "node_id": f"IC_{comment_id}",
        "url": f"https://api.github.com/repos/kubernetes/enhancements/issues/comments/{comment_id}",
        "html_url": f"https://github.com/kubernetes/enhancements/issues/{number}#issuecomment-{comment_id}",
        "issue_url": f"https://api.github.com/repos/kubernetes/enhancements/issues/{number}",
        "user": user(login),
        "created_at": iso(at),
        "updated_at": iso(at),
        "author_association": "MEMBER",
        "body": body,
        "event": "commented",
    }


def cross_referenced(at) -> dict:
    """Documented without an actor."""
    return {
        "event": "cross-referenced",
        "created_at": iso(at),
        "updated_at": iso(at),
        "source": {"type": "issue", "issue": {"number": 1, "title": "x"}},
    }


class StandInGitHub:
    """The server and the data it serves. Use as a context manager, or call start()/stop()."""

    def __init__(
        self, *, repo: str = "kubernetes/enhancements", latency: float = 0.0, token: str = TOKEN, enterprise=False
    ):
        self.repo = repo
        #: GitHub Enterprise Server's layout: REST under `/api/v3`, GraphQL at `/api/graphql` (GitHub's docs,
        #: "Forming calls with GraphQL"); github.com serves REST at the root and GraphQL at `/graphql`.
        self.enterprise = enterprise
        self.latency = latency
        self.token = token
        self.milestones: list[dict] = []
        self.issues: dict[int, dict] = {}
        self.timelines: dict[int, list[dict]] = {}
        self.faults: list[tuple[str, dict]] = []
        self.log: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        #: A `tests.github.graphql_standin.StandInGraphQL` answering `POST /graphql` on this server's port.
        self.graphql = None

    # --- data ---------------------------------------------------------------------------------------------------

    def add_milestone(self, title: str, *, number: int | None = None, due_on=None, state: str = "open") -> dict:
        number = number or len(self.milestones) + 1
        milestone = {
            "url": f"https://api.github.com/repos/{self.repo}/milestones/{number}",
            "html_url": f"https://github.com/{self.repo}/milestone/{number}",
            "id": 5000 + number,
            "node_id": f"MI_{number}",
            "number": number,
            "title": title,
            "description": "",
            "creator": user("release-bot"),
            "open_issues": 0,
            "closed_issues": 0,
            "state": state,
            "created_at": "2020-01-01T00:00:00Z",
            "updated_at": "2020-01-01T00:00:00Z",
            "closed_at": None,
            "due_on": iso(due_on) if due_on else None,
        }
        self.milestones.append(milestone)
        return milestone

    def add_issue(
        self,
        number: int,
        *,
        title: str = "",
        events: list[dict] = (),
        labels: list[str] = (),
        assignees: list[str] = (),
        created_at=None,
        pull_request: bool = False,
    ) -> dict:
        """An issue whose labels, milestone, state and `updated_at` follow from `events` (plus `labels`
        already present at creation)."""
        current = list(labels)
        milestone_title = None
        state = "open"
        times = [created_at] if created_at else []
        for event in events:
            kind = event.get("event")
            if event.get("created_at"):
                times.append(datetime.datetime.fromisoformat(event["created_at"].replace("Z", "+00:00")))
            if kind == "labeled" and event["label"]["name"] not in current:
                current.append(event["label"]["name"])
            elif kind == "unlabeled" and event["label"]["name"] in current:
                current.remove(event["label"]["name"])
            elif kind == "milestoned":
                milestone_title = event["milestone"]["title"]
            elif kind == "demilestoned":
                milestone_title = None
            elif kind == "closed":
                state = "closed"
            elif kind == "reopened":
                state = "open"
        created = created_at or (min(times) if times else datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC))
        updated = max(times) if times else created
        milestone = next((m for m in self.milestones if m["title"] == milestone_title), None)
        issue = {
            "url": f"https://api.github.com/repos/{self.repo}/issues/{number}",
            "repository_url": f"https://api.github.com/repos/{self.repo}",
            "html_url": f"https://github.com/{self.repo}/{'pull' if pull_request else 'issues'}/{number}",
            "id": 9_000_000 + number,
            "node_id": f"I_{number}",
            "number": number,
            "title": title or f"KEP {number}",
            "user": user("kep-author"),
            "labels": [{"id": i, "name": name, "color": "ededed", "default": False} for i, name in enumerate(current)],
            "state": state,
            "locked": False,
            "assignee": user(assignees[0]) if assignees else None,
            "assignees": [user(login) for login in assignees],
            "milestone": milestone,
            "comments": sum(1 for e in events if e.get("event") == "commented"),
            "created_at": iso(created),
            "updated_at": iso(updated),
            "closed_at": iso(updated) if state == "closed" else None,
            "author_association": "MEMBER",
            "body": "KEP tracking issue",
        }
        if pull_request:
            issue["pull_request"] = {
                "url": f"https://api.github.com/repos/{self.repo}/pulls/{number}",
                "merged_at": None,
            }
        self.issues[number] = issue
        self.timelines[number] = list(events)
        return issue

    # --- faults ---------------------------------------------------------------------------------------------

    def fail_next(self, path_contains: str, status: int = 502) -> None:
        self.faults.append((path_contains, {"status": status}))

    def rate_limit_next(self, path_contains: str, *, reset_in: float = 2.0, status: int = 403) -> None:
        self.faults.append((path_contains, {"status": status, "reset_in": reset_in}))

    def requests_to(self, path_contains: str) -> list[dict]:
        return [entry for entry in self.log if path_contains in entry["path"]]

    # --- server ---------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The REST API's base URL, what GITHUB_API_URL is set to."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{'/api/v3' if self.enterprise else ''}"

    def start(self) -> "StandInGitHub":
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # http.server writes headers and body as two segments; with Nagle's algorithm on, the body waits for
            # the client's delayed ACK of the headers (~40 ms on Linux) on every keep-alive response: latency
            # that GitHub does not add and that would swamp the `latency` the tests and bench ask for.
            disable_nagle_algorithm = True

            def do_GET(self):  # noqa: N802 - http.server API
                standin._handle(self)

            def do_POST(self):  # noqa: N802 - GraphQL, when a GraphQL stand-in is attached (`graphql`)
                if standin.graphql is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                standin.graphql._handle(self, path="/api/graphql" if standin.enterprise else "/graphql")

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        serve_in_thread(self._server)
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency:
                time.sleep(self.latency)
            status, headers, body = self._respond(handler)
        finally:
            with self._lock:
                self.in_flight -= 1
        parsed = urlparse(handler.path)
        self.log.append(
            {"path": parsed.path, "query": parsed.query, "status": status, "etag": handler.headers.get("If-None-Match")}
        )
        payload = b"" if status == 304 else json.dumps(body).encode()
        handler.send_response(status)
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def _rate_headers(self, remaining: int = 4999, reset: float | None = None) -> dict:
        return {
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Used": str(5000 - remaining),
            "X-RateLimit-Reset": str(int(reset if reset is not None else time.time() + 3600)),
            "X-RateLimit-Resource": "core",
        }

    def _respond(self, handler) -> tuple[int, dict, object]:
        parsed = urlparse(handler.path)
        path, query = parsed.path, {k: v[-1] for k, v in parse_qs(parsed.query).items()}
        if handler.headers.get("Authorization") != f"Bearer {self.token}":
            return 401, {"Content-Type": "application/json"}, {"message": "Bad credentials"}
        with self._lock:
            fault = next((f for f in self.faults if f[0] in handler.path), None)
            if fault:
                self.faults.remove(fault)
        if fault:
            spec = fault[1]
            if "reset_in" in spec:
                headers = self._rate_headers(0, time.time() + spec["reset_in"])
                return spec["status"], headers, {"message": "API rate limit exceeded"}
            return spec["status"], {}, {"message": "Server Error"}
        prefix = f"{'/api/v3' if self.enterprise else ''}/repos/{self.repo}"
        if not path.startswith(prefix + "/"):
            return 404, {}, {"message": "Not Found"}
        rest = path[len(prefix) :].strip("/").split("/")
        if rest == ["milestones"]:
            state = query.get("state", "open")
            items = [m for m in self.milestones if state == "all" or m["state"] == state]
        elif rest == ["issues"]:
            items = self._list_issues(query)
        elif len(rest) == 2 and rest[0] == "issues" and rest[1].isdigit() and int(rest[1]) in self.issues:
            return self._ok(self.issues[int(rest[1])], handler)
        elif len(rest) == 3 and rest[0] == "issues" and rest[2] == "timeline" and int(rest[1]) in self.issues:
            items = self.timelines[int(rest[1])]
        else:
            return 404, {}, {"message": "Not Found"}
        per_page = min(100, max(1, int(query.get("per_page", 30))))
        page = max(1, int(query.get("page", 1)))
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []
        last = max(1, -(-len(items) // per_page))
        host, port = self._server.server_address[:2]
        base = f"http://{host}:{port}{path}"
        if page < last:
            links.append(f'<{base}?{urlencode({**query, "page": page + 1})}>; rel="next"')
            links.append(f'<{base}?{urlencode({**query, "page": last})}>; rel="last"')
        if page > 1:
            links.append(f'<{base}?{urlencode({**query, "page": 1})}>; rel="first"')
            links.append(f'<{base}?{urlencode({**query, "page": page - 1})}>; rel="prev"')
        return self._ok(chunk, handler, {"Link": ", ".join(links)} if links else {})

    def _list_issues(self, query: dict) -> list[dict]:
        state = query.get("state", "open")
        items = [i for i in self.issues.values() if state == "all" or i["state"] == state]
        milestone = query.get("milestone")
        if milestone == "none":
            items = [i for i in items if i["milestone"] is None]
        elif milestone == "*":
            items = [i for i in items if i["milestone"] is not None]
        elif milestone:
            items = [i for i in items if i["milestone"] and str(i["milestone"]["number"]) == milestone]
        if query.get("since"):
            items = [i for i in items if i["updated_at"] >= query["since"].replace("+00:00", "Z")[:19] + "Z"]
        return sorted(items, key=lambda i: (i["created_at"], i["number"]), reverse=query.get("direction") != "asc")

    def _ok(self, body, handler, extra: dict | None = None) -> tuple[int, dict, object]:
        etag = 'W/"' + hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest() + '"'
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "ETag": etag,
            **self._rate_headers(),
            **(extra or {}),
        }
        if handler.headers.get("If-None-Match") == etag:
            return 304, headers, None
        return 200, headers, body
