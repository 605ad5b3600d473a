"""Reading the Release Tracking Board (a GitHub ProjectV2) over GraphQL into plain `BoardItem`s, bounded and
checked (no database).

What GitHub sends is untrusted, so a board read is bounded whatever the server does:

- at most `MAX_PAGES` pages of 100 items (a real board has a few hundred items); a board that says it has more is
  refused (`BoardTooLarge`), nothing written;
- each page at most `MAX_PAGE_BYTES` (`GitHubClient`'s streamed size limit, refused as soon as it is passed);
- each page is turned into `BoardItem`s as it comes and dropped; an item keeps at most `MAX_VALUES` field values,
  text cut at `MAX_TEXT` characters, at most 20 status events; all the items' text together at most
  `MAX_BOARD_TEXT` characters (else `BoardTooLarge`).

And its shape is checked (GitHub's schema, `shared/data/github/schema.graphql`): an item whose values have the
wrong JSON type (an issue number that is an object, a single-select `name` that is a list, `users.nodes` of
strings, ...) is skipped with one line naming it (`BoardRead.skipped`); the rest of the board is read.

Field values are the `ProjectV2ItemFieldValue` union: single select (`name`), text, date, number, users (logins),
iteration (`title`), labels (names) and milestone (`title`); the others (pull requests, repository, reviewers)
carry nothing the board's columns use.
"""

import datetime
import math
from dataclasses import dataclass, field

from github_sync.github import GitHubError
from github_sync.github.graphql import GraphQL
from github_sync.rules import board_column, is_release_board_title

from .github_sync_base import GitHubSyncError

#: Pages of 100 items read at most per board read (a board has a few hundred items).
MAX_PAGES = 50
#: The largest page read (a page of 100 real items with their events is ~300 KB).
MAX_PAGE_BYTES = 4 * 1024 * 1024
MAX_VALUES = 40
MAX_TEXT = 4000
MAX_LIST = 10
MAX_EVENTS = 20
MAX_BOARD_TEXT = 32 * 1024 * 1024

_FIELD = "field { ... on ProjectV2FieldCommon { name } }"
ITEMS_QUERY = """
query BoardItems($org: String!, $number: Int!, $after: String) {
  rateLimit { cost remaining resetAt }
  organization(login: $org) {
    projectV2(number: $number) {
      number
      title
      items(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          type
          fieldValues(first: 40) {
            nodes {
              __typename
              ... on ProjectV2ItemFieldSingleSelectValue { name FIELD }
              ... on ProjectV2ItemFieldTextValue { text FIELD }
              ... on ProjectV2ItemFieldDateValue { date FIELD }
              ... on ProjectV2ItemFieldNumberValue { number FIELD }
              ... on ProjectV2ItemFieldUserValue { users(first: 5) { nodes { login } } FIELD }
              ... on ProjectV2ItemFieldIterationValue { title FIELD }
              ... on ProjectV2ItemFieldLabelValue { labels(first: 10) { nodes { name } } FIELD }
              ... on ProjectV2ItemFieldMilestoneValue { milestone { title } FIELD }
            }
          }
          content {
            __typename
            ... on Issue {
              number
              title
              url
              EVENTS
            }
            ... on DraftIssue { title body }
          }
        }
      }
    }
  }
}
""".replace("FIELD", _FIELD)
EVENTS = """timelineItems(itemTypes: [PROJECT_V2_ITEM_STATUS_CHANGED_EVENT], last: 20) {
                nodes {
                  __typename
                  ... on ProjectV2ItemStatusChangedEvent {
                    createdAt
                    actor { login }
                    previousStatus
                    status
                    project { number }
                  }
                }
              }"""

FIND_QUERY = """
query FindBoard($org: String!, $search: String!) {
  rateLimit { cost remaining resetAt }
  organization(login: $org) {
    projectsV2(first: 50, query: $search) { nodes { number title } }
  }
}
"""


class BoardTooLarge(GitHubError):
    """A board read past its bounds: refused, nothing written."""


class MalformedItem(ValueError):
    """A board item whose JSON does not have the schema's types where it is read."""


@dataclass(frozen=True)
class StatusEvent:
    at: datetime.datetime
    actor: str
    previous: str
    status: str


