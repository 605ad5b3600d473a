"""Write what a release directory's other files say: exception requests, the feature sheet, the release team.

Each function takes one parsed file of one release and makes the database say the same, idempotently: rows are
matched by their identity in the file, unchanged rows are not written, and rows of that file that the file no
longer holds are removed (the file owns them: exception requests of source "exception file", the release's feature
sheet rows, its team). Rows from elsewhere (requests typed in the admin or read from the board; tracked
enhancements of the sync or the notes) are never changed, except that a request is linked to its KEP's row.
Every feature sheet row is a tracked enhancement: of its KEP, or KEP-less by its name (renamed with the sheet,
never duplicated); an exception request about no KEP stays a request of its release, with no tracked row.

Status writes go through `releases.services.tracking`: a tracked enhancement created here gets its first status
there, with history of source "exception file" or "feature sheet", marked as assumed (the files give dates, not
instants). `release_directories_import` (in `release_dirs`) is the whole import of `manage.py import_releases`.
"""

import datetime
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from community.models import Person, Sig
from community.services import sig_resolver_load
from keps.models import Kep
from releases.choices import (
    EnhancementStatus,
    ExceptionDecision,
    ExceptionSource,
    Freeze,
    HistorySource,
    ReleaseState,
    TargetStage,
    TrackedSource,
)
from releases.importers.exceptions_yaml import ExceptionRecord, ExceptionsFile
from releases.importers.features_csv import FeatureRecord, FeatureSheet
from releases.importers.roster import Roster
from releases.models import (
    EnhancementException,
    FeatureSheetRow,
    Milestone,
    Release,
    ReleaseTeamMember,
    TrackedEnhancement,
    parse_version,
)
from releases.rules import FREEZE_MILESTONE
from releases.services.tracking import (
    HistoryEntry,
    tracked_enhancement_create,
    tracked_enhancement_mirror_history,
    tracked_enhancement_set_status,
)

#: The board status an exception decision leaves its KEP in (for rows this import creates).
DECISION_STATUS = {
    ExceptionDecision.PENDING: EnhancementStatus.EXCEPTION_PENDING,
    ExceptionDecision.APPROVED: EnhancementStatus.EXCEPTION_APPROVED,
    ExceptionDecision.REJECTED: EnhancementStatus.REMOVED,
    ExceptionDecision.REMOVED: EnhancementStatus.REMOVED,
    ExceptionDecision.REVERTED: EnhancementStatus.REMOVED,
}
#: A feature sheet's "Feature Status" words that mean the feature left the release.
_LEFT_RELEASE = ("removed", "dropped", "deferred", "punted", "slipped", "not tracked", "untracked")

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
FEATURE_FIELDS = (
    "line",
    "name",
    "number",
    "stage",
    "type",
    "sig_id",
    "sig_text",
    "assignees",
    "issue_url",
    "docs_url",
    "status_text",
    "release_note",
    "tracked_enhancement_id",
)


