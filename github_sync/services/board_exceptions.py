"""Exception requests read from the tracking board (v1.36 on: the board's "Exception Requests" view).

An item with an Exception Request Type is a request: the KEP's own issue item for its first request, a draft
item titled with the KEP's number for a second one. Each becomes an `EnhancementException` of source "board",
identified by the item's node id (`source_key`), so a re-read updates it and an unchanged one writes nothing.
Rows typed in the admin or imported from exceptions.yaml are left as they are.
"""

import datetime
import re
from collections.abc import Iterable

from github_sync.rules import board_exception_decision, board_exception_freeze
from releases.choices import ExceptionDecision, ExceptionSource
from releases.models import EnhancementException, Release, TrackedEnhancement

#: A KEP's number in a draft item's title: "KEP-4639: ...", "#4639 ...", "4639 - second request".
KEP_IN_TITLE = re.compile(r"(?:KEP[- ]?|#)(\d{1,5})\b|^\s*(\d{2,5})\b", re.I)


def kep_number_in(title: str) -> int | None:
    match = KEP_IN_TITLE.search(title or "")
    return int(match.group(1) or match.group(2)) if match else None


def _text(value) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value if v)
    return "" if value is None else str(value).strip()


def _day(value) -> datetime.datetime | None:
    try:
        day = datetime.date.fromisoformat(_text(value)[:10])
    except ValueError:
        return None
    return datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)


def board_exceptions_write(*, release: Release, items: Iterable, report, now: datetime.datetime) -> None:
    """Write the board's exception requests of `release` (`items`: `board_sync.BoardItem`s)."""
    items = [item for item in items if _text(item.fields.get("exception request type"))]
    if not items:
        return
    existing = {
        row.source_key: row
        for row in EnhancementException.objects.filter(release=release, source=ExceptionSource.BOARD)
    }
    numbers = {item.number or kep_number_in(item.title) for item in items}
    rows = {
        row.kep.number: row
        for row in TrackedEnhancement.objects.filter(release=release, kep__number__in=numbers - {None}).select_related(
            "kep"
        )
    }
    for item in items:
        read = _freeze_and_decision(item, report)
        if read is None:
            continue
        number = item.number or kep_number_in(item.title)
        wanted = _request_fields(item, row=rows.get(number), number=number, freeze=read[0], decision=read[1])
        _write_request(release, item, wanted, current=existing.get(item.id), report=report, now=now)


def _freeze_and_decision(item, report) -> tuple[str, str] | None:
    """The freeze an item's request is for and its decision (pending when the board says none); None for a
    request type with no name in sigtracker, reported and not read. An unknown status is reported, kept pending."""
    kind = _text(item.fields.get("exception request type"))
    freeze = board_exception_freeze(kind)
    if freeze is None:
        report.unknown.append(f"board item {item.title!r}: unknown exception request type {kind!r}; not read")
        return None
    status = _text(item.fields.get("exception status"))
    decision = board_exception_decision(status) if status else ExceptionDecision.PENDING
    if decision is None:
        report.unknown.append(f"board item {item.title!r}: unknown exception status {status!r}; kept as pending")
        decision = ExceptionDecision.PENDING
    return freeze, decision


def _request_fields(item, *, row, number: int | None, freeze: str, decision: str) -> dict:
    """The `EnhancementException` fields an item's columns give (all but when it was requested)."""
    additional = item.fields.get("additional time")
    return {
        "tracked_enhancement_id": row.pk if row else None,
        "kep_number": number,
        "title": item.title[:300],
        "issue_url": item.url or _text(item.fields.get("link"))[:500],
        "thread_url": _text(item.fields.get("slack thread"))[:500],
        "pull_request_urls": "\n".join(_text(item.fields.get("related prs")).replace(",", " ").split()),
        "additional_time": (f"{additional:g} days" if isinstance(additional, int | float) else _text(additional))[:100],
        "freeze": freeze,
        "decision": decision,
        "decided_at": None if decision == ExceptionDecision.PENDING else _day(item.fields.get("decision date")),
        "liaison": _text(item.fields.get("liaison"))[:100],
        "notes": _text(item.fields.get("notes")),
    }


def _write_request(release: Release, item, wanted: dict, *, current, report, now: datetime.datetime) -> None:
    """Create the item's request, or update the fields of the one read before (`current`) that changed."""
    requested = _day(item.fields.get("request date"))
    decision = wanted["decision"]
    if current is None:
        if wanted["decided_at"] is None and decision != ExceptionDecision.PENDING:
            wanted["decided_at"] = now  # decided, date not filled in: first seen decided now
        EnhancementException.objects.create(
            release=release,
            source=ExceptionSource.BOARD,
            source_key=item.id,
            requested_at=requested or now,
            **wanted,
        )
        report.exceptions_created += 1
        return
    if requested is not None:
        wanted["requested_at"] = requested
    if wanted["decided_at"] is None and decision != ExceptionDecision.PENDING:
        wanted["decided_at"] = current.decided_at or now
    changed = [name for name, value in wanted.items() if getattr(current, name) != value]
    if changed:
        for name in changed:
            setattr(current, name, wanted[name])
        current.save(update_fields=changed)
        report.exceptions_updated += 1