@dataclass
class BoardItem:
    """One item of the board as plain data: its field values by lower-cased field name, and its content."""

    kind: str  # ISSUE, DRAFT_ISSUE, PULL_REQUEST, REDACTED
    fields: dict[str, object]
    id: str = ""  # the item's node id, stable while it stays on the board
    number: int | None = None
    title: str = ""
    url: str = ""
    events: list[StatusEvent] = field(default_factory=list)


@dataclass
class BoardRead:
    """What a board read gave: its items, and one line per item skipped for its shape."""

    items: list[BoardItem] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    pages: int = 0


# --- typed access ----------------------------------------------------------------------------------------------


def _obj(value, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MalformedItem(f"{what} is {type(value).__name__}, not an object")
    return value


def _nodes(value, what: str) -> list:
    nodes = _obj(value, what).get("nodes")
    if nodes is None:
        return []
    if not isinstance(nodes, list):
        raise MalformedItem(f"{what}.nodes is {type(nodes).__name__}, not a list")
    return nodes


def _str(value, what: str, limit: int = MAX_TEXT) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise MalformedItem(f"{what} is {type(value).__name__}, not text")
    return value[:limit]


def _number(value, what: str) -> int | float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise MalformedItem(f"{what} is {type(value).__name__} {str(value)[:20]}, not a number")
    return value


def _names(nodes: list, key: str, what: str) -> list[str]:
    return [_str(_obj(node, what).get(key), f"{what}.{key}", 100) for node in nodes[:MAX_LIST] if node is not None]


def _at(value) -> datetime.datetime | None:
    try:
        at = datetime.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo is not None else None


# --- one item ----------------------------------------------------------------------------------------------------


def _value(value: dict) -> object:
    """The value of one `ProjectV2ItemFieldValue` by its `__typename` (None: a member no column uses)."""
    kind = value.get("__typename")
    if kind == "ProjectV2ItemFieldSingleSelectValue":
        return _str(value.get("name"), "a single-select value's name", 200)
    if kind == "ProjectV2ItemFieldTextValue":
        return _str(value.get("text"), "a text value")
    if kind == "ProjectV2ItemFieldDateValue":
        return _str(value.get("date"), "a date value", 40)
    if kind == "ProjectV2ItemFieldNumberValue":
        return _number(value.get("number"), "a number value")
    if kind == "ProjectV2ItemFieldIterationValue":
        return _str(value.get("title"), "an iteration value's title", 200)
    if kind == "ProjectV2ItemFieldMilestoneValue":
        return _str(_obj(value.get("milestone"), "a milestone value").get("title"), "a milestone's title", 200)
    if kind == "ProjectV2ItemFieldUserValue":
        return _names(_nodes(value.get("users"), "users"), "login", "users.nodes")
    if kind == "ProjectV2ItemFieldLabelValue":
        return _names(_nodes(value.get("labels"), "labels"), "name", "labels.nodes")
    return None


def _events(content: dict, project: int) -> list[StatusEvent]:
    events = []
    for node in _nodes(content.get("timelineItems"), "timelineItems")[-MAX_EVENTS:]:
        event = _obj(node, "a timeline event")
        if _obj(event.get("project"), "an event's project").get("number") != project:
            continue
        at = _at(event.get("createdAt"))
        if at is not None:
            events.append(
                StatusEvent(
                    at=at,
                    actor=_str(_obj(event.get("actor"), "an event's actor").get("login"), "an event's actor", 100),
                    previous=_str(event.get("previousStatus"), "an event's previousStatus", 200),
                    status=_str(event.get("status"), "an event's status", 200),
                )
            )
    return sorted(events, key=lambda e: e.at)


def parse_item(node: dict, *, project: int) -> BoardItem:
    """A board item from its GraphQL node (no database). Values keyed by column name (`board_column`); events only
    those of this project, oldest first. Raises `MalformedItem` for a value of the wrong JSON type."""
    node = _obj(node, "the item")
    values: dict[str, object] = {}
    for raw in _nodes(node.get("fieldValues"), "fieldValues")[:MAX_VALUES]:
        value = _obj(raw, "a field value")
        name = board_column(_str(_obj(value.get("field"), "a field").get("name"), "a field's name", 100))
        read = _value(value)
        if name and read is not None:
            values[name] = read
    content = _obj(node.get("content"), "the item's content")
    kind = _str(node.get("type"), "the item's type", 40) or _str(content.get("__typename"), "the content's type", 40)
    item = BoardItem(kind=kind, fields=values, id=_str(node.get("id"), "the item's id", 100))
    item.title = _str(content.get("title"), "the title", 300)
    if content.get("__typename") == "Issue":
        number = content.get("number")
        if isinstance(number, bool) or not isinstance(number, int) or number <= 0:
            raise MalformedItem(f"the issue number is {type(number).__name__} {str(number)[:40]!r}, not a number")
        item.number = number
        item.url = _str(content.get("url"), "the issue's url", 500)
        item.events = _events(content, project)
    return item


def _size(item: BoardItem) -> int:
    texts = [item.title, item.url, item.id, *(e.actor + e.previous + e.status for e in item.events)]
    for value in item.fields.values():
        texts.extend(value if isinstance(value, list) else [value if isinstance(value, str) else ""])
    return sum(len(text) for text in texts)


def _describe(node, index: int) -> str:
    """Which item a skip line is about: its issue number when that is one, else its id, else its position."""
    if isinstance(node, dict):
        content = node.get("content")
        number = content.get("number") if isinstance(content, dict) else None
        if isinstance(number, int) and not isinstance(number, bool):
            return f"#{number}"
        if isinstance(node.get("id"), str):
            return f"board item {node['id'][:40]}"
    return f"board item {index + 1}"


# --- the board ---------------------------------------------------------------------------------------------------


def board_find(*, gql: GraphQL, org: str, version: str) -> int | None:
    """The number of release `version`'s board among `org`'s projects, by title."""
    data = gql.query(FIND_QUERY, {"org": org, "search": f"{version} Enhancements"}, max_bytes=MAX_PAGE_BYTES)
    try:
        nodes = _nodes(_obj(_obj(data.get("organization"), "organization").get("projectsV2"), "projects"), "projects")
        for node in nodes:
            node = _obj(node, "a project")
            number = node.get("number")
            title = node.get("title")
            if isinstance(number, int) and isinstance(title, str) and is_release_board_title(title, version):
                return number
    except MalformedItem as exc:
        raise GitHubError(f"GitHub's list of {org}'s projects is not as documented: {exc}") from exc
    return None


def _page(data: dict, *, org: str, number: int) -> tuple[list, dict]:
    """The item nodes and `pageInfo` of one page, checked; a board missing is a usage error."""
    try:
        board = _obj(data.get("organization"), "organization").get("projectV2")
        if board is None:
            raise GitHubSyncError(f"{org} has no project {number}: check --project.")
        connection = _obj(_obj(board, "projectV2").get("items"), "items")
        return _nodes(connection, "items"), _obj(connection.get("pageInfo"), "pageInfo")
    except MalformedItem as exc:
        raise GitHubError(f"GitHub's page of board {number} is not as documented: {exc}") from exc


def board_read(*, gql: GraphQL, org: str, number: int) -> BoardRead:
    """Every item of board `number`, a page of 100 a query, within the bounds of the module's docstring."""
    read = BoardRead()
    after = None
    query = ITEMS_QUERY.replace("EVENTS", EVENTS)
    text = 0
    while True:
        if read.pages >= MAX_PAGES:
            raise BoardTooLarge(
                f"board {number} has more than {MAX_PAGES * 100} items ({MAX_PAGES} pages): refused, nothing written."
            )
        try:
            data = gql.query(query, {"org": org, "number": number, "after": after}, max_bytes=MAX_PAGE_BYTES)
        except GitHubError as exc:
            # A GitHub (or GHES) whose schema lacks the status-change event refuses the whole query: read the
            # board without events, and every change is then recorded as observed.
            if "StatusChangedEvent" not in str(exc) and "STATUS_CHANGED_EVENT" not in str(exc):
                raise
            query = ITEMS_QUERY.replace("EVENTS", "")
            continue
        read.pages += 1
        nodes, info = _page(data, org=org, number=number)
        for index, node in enumerate(nodes):
            if node is None:
                continue
            try:
                item = parse_item(node, project=number)
            except MalformedItem as exc:
                read.skipped.append(f"{_describe(node, index)}: skipped, the board's data is not as documented ({exc})")
                continue
            text += _size(item)
            if text > MAX_BOARD_TEXT:
                raise BoardTooLarge(
                    f"board {number}'s items carry more than {MAX_BOARD_TEXT >> 20} MiB of text: refused."
                )
            read.items.append(item)
        del data, nodes
        cursor = info.get("endCursor")
        if info.get("hasNextPage") is not True or not isinstance(cursor, str) or not cursor:
            return read
        after = cursor[:1000]
