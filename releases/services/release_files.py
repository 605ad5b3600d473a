"""Write what a release directory's other files say: exception requests and the release team (the feature sheet
is `release_feature_sheet`, which shares this module's row sync).

Each function takes one parsed file of one release and makes the database say the same, idempotently: rows are
matched by their identity in the file, unchanged rows are not written, and rows of that file that the file no
longer holds are removed (the file owns them: exception requests of source "exception file", the release's feature
sheet rows, its team). Rows from elsewhere (requests typed in the admin or read from the board; tracked
enhancements of the sync or the notes) are never changed, except that a request is linked to its KEP's row.
An exception request about no KEP stays a request of its release, with no tracked row.

Status writes go through `releases.services.tracking`: a tracked enhancement created here gets its first status
there, with history of source "exception file" at 00:00 UTC of each day the file gives; its first change is
marked assumed, since the day of a request says nothing of where the KEP stood at the freezes before it.
`release_directories_import` (in `release_dirs`) is the whole import of `manage.py import_releases`.
"""

import datetime
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models.functions import Lower

from community.models import Person
from keps.models import Kep
from releases.choices import (
    EnhancementStatus,
    ExceptionDecision,
    ExceptionSource,
    HistorySource,
    TargetStage,
    TrackedSource,
)
from releases.importers.exceptions_yaml import ExceptionRecord, ExceptionsFile
from releases.importers.roster import Roster
from releases.models import (
    EnhancementException,
    Release,
    ReleaseTeamMember,
    TrackedEnhancement,
)
from releases.rules import FREEZE_MILESTONE
from releases.services.tracking import (
    HistoryEntry,
    tracked_enhancement_create,
    tracked_enhancement_mirror_history,
)

#: The board status an exception decision leaves its KEP in (for rows this import creates).
DECISION_STATUS = {
    ExceptionDecision.PENDING: EnhancementStatus.EXCEPTION_PENDING,
    ExceptionDecision.APPROVED: EnhancementStatus.EXCEPTION_APPROVED,
    ExceptionDecision.REJECTED: EnhancementStatus.REMOVED,
    ExceptionDecision.REMOVED: EnhancementStatus.REMOVED,
    ExceptionDecision.REVERTED: EnhancementStatus.REMOVED,
}

EXCEPTION_FIELDS = (
    "tracked_enhancement_id",
    "kep_number",
    "title",
    "issue_url",
    "freeze",
    "requested_at",
    "thread_url",
    "pull_request_urls",
    "decision",
    "decided_at",
    "notes",
)


