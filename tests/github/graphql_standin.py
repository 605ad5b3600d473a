"""A stand-in for GitHub's GraphQL API (`POST /graphql`): a real HTTP server on a local port.

Written from GitHub's public schema (shared/data/github/schema.graphql) and docs ("Forming calls with GraphQL",
"Using pagination in the GraphQL API", "Rate limits and node limits for the GraphQL API"): a query is a JSON
`{"query", "variables"}` POST; connections page with `first`/`after` and answer `pageInfo { hasNextPage
endCursor }` with opaque cursors; field values are a union told apart by `__typename`; an item's `type` is
ISSUE, DRAFT_ISSUE, PULL_REQUEST or REDACTED; `rateLimit { cost remaining resetAt }` answers every query; a
failed query is an HTTP 200 with an `errors` array (`type: "RATE_LIMITED"` with `x-ratelimit-remaining: 0`
and `x-ratelimit-reset`; `NOT_FOUND`).

It answers the operations the board sync sends (told by their operation name) and refuses a query that
names a type (`... on X`) the schema does not have, so a misspelt fragment fails here as on GitHub. The status
change event type is added by GitHub's docs for issue timelines, not yet in the schema file: it is allowed
explicitly. Faults: `fail_next(status)` (e.g. a 502), `rate_limit_next(reset_in)`.

`strict=200` (or 400) makes it a server that validates every query against the schema file itself, as a GraphQL
server built from that schema does (graphql-core, the reference implementation's port): a query that is not valid
there is answered with the validator's errors and no `data`, in an HTTP 200 (GitHub's way) or a 400 (what the
GraphQL-over-HTTP draft asks of `application/graphql-response+json`). The schema file predates the status
change event, so there the board is read without it.
"""

import base64
import datetime
import functools
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import graphql

from tests.conftest import SHARED_DIR, require_service
from tests.core.servers import serve_in_thread
from tests.github.standin import TOKEN, iso

SCHEMA = SHARED_DIR / "data" / "github" / "schema.graphql"
#: Types GitHub documents for issue timelines that the schema file predates.
EXTRA_TYPES = {"ProjectV2ItemStatusChangedEvent"}

SINGLE_SELECT = {"status", "stage", "type", "sig", "prr status", "exception request type", "exception status"}
NUMBER = {"additional time"}
DATE = {"request date", "decision date"}
USERS = {"enhancements contact", "liaison"}


def _schema_types() -> set[str]:
    require_service(SCHEMA.exists(), f"GitHub's GraphQL schema not found at {SCHEMA}")
    return set(re.findall(r"^(?:type|union|interface|enum|input) (\w+)", SCHEMA.read_text(), re.M))


@functools.cache
def _schema() -> graphql.GraphQLSchema:
    # GitHub's file breaks two rules of the SDL on deprecated fields of interfaces that graphql-core enforces when
    # it builds or validates a schema; neither touches what a query may ask, so both checks are waived.
    schema = graphql.build_schema(SCHEMA.read_text(), assume_valid_sdl=True)
    schema._validation_errors = []
    return schema


def validation_errors(query: str) -> list[dict]:
    """The errors graphql-core's validator finds in `query` against the schema file, formatted as it sends them."""
    try:
        document = graphql.parse(query)
    except graphql.GraphQLError as error:
        return [error.formatted]
    return [error.formatted for error in graphql.validate(_schema(), document)]


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:{index}".encode()).decode()


def _index(cursor: str | None) -> int:
    if not cursor:
        return 0
    return int(base64.b64decode(cursor).decode().split(":")[1]) + 1


