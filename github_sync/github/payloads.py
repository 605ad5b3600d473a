"""GitHub REST payloads as plain records, read liberally (no database, no HTTP).

Shapes as documented at docs.github.com ("List repository issues", "List timeline events for an issue",
"List milestones"). What the documentation allows and we therefore accept:

- the issues list also returns pull requests (items with a `pull_request` key): they are kept as records
  with `is_pull_request` set, and the sync skips them;
- `labels` items are objects with `name` (or, in older payloads, plain strings); `milestone`, `assignees`,
  `actor` and `user` may be null or missing;
- timeline events: `labeled`/`unlabeled` carry `label.name`, `milestoned`/`demilestoned` carry
  `milestone.title`, `commented` carries `user`, `body`, `html_url` and often no `actor`;
  `cross-referenced` and some others have no actor, and a few (e.g. `committed`) no `created_at`. Event
  types we do not use are dropped before they are looked at, so their shape never matters.

`shape_*` trim a page to the fields the sync uses before it is cached, so the ETag cache stays small.
"""

import datetime
from dataclasses import dataclass, field
from typing import Any

#: Timeline events the rules read; every other type is ignored.
USED_EVENTS = frozenset(
    {"labeled", "unlabeled", "milestoned", "demilestoned", "closed", "reopened", "commented", "assigned", "unassigned"}
)


class MalformedPayload(ValueError):
    """A payload that does not have the documented shape where we need it."""


@dataclass(frozen=True)
class TimelineEvent:
    kind: str
    at: datetime.datetime
    actor: str = ""
    label: str = ""
    milestone: str = ""
    url: str = ""


@dataclass(frozen=True)
class Issue:
    number: int
    title: str
    html_url: str
    state: str
    labels: tuple[str, ...] = ()
    milestone: str = ""
    assignees: tuple[str, ...] = ()
    created_at: datetime.datetime | None = None
    updated_at: datetime.datetime | None = None
    is_pull_request: bool = False


@dataclass(frozen=True)
class Milestone:
    number: int
    title: str
    state: str = ""
    due_on: datetime.datetime | None = None
    extra: dict = field(default_factory=dict, compare=False)


def parse_instant(value: Any) -> datetime.datetime | None:
    """GitHub's ISO 8601 timestamps (`2024-01-31T17:00:00Z`), aware in UTC; None for null/missing."""
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise MalformedPayload(f"not a timestamp: {value!r}")
    try:
        parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise MalformedPayload(f"not a timestamp: {value!r}") from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.UTC)
    return parsed.astimezone(datetime.UTC)


def _login(user: Any) -> str:
    if isinstance(user, dict):
        login = user.get("login")
        return login if isinstance(login, str) else ""
    return ""


def _name(obj: Any, key: str) -> str:
    if isinstance(obj, dict):
        value = obj.get(key)
        return value if isinstance(value, str) else ""
    return obj if isinstance(obj, str) else ""


def parse_issue(obj: Any) -> Issue:
    if not isinstance(obj, dict):
        raise MalformedPayload(f"issue is not an object: {type(obj).__name__}")
    number = obj.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        raise MalformedPayload(f"issue without a valid number: {number!r}")
    labels = obj.get("labels") or []
    if not isinstance(labels, list):
        raise MalformedPayload(f"issue #{number}: labels is not a list")
    assignees = obj.get("assignees") or ([obj["assignee"]] if isinstance(obj.get("assignee"), dict) else [])
    return Issue(
        number=number,
        title=str(obj.get("title") or ""),
        html_url=str(obj.get("html_url") or ""),
        state=str(obj.get("state") or ""),
        labels=tuple(name for name in (_name(label, "name") for label in labels) if name),
        milestone=_name(obj.get("milestone"), "title"),
        assignees=tuple(login for login in (_login(user) for user in assignees) if login),
        created_at=parse_instant(obj.get("created_at")),
        updated_at=parse_instant(obj.get("updated_at")),
        is_pull_request="pull_request" in obj,
    )


def parse_milestone(obj: Any) -> Milestone:
    if not isinstance(obj, dict) or not isinstance(obj.get("number"), int) or not isinstance(obj.get("title"), str):
        raise MalformedPayload(f"milestone without number and title: {obj!r:.200}")
    return Milestone(
        number=obj["number"],
        title=obj["title"],
        state=str(obj.get("state") or ""),
        due_on=parse_instant(obj.get("due_on")),
    )


def parse_timeline(items: Any, *, issue: int | None = None) -> list[TimelineEvent]:
    """The events the rules use, oldest first (GitHub lists them so; sorting keeps ties in listed order)."""
    where = f"issue #{issue}: " if issue else ""
    if not isinstance(items, list):
        raise MalformedPayload(f"{where}timeline is not a list")
    events = []
    for item in items:
        if not isinstance(item, dict):
            raise MalformedPayload(f"{where}timeline item is not an object")
        kind = item.get("event")
        if kind not in USED_EVENTS:
            continue
        at = parse_instant(item.get("created_at"))
        if at is None:
            if kind == "commented":
                continue
            raise MalformedPayload(f"{where}{kind} event without created_at")
        label = milestone = ""
        if kind in ("labeled", "unlabeled"):
            label = _name(item.get("label"), "name")
            if not label:
                raise MalformedPayload(f"{where}{kind} event without label.name")
        elif kind in ("milestoned", "demilestoned"):
            milestone = _name(item.get("milestone"), "title")
            if not milestone:
                raise MalformedPayload(f"{where}{kind} event without milestone.title")
        # `commented` events name their author in `user` and may have no `actor`.
        actor = _login(item.get("actor")) or _login(item.get("user"))
        events.append(
            TimelineEvent(
                kind=kind, at=at, actor=actor, label=label, milestone=milestone, url=str(item.get("html_url") or "")
            )
        )
    events.sort(key=lambda event: event.at)
    return events


# --- trimming pages before they are cached ------------------------------------------------------------------


def _keep(obj: Any, *keys: str) -> Any:
    return {key: obj[key] for key in keys if key in obj} if isinstance(obj, dict) else obj


def shape_timeline(items: Any) -> Any:
    """Keep the events we use and the fields we read from them (comment bodies are dropped)."""
    if not isinstance(items, list):
        return items
    kept = []
    for item in items:
        if not isinstance(item, dict) or item.get("event") not in USED_EVENTS:
            continue
        small = _keep(item, "event", "created_at", "html_url")
        for key in ("actor", "user"):
            if key in item:
                small[key] = _keep(item[key], "login")
        for key, name in (("label", "name"), ("milestone", "title")):
            if key in item:
                small[key] = _keep(item[key], name)
        kept.append(small)
    return kept


def shape_issues(items: Any) -> Any:
    """Keep the fields of an issue (or of each issue of a list page) that the sync reads."""
    if isinstance(items, dict):
        return shape_issues([items])[0]
    if not isinstance(items, list):
        return items
    kept = []
    for item in items:
        if not isinstance(item, dict):
            kept.append(item)
            continue
        small = _keep(item, "number", "title", "html_url", "state", "created_at", "updated_at", "pull_request")
        if "pull_request" in small:
            small["pull_request"] = {}
        small["labels"] = [
            _keep(label, "name") for label in (item.get("labels") or []) if isinstance(label, dict | str)
        ]
        small["milestone"] = _keep(item.get("milestone"), "title", "number")
        small["assignees"] = [_keep(user, "login") for user in (item.get("assignees") or [])]
        kept.append(small)
    return kept