@dataclass
class FileOutcome:
    """Rows created, updated (or removed) and unchanged by one file; what changed; warnings with their line."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    changes: list[str] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)


def _midnight(day: datetime.date) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time.min, tzinfo=datetime.UTC)


def _sync_rows(model, existing: dict, wanted: dict, fields, outcome: FileOutcome, describe) -> None:
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
        when, assumed = record.requested or record.reviewed, False
        if when is None:
            # 2018's files give no dates: the request was about the freeze it names, so its date stands in.
            when, assumed = _freeze_date(release, record.freeze), True
            if when is None:
                message = f"{record.subject}: no date given, and v{release.version} has no date for its freeze; skipped"
                outcome.warnings.append((record.line, message))
                continue
        row = None
        if record.kep_number is not None:
            row = rows.get(record.kep_number)
            if row is None and record.kep_number not in keps:
                outcome.warnings.append(
                    (
                        record.line,
                        f"KEP-{record.kep_number} is not in the catalogue (run import_keps): request kept without "
                        "a board row",
                    )
                )
            elif row is None or row.source == TrackedSource.EXCEPTION_FILE:
                by_kep.setdefault(record.kep_number, []).append(record)
        decided = record.reviewed or (when if record.decision != ExceptionDecision.PENDING else None)
        if decided is not None and decided < when:
            # Reviewed before it was asked: a year typo (1.25's KEP-1287, "2021-08-03" for 2022) when the same day
            # of the request's year follows the request; else the request's day, the earliest it can have been.
            fixed = _same_day_in_year(decided, when.year)
            decided = fixed if fixed is not None and fixed >= when else when
            message = (
                f"{record.subject}: reviewed {record.reviewed} before it was requested ({when}); read as {decided}"
            )
            outcome.warnings.append((record.line, message))
        dated[record.key], decided_on[record.key] = when, decided
        wanted[record.key] = {
            "release": release,
            "source": ExceptionSource.EXCEPTION_FILE,
            "source_key": record.key,
            "tracked_enhancement_id": row.pk if row else None,
            "kep_number": record.kep_number,
            "title": record.name,
            "issue_url": record.issue_url[:500],
            "freeze": record.freeze,
            "requested_at": _midnight(when),
            "thread_url": record.thread_url[:500],
            "pull_request_urls": "\n".join(record.pull_requests),
            "decision": record.decision,
            "decided_at": _midnight(decided) if decided and record.decision != ExceptionDecision.PENDING else None,
            "notes": "\n".join(
                note
                for note in (
                    f"status as written: {record.status_text}" if record.status_text else "",
                    "no date given: the date of the freeze is assumed" if assumed else "",
                )
                if note
            ),
        }
    # The board rows of KEPs the release tracked only through this file: created once, their history mirrored.
    for number, records in by_kep.items():
        row = rows.get(number)
        if row is None:
            row = rows[number] = _exception_row(release, keps[number], records, dated)
            outcome.created += 1
            outcome.changes.append(f"{release.version} KEP-{number} tracked from its exception request")
        entries = []
        for record in sorted(records, key=lambda r: (dated[r.key], r.line)):
            asked = _midnight(dated[record.key])
            author = f"exceptions.yaml:{record.line}"
            entries.append(HistoryEntry(at=asked, status=EnhancementStatus.EXCEPTION_PENDING, author=author))
            if record.decision != ExceptionDecision.PENDING:
                decided = max(asked, _midnight(decided_on[record.key] or dated[record.key]))
                entries.append(HistoryEntry(at=decided, status=DECISION_STATUS[record.decision], author=author))
        added, removed = tracked_enhancement_mirror_history(
            tracked_enhancement=row, entries=entries, source=HistorySource.EXCEPTION_FILE
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
    _sync_rows(
        EnhancementException,
        existing,
        wanted,
        EXCEPTION_FIELDS,
        outcome,
        lambda v: f"{release.version} {v['freeze']} exception request of {v['kep_number'] or v['issue_url']}",
    )
    # Requests typed in (or read from the board) before the KEP had a row here now point at it.
    for number, row in rows.items():
        release.exception_requests.filter(kep_number=number, tracked_enhancement__isnull=True).update(
            tracked_enhancement=row
        )
    return outcome


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
        at=_midnight(dated[first.key]),
        note="opted in by its exception request",
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


# --- feature sheets ---------------------------------------------------------------------------------------


def _sigs(records, outcome: FileOutcome) -> dict[str, Sig]:
    """SIGs by the slug a sheet gives, through the alias table; SIGs that no longer exist (sig-federation) are
    created outside the community list, as kep.yaml spellings are."""
    resolver = sig_resolver_load()
    found = {}
    for record in records:
        if not record.sig_slug or record.sig_slug in found:
            continue
        slug, known = resolver.resolve(record.sig_slug)
        if slug is None:
            continue
        sig = Sig.objects.filter(slug=slug).first()
        if sig is None:
            sig = Sig.objects.create(slug=slug, name=record.sig_text[:100], in_community=False)
            if not known:
                outcome.warnings.append((record.line, f"SIG {record.sig_text!r} is not in sigs.yaml: {slug} created"))
        found[record.sig_slug] = sig
    return found


def _sheet_status(record: FeatureRecord, release: Release, today: datetime.date) -> str:
    # A sheet is the record of what its release shipped (its release notes were written from it); a row the team
    # marked as gone left the milestone. Only a release known to be still ahead has its features merely tracked;
    # a release with no dates is one of the early ones the sheets belong to, long out.
    if any(word in record.status_text.lower() for word in _LEFT_RELEASE):
        return EnhancementStatus.REMOVED
    if record.moved_to and parse_version(record.moved_to) > (release.major, release.minor):
        # Still "Tracked" in its status column, but its note says it moved to a later milestone: not shipped here.
        return EnhancementStatus.REMOVED
    ahead = release.state != ReleaseState.RELEASED and release.release_date and release.release_date > today
    return EnhancementStatus.TRACKED_CODE if ahead else EnhancementStatus.DONE


@transaction.atomic
def release_feature_sheet_import(*, release: Release, sheet: FeatureSheet) -> FileOutcome:
    """Make `release`'s feature sheet rows those of `sheet`; each row is also a tracked enhancement (source
    "feature sheet"): of its KEP when it names its issue (created, with a stub KEP when the catalogue lacks it, as
    the GitHub sync does), else a KEP-less one by the row's name, so the release's figures count every feature the
    team tracked. Rows already tracked (by KEP, or by name) are left as they are."""
    outcome = FileOutcome()
    sigs = _sigs(sheet.features, outcome)
    numbers = {record.number for record in sheet.features if record.number}
    keps = {kep.number: kep for kep in Kep.objects.select_related("owning_sig").filter(number__in=numbers)}
    rows = {
        te.kep.number: te for te in release.tracked_enhancements.select_related("kep").filter(kep__number__in=numbers)
    }
    named = {te.feature_name: te for te in release.tracked_enhancements.filter(kep__isnull=True)}
    # The KEP-less row each place of the sheet was tracked as, to follow a feature renamed in the sheet.
    placed = {
        row.position: row.tracked_enhancement
        for row in release.feature_sheet_rows.select_related("tracked_enhancement").filter(
            tracked_enhancement__kep__isnull=True, tracked_enhancement__source=TrackedSource.FEATURE_SHEET
        )
    }
    kepless_names = {record.name for record in sheet.features if not record.number}
    handles = {handle.lower() for record in sheet.features for handle in record.assignees[:1]}
    people = {}
    if handles:
        query = Q()
        for handle in handles:
            query |= Q(github__iexact=handle)
        people = {p.github.lower(): p for p in Person.objects.filter(query)}
    context = _SheetContext(
        release=release,
        people=people,
        at=_midnight(release.release_date or release.cycle_start or timezone.now().date()),
        freeze=release.milestones.filter(kind=FREEZE_MILESTONE[Freeze.ENHANCEMENTS], sig__isnull=True)
        .order_by("at")
        .first(),
    )
    wanted = {}
    for position, record in enumerate(sheet.features, start=1):
        sig = sigs.get(record.sig_slug)
        if record.number:
            row = rows.get(record.number)
            if row is None:
                kep = keps.get(record.number)
                if kep is None and sig is None:
                    message = f"#{record.number}: no SIG and no KEP to file it under; kept as a sheet row only"
                    outcome.warnings.append((record.line, message))
                else:
                    if kep is None:
                        kep = keps[record.number] = _stub_kep(record, sig)
                        outcome.created += 1
                        outcome.changes.append(f"stub KEP-{record.number} created from the feature sheet")
                    row = rows[record.number] = _sheet_tracked(context, record, kep=kep, sig=sig or kep.owning_sig)
                    outcome.created += 1
                    outcome.changes.append(f"{release.version} KEP-{record.number} tracked from the feature sheet")
        else:
            row = named.get(record.name)
            previous = placed.get(position)
            if row is None and previous is not None and previous.feature_name not in kepless_names:
                # Same place, another name, the old one gone from the sheet: the feature renamed, not a new one
                # (a second row would count it twice). The name is no status: the row keeps its history.
                outcome.changes.append(f"{release.version} {previous.feature_name!r} renamed {record.name!r}")
                outcome.updated += 1
                named.pop(previous.feature_name, None)
                previous.feature_name = record.name
                previous.save(update_fields=["feature_name", "updated_at"])
                row = named[record.name] = previous
            if row is None and sig is None:
                message = f"{record.name!r}: no issue and no SIG to file it under; kept as a sheet row only"
                outcome.warnings.append((record.line, message))
            elif row is None:
                row = named[record.name] = _sheet_tracked(context, record, kep=None, sig=sig)
                outcome.created += 1
                outcome.changes.append(f"{release.version} {record.name!r} tracked from the feature sheet (no KEP)")
        wanted[position] = {
            "release": release,
            "position": position,
            "line": record.line,
            "name": record.name,
            "number": record.number,
            "stage": record.stage,
            "type": record.type,
            "sig_id": sig.pk if sig else None,
            "sig_text": record.sig_text[:100],
            "assignees": ", ".join(record.assignees)[:300],
            "issue_url": record.issue_url,
            "docs_url": record.docs_url[:500],
            "status_text": record.status_text,
            "release_note": record.release_note,
            "tracked_enhancement_id": row.pk if row else None,
        }
    existing = {row.position: row for row in release.feature_sheet_rows.all()}
    _sync_rows(
        FeatureSheetRow, existing, wanted, FEATURE_FIELDS, outcome, lambda v: f"{release.version} feature {v['name']!r}"
    )
    return outcome


@dataclass(frozen=True)
class _SheetContext:
    """What every tracked enhancement a sheet opens shares: its release, the people by handle (added to as new
    assignees are met), the instant standing in for release day, and the enhancements freeze (None if unknown)."""

    release: Release
    people: dict
    at: datetime.datetime
    freeze: Milestone | None


def _stub_kep(record: FeatureRecord, sig: Sig) -> Kep:
    return Kep.objects.create(
        number=record.number,
        title=record.name,
        owning_sig=sig,
        tracking_issue_url=f"https://github.com/kubernetes/enhancements/issues/{record.number}",
        is_stub=True,
    )


def _sheet_tracked(context: _SheetContext, record: FeatureRecord, *, kep: Kep | None, sig: Sig) -> TrackedEnhancement:
    """The tracked enhancement of one sheet row (of `kep`, or KEP-less by the row's name), with its history."""
    release, people, at, freeze = context.release, context.people, context.at, context.freeze
    assignee = record.assignees[0].lower() if record.assignees else ""
    if assignee and assignee not in people:
        people[assignee] = Person.objects.create(github=record.assignees[0])
    status = _sheet_status(record, release, timezone.now().date())
    moved = status == EnhancementStatus.REMOVED and record.moved_to and freeze is not None and freeze.at < at
    row = tracked_enhancement_create(
        release=release,
        kep=kep,
        feature_name="" if kep is not None else record.name,
        # A row the sheet still lists as tracked but whose note moves it on was tracked at the
        # enhancements freeze and left later: it counts in the merge rate's denominator.
        status=EnhancementStatus.TRACKED_CODE if moved else status,
        source=HistorySource.FEATURE_SHEET,
        author=f"features.csv:{record.line}",
        at=freeze.at if moved else at,
        # A sheet says what shipped, not when each row reached each freeze: the release day stands in.
        assumed=not moved,
        note="listed in the release's feature sheet",
        sig=sig,
        target_stage=record.stage,
        type=record.type,
        assignee=people.get(assignee),
        docs_pr_urls=record.docs_url,
    )
    if moved:
        row = tracked_enhancement_set_status(
            tracked_enhancement=row,
            status=EnhancementStatus.REMOVED,
            source=HistorySource.FEATURE_SHEET,
            author=f"features.csv:{record.line}",
            at=at,
            note=f"the sheet's note moves it to the {record.moved_to} milestone",
            assumed=True,
        )
    return row


# --- the release team -------------------------------------------------------------------------------------


@transaction.atomic
def release_team_import(*, release: Release, roster: Roster) -> FileOutcome:
    """Make `release`'s team that of `roster`: each person by GitHub handle (created when new, their name filled
    in when unknown), in each role as lead or shadow."""
    outcome = FileOutcome()
    handles = {member.handle.lower(): member for role in roster.roles for member in role.members}
    query = Q()
    for handle in handles:
        query |= Q(github__iexact=handle)
    people = {p.github.lower(): p for p in Person.objects.filter(query)} if handles else {}
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
    _sync_rows(
        ReleaseTeamMember,
        existing,
        wanted,
        ("person_id", "role", "is_shadow", "order"),
        outcome,
        lambda v: f"{release.version} {v['role_label']}{' shadow' if v['is_shadow'] else ''}",
    )
    return outcome