class StandInGraphQL:
    def __init__(self, *, org: str = "kubernetes", latency: float = 0.0, token: str = TOKEN, strict: int | None = None):
        self.org = org
        self.strict = strict
        self.latency = latency
        self.token = token
        self.projects: dict[int, dict] = {}
        self.events: dict[int, list[dict]] = {}  # issue number -> status change events (any project)
        self.faults: list[dict] = []
        self.log: list[dict] = []
        self.remaining = 5000
        self._types = _schema_types() | EXTRA_TYPES
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._ids = iter(range(1, 10**6))

    # --- data ---------------------------------------------------------------------------------------------------

    def add_project(self, number: int, title: str) -> dict:
        self.projects[number] = {"number": number, "title": title, "items": []}
        return self.projects[number]

    def add_item(self, project: int, *, issue: int | None = None, title: str = "", **values) -> dict:
        """An item with its field values by field name (`prr_status=` for "PRR Status" etc.: underscores are
        spaces, case as GitHub's field names). `issue=None` makes a draft issue."""
        item = {"id": f"PVTI_{next(self._ids)}", "issue": issue, "title": title or f"KEP {issue}", "values": {}}
        self.set_values(item, **values)
        self.projects[project]["items"].append(item)
        return item

    @staticmethod
    def set_values(item: dict, **values) -> None:
        for key, value in values.items():
            name = " ".join(word.upper() if word == "prr" else word.capitalize() for word in key.split("_"))
            name = {"Sig": "SIG", "Prr Status": "PRR Status"}.get(name, name)
            if value is None:
                item["values"].pop(name, None)
            else:
                item["values"][name] = value

    def item(self, project: int, issue: int) -> dict:
        return next(i for i in self.projects[project]["items"] if i["issue"] == issue)

    def status_event(self, issue: int, project: int, at, previous: str, status: str, actor: str = "lead") -> None:
        self.events.setdefault(issue, []).append(
            {
                "__typename": "ProjectV2ItemStatusChangedEvent",
                "createdAt": iso(at),
                "actor": {"login": actor},
                "previousStatus": previous,
                "status": status,
                "project": {"number": project},
            }
        )

    def fail_next(self, status: int = 502) -> None:
        self.faults.append({"status": status})

    def rate_limit_next(self, *, reset_in: float = 2.0) -> None:
        self.faults.append({"rate_limited": reset_in})

    # --- answers ------------------------------------------------------------------------------------------------

    def _value(self, name: str, value) -> dict:
        field = {"name": name}
        key = name.lower()
        if key in SINGLE_SELECT:
            return {"__typename": "ProjectV2ItemFieldSingleSelectValue", "name": value, "field": field}
        if key in NUMBER:
            return {"__typename": "ProjectV2ItemFieldNumberValue", "number": value, "field": field}
        if key in DATE:
            return {"__typename": "ProjectV2ItemFieldDateValue", "date": value, "field": field}
        if key in USERS:
            logins = value if isinstance(value, list) else [value]
            return {
                "__typename": "ProjectV2ItemFieldUserValue",
                "users": {"nodes": [{"login": login} for login in logins]},
                "field": field,
            }
        return {"__typename": "ProjectV2ItemFieldTextValue", "text": value, "field": field}

    def _node(self, item: dict, project: int, with_events: bool) -> dict:
        title_value = {"__typename": "ProjectV2ItemFieldTextValue", "text": item["title"], "field": {"name": "Title"}}
        node = {
            "id": item["id"],
            "type": "ISSUE" if item["issue"] else "DRAFT_ISSUE",
            "fieldValues": {"nodes": [title_value, *(self._value(k, v) for k, v in item["values"].items())]},
        }
        if item["issue"]:
            content = {
                "__typename": "Issue",
                "number": item["issue"],
                "title": item["title"],
                "url": f"https://github.com/{self.org}/enhancements/issues/{item['issue']}",
            }
            if with_events:
                content["timelineItems"] = {"nodes": list(self.events.get(item["issue"], []))[-20:]}
        else:
            content = {"__typename": "DraftIssue", "title": item["title"], "body": ""}
        node["content"] = content
        return node

    def _answer(self, query: str, variables: dict) -> dict:
        unknown = sorted(set(re.findall(r"\.\.\. on (\w+)", query)) - self._types) if self._types else []
        if unknown:
            return {"errors": [{"message": f"No such type {unknown[0]}, so it can't be a fragment condition"}]}
        self.remaining -= 1
        data: dict = {"rateLimit": {"cost": 1, "remaining": self.remaining, "resetAt": iso(_reset())}}
        operation = re.search(r"query (\w+)", query).group(1)
        if variables.get("org") != self.org:
            data["organization"] = None
            return {"data": data, "errors": [{"type": "NOT_FOUND", "message": "Could not resolve to an Organization"}]}
        if operation == "FindBoard":
            words = variables.get("search", "").lower().split()
            nodes = [
                {"number": p["number"], "title": p["title"]}
                for p in self.projects.values()
                if all(word in p["title"].lower() for word in words)
            ]
            data["organization"] = {"projectsV2": {"nodes": nodes}}
            return {"data": data}
        if operation == "BoardItems":
            project = self.projects.get(variables.get("number"))
            if project is None:
                data["organization"] = {"projectV2": None}
                return {"data": data, "errors": [{"type": "NOT_FOUND", "message": "Could not resolve to a ProjectV2"}]}
            first = int(re.search(r"items\(first: (\d+)", query).group(1))
            if first > 100:
                return {"errors": [{"type": "EXCESSIVE_PAGE_SIZE", "message": "first is limited to 100"}]}
            start = _index(variables.get("after"))
            chunk = project["items"][start : start + first]
            with_events = "PROJECT_V2_ITEM_STATUS_CHANGED_EVENT" in query
            data["organization"] = {
                "projectV2": {
                    "number": project["number"],
                    "title": project["title"],
                    "items": {
                        "pageInfo": {
                            "hasNextPage": start + first < len(project["items"]),
                            "endCursor": _cursor(start + len(chunk) - 1) if chunk else None,
                        },
                        "nodes": [self._node(item, project["number"], with_events) for item in chunk],
                    },
                }
            }
            return {"data": data}
        return {"errors": [{"message": f"unknown operation {operation}"}]}

    # --- server -------------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "StandInGraphQL":
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def do_POST(self):  # noqa: N802 - http.server API
                standin._handle(self)

            def do_GET(self):  # noqa: N802
                standin._send(self, 404, {}, {"message": "Not Found"})

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

    def _send(self, handler, status: int, headers: dict, body) -> None:
        payload = json.dumps(body).encode()
        handler.send_response(status)
        for key, value in {"Content-Type": "application/json; charset=utf-8", **headers}.items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def _handle(self, handler: BaseHTTPRequestHandler, path: str = "/graphql") -> None:
        if self.latency:
            time.sleep(self.latency)
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        if handler.path != path:
            return self._send(handler, 404, {}, {"message": "Not Found"})
        if handler.headers.get("Authorization") != f"Bearer {self.token}":
            return self._send(handler, 401, {}, {"message": "Bad credentials"})
        try:
            request = json.loads(raw)
        except ValueError:
            return self._send(handler, 400, {}, {"message": "Problems parsing JSON"})
        with self._lock:
            fault = self.faults.pop(0) if self.faults else None
        entry = {"variables": request.get("variables") or {}, "fault": fault}
        self.log.append(entry)
        if self.strict and (errors := validation_errors(request.get("query") or "")):
            entry["refused"] = errors
            return self._send(handler, self.strict, {}, {"errors": errors})
        headers = {
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-reset": str(int(_reset().timestamp())),
            "x-ratelimit-resource": "graphql",
        }
        if fault and "status" in fault:
            return self._send(handler, fault["status"], {}, {"message": "Server Error"})
        if fault and "rate_limited" in fault:
            reset = time.time() + fault["rate_limited"]
            headers.update({"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(reset))})
            body = {
                "data": None,
                "errors": [{"type": "RATE_LIMITED", "message": "API rate limit already exceeded for user ID 1."}],
            }
            return self._send(handler, 200, headers, body)
        with self._lock:
            body = self._answer(request.get("query") or "", request.get("variables") or {})
        self._send(handler, 200, headers, body)


def _reset() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0) + datetime.timedelta(hours=1)