@dataclass
class FileOutcome:
    """Rows created, updated (or removed) and unchanged by one file; what changed; warnings with their line."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    changes: list[str] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)


def midnight_utc(day: datetime.date) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time.min, tzinfo=datetime.UTC)


def rows_sync(model, existing: dict, wanted: dict, fields, outcome: FileOutcome, describe) -> None:
    """Create, update or delete `model` rows so that `existing` (key -> row) matches `wanted` (key -> values)."""
    create, update, changed_fields = [], [], set()
    for key, values in wanted.items():
        row = existing.get(key)
        if row is None:
            create.append(model(**values))
            outcome.changes.append(f"{describe(values)} created")
            continue
        changed = [name for name in fields if getattr(row, name) != values[name]]
        if not changed:
            outcome.unchanged += 1
            continue
        for name in changed:
            setattr(row, name, values[name])
        changed_fields.update(changed)
        update.append(row)
        outcome.changes.append(f"{describe(values)}: {', '.join(changed)} updated")
    stale = [row.pk for key, row in existing.items() if key not in wanted]
    if stale:
        model.objects.filter(pk__in=stale).delete()
        outcome.updated += len(stale)
        outcome.changes.append(f"{len(stale)} row(s) no longer in the file removed")
    if create:
        model.objects.bulk_create(create)
        outcome.created += len(create)
    if update:
        model.objects.bulk_update(update, sorted(changed_fields))
        outcome.updated += len(update)


def people_by_handle(handles: set[str]) -> dict:
    """People by lower-cased GitHub handle, of those `handles` already known."""
    if not handles:
        return {}
    # One IN over the lower-cased handle, not an OR of case-insensitive matches per handle.
    known = Person.objects.annotate(handle=Lower("github")).filter(handle__in={h.lower() for h in handles})
    return {p.github.lower(): p for p in known}


# --- exception requests -----------------------------------------------------------------------------------


@transaction.atomic
def release_exceptions_import(*, release: Release, parsed: ExceptionsFile) -> FileOutcome:
    """Make `release`'s exception requests of source "exception file" those of `parsed` (see the module)."""
    outcome = FileOutcome()
    numbers = {record.kep_number for record in parsed.requests if record.kep_number}
    keps = {kep.number: kep for kep in Kep.objects.select_related("owning_sig").filter(number__in=numbers)}
    rows = {
        te.kep.number: te for te in release.tracked_enhancements.select_related("kep").filter(kep__number__in=numbers)
    }
    by_kep: dict[int, list[ExceptionRecord]] = {}
    wanted, dated, decided_on = {}, {}, {}
    for record in parsed.requests:
        when, assumed = _requested_on(release, record, outcome)
        if when is None:
            continue
        row = rows.get(record.kep_number) if record.kep_number is not None else None
        if _tracked_through_file(record, row, keps, outcome):
            by_kep.setdefault(record.kep_number, []).append(record)
        decided = _reviewed_on(record, when, outcome)
        dated[record.key], decided_on[record.key] = when, decided
        wanted[record.key] = _exception_values(release, record, row, when=when, decided=decided, assumed=assumed)
    # The board rows of KEPs the release tracked only through this file: created once, their history mirrored.
    for number, records in by_kep.items():
        row = rows.get(number)
        if row is None:
            row = rows[number] = _exception_row(release, keps[number], records, dated)
            outcome.created += 1
            outcome.changes.append(f"{release.version} KEP-{number} tracked from its exception request")
        added, removed = tracked_enhancement_mirror_history(
            tracked_enhancement=row,
            entries=_exception_history(records, dated, decided_on),
            source=HistorySource.EXCEPTION_FILE,
        )
        if added or removed:
            outcome.changes.append(f"KEP-{number}: {added} status change(s) recorded from the exception file")
        for values in wanted.values():
            if values["kep_number"] == number:
                values["tracked_enhancement_id"] = row.pk
    existing = {
        request.source_key: request
        for request in release.exception_requests.filter(source=ExceptionSource.EXCEPTION_FILE)
    }
    rows_sync(
        EnhancementException,
        existing,
        wanted,
        EXCEPTION_FIELDS,
        outcome,
        lambda v: f"{release.version} {v['freeze']} exception request of {v['kep_number'] or v['issue_url']}",
    )
    # Requests typed in (or read from the board) before the KEP had a row here now point at it (one read, and a
    # write only when there are such requests).
    unlinked = list(
        release.exception_requests.filter(kep_number__in=list(rows), tracked_enhancement__isnull=True).only(
            "pk", "kep_number"
        )
    )
    for request in unlinked:
        request.tracked_enhancement_id = rows[request.kep_number].pk
    EnhancementException.objects.bulk_update(unlinked, ["tracked_enhancement"])
    return outcome


def _requested_on(release: Release, record: ExceptionRecord, outcome: FileOutcome) -> tuple[datetime.date | None, bool]:
    """The day a request was made, and whether that day is assumed; None (with a warning) if nothing dates it."""
    when = record.requested or record.reviewed
    if when is not None:
        return when, False
    # 2018's files give no dates: the request was about the freeze it names, so its date stands in.
    when = _freeze_date(release, record.freeze)
    if when is None:
        message = f"{record.subject}: no date given, and v{release.version} has no date for its freeze; skipped"
        outcome.warnings.append((record.line, message))
    return when, True


def _tracked_through_file(
    record: ExceptionRecord, row: TrackedEnhancement | None, keps: dict, outcome: FileOutcome
) -> bool:
    """Whether the request's KEP is on the release's board only through this file (so the file writes its row)."""
    if record.kep_number is None:
        return False
    if row is None and record.kep_number not in keps:
        message = f"KEP-{record.kep_number} is not in the catalogue (run import_keps): request kept without a board row"
        outcome.warnings.append((record.line, message))
        return False
    return row is None or row.source == TrackedSource.EXCEPTION_FILE


def _reviewed_on(record: ExceptionRecord, when: datetime.date, outcome: FileOutcome) -> datetime.date | None:
    """The day a request was decided (None while pending), never before the day it was made."""
    decided = record.reviewed or (when if record.decision != ExceptionDecision.PENDING else None)
    if decided is not None and decided < when:
        # Reviewed before it was asked: a year typo (1.25's KEP-1287, "2021-08-03" for 2022) when the same day
        # of the request's year follows the request; else the request's day, the earliest it can have been.
        fixed = _same_day_in_year(decided, when.year)
        decided = fixed if fixed is not None and fixed >= when else when
        message = f"{record.subject}: reviewed {record.reviewed} before it was requested ({when}); read as {decided}"
        outcome.warnings.append((record.line, message))
    return decided


def _exception_values(
    release: Release,
    record: ExceptionRecord,
    row: TrackedEnhancement | None,
    *,
    when: datetime.date,
    decided: datetime.date | None,
    assumed: bool,
) -> dict:
    """The `EnhancementException` field values of one request of the file."""
    notes = (
        f"status as written: {record.status_text}" if record.status_text else "",
        "no date given: the date of the freeze is assumed" if assumed else "",
    )
    return {
        "release": release,
        "source": ExceptionSource.EXCEPTION_FILE,
        "source_key": record.key,
        "tracked_enhancement_id": row.pk if row else None,
        "kep_number": record.kep_number,
        "title": record.name,
        "issue_url": record.issue_url[:500],
        "freeze": record.freeze,
        "requested_at": midnight_utc(when),
        "thread_url": record.thread_url[:500],
        "pull_request_urls": "\n".join(record.pull_requests),
        "decision": record.decision,
        "decided_at": midnight_utc(decided) if decided and record.decision != ExceptionDecision.PENDING else None,
        "notes": "\n".join(note for note in notes if note),
    }


def _exception_history(records: list[ExceptionRecord], dated: dict, decided_on: dict) -> list[HistoryEntry]:
    """The statuses a KEP's requests give its board row, oldest first: pending when asked, then the decision."""
    entries = []
    for record in sorted(records, key=lambda r: (dated[r.key], r.line)):
        asked = midnight_utc(dated[record.key])
        author = f"exceptions.yaml:{record.line}"
        entries.append(HistoryEntry(at=asked, status=EnhancementStatus.EXCEPTION_PENDING, author=author))
        if record.decision != ExceptionDecision.PENDING:
            decided = max(asked, midnight_utc(decided_on[record.key] or dated[record.key]))
            entries.append(HistoryEntry(at=decided, status=DECISION_STATUS[record.decision], author=author))
    return entries


def _same_day_in_year(day: datetime.date, year: int) -> datetime.date | None:
    try:
        return day.replace(year=year)
    except ValueError:  # 29 February
        return None


def _freeze_date(release: Release, freeze: str) -> datetime.date | None:
    """The day of the release's freeze (its schedule's milestone), else its cycle start or release day."""
    milestone = release.milestones.filter(kind=FREEZE_MILESTONE[freeze], sig__isnull=True).order_by("at").first()
    if milestone is not None:
        return milestone.date
    return release.cycle_start or release.planned_release_date


def _exception_row(release: Release, kep: Kep, records: list[ExceptionRecord], dated: dict) -> TrackedEnhancement:
    first = min(records, key=lambda r: (dated[r.key], r.line))
    return tracked_enhancement_create(
        release=release,
        kep=kep,
        status=EnhancementStatus.EXCEPTION_PENDING,
        source=HistorySource.EXCEPTION_FILE,
        author=f"exceptions.yaml:{first.line}",
        link=first.thread_url,
        at=midnight_utc(dated[first.key]),
        note="opted in by its exception request",
        # The request's day, not the opt-in's: where the KEP stood at the freezes before it is not in the file.
        assumed=True,
        # The stage kep.yaml gives this release, if any; its stage today says nothing of a request years ago.
        target_stage=next(
            (
                stage
                for stage in (TargetStage.ALPHA, TargetStage.BETA, TargetStage.STABLE)
                if getattr(kep, f"{stage}_milestone", "").removeprefix("v") == release.version
            ),
            "",
        ),
    )


# --- the release team -------------------------------------------------------------------------------------


@transaction.atomic
def release_team_import(*, release: Release, roster: Roster) -> FileOutcome:
    """Make `release`'s team that of `roster`: each person by GitHub handle (created when new, their name filled
    in when unknown), in each role as lead or shadow."""
    outcome = FileOutcome()
    handles = {member.handle.lower(): member for role in roster.roles for member in role.members}
    people = people_by_handle(set(handles))
    for handle, member in handles.items():
        person = people.get(handle)
        if person is None:
            people[handle] = Person.objects.create(github=member.handle, name=member.name)
        elif not person.name and member.name:
            person.name = member.name
            person.save(update_fields=["name"])
    wanted, order = {}, 0
    for role in roster.roles:
        for member in role.members:
            key = (role.label, member.handle.lower())
            if key in wanted:
                continue
            order += 1
            wanted[key] = {
                "release": release,
                "person_id": people[member.handle.lower()].pk,
                "role": role.role,
                "role_label": role.label,
                "is_shadow": member.is_shadow,
                "order": order,
            }
    existing = {(m.role_label, m.person.github.lower()): m for m in release.team_members.select_related("person")}
    rows_sync(
        ReleaseTeamMember,
        existing,
        wanted,
        ("person_id", "role", "is_shadow", "order"),
        outcome,
        lambda v: f"{release.version} {v['role_label']}{' shadow' if v['is_shadow'] else ''}",
    )
    return outcome
