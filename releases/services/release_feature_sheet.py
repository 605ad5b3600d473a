"""Write what a release's feature sheet (`features.csv`, 2016-2018) says: its rows, and a tracked enhancement each.

Every row is a tracked enhancement of source "feature sheet": of its KEP when it names its issue (a stub KEP when
the catalogue lacks it, as the GitHub sync does), else KEP-less by the row's name, renamed with the sheet and never
duplicated. A sheet says what was tracked; what shipped only where its status says so ("Merged", 1.3): a row
"Planned", "In Progress" or "Tracked" (1.11, 1.12), or of a sheet with no status column (1.4-1.10), stays tracked
for code freeze, which after release day reads as "outcome not recorded" (`releases.rules.outcome_not_recorded`),
never as shipped. Release day stands in for each status, marked as assumed. Rows
already tracked from elsewhere are left as they are; the sheet's own rows are synced as `release_files` syncs any
file's rows.
"""

import datetime
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from community.models import Person, Sig
from community.services import sig_resolver_load
from keps.models import Kep
from releases.choices import EnhancementStatus, Freeze, HistorySource, ReleaseState, TrackedSource
from releases.importers.features_csv import FeatureRecord, FeatureSheet
from releases.models import FeatureSheetRow, Milestone, Release, TrackedEnhancement, parse_version
from releases.rules import FREEZE_MILESTONE
from releases.services.release_files import FileOutcome, midnight_utc, people_by_handle, rows_sync
from releases.services.tracking import (
    HistoryEntry,
    tracked_enhancement_create,
    tracked_enhancement_mirror_history,
    tracked_enhancement_set_status,
)

#: A feature sheet's "Feature Status" words that mean the feature left the release.
_LEFT_RELEASE = ("removed", "dropped", "deferred", "punted", "slipped", "not tracked", "untracked")

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
    # A row the team marked as gone left the milestone; a row whose status says it merged shipped; any other row
    # (planned, in progress, tracked, or a sheet without a status) was tracked, and what became of it is not
    # recorded: tracked for code freeze, counted as tracked but never as done (1.11 marks 10 features "Planned"
    # and 14 "In Progress": not 24 shipped).
    if any(word in record.status_text.lower() for word in _LEFT_RELEASE):
        return EnhancementStatus.REMOVED
    if record.moved_to and parse_version(record.moved_to) > (release.major, release.minor):
        # Still "Tracked" in its status column, but its note says it moved to a later milestone: not shipped here.
        return EnhancementStatus.REMOVED
    ahead = release.state != ReleaseState.RELEASED and release.release_date and release.release_date > today
    if record.shipped and not ahead:
        return EnhancementStatus.DONE
    return EnhancementStatus.TRACKED_CODE


@transaction.atomic
def release_feature_sheet_import(*, release: Release, sheet: FeatureSheet) -> FileOutcome:
    """Make `release`'s feature sheet rows those of `sheet`; each row is also a tracked enhancement (source
    "feature sheet"): of its KEP when it names its issue (created, with a stub KEP when the catalogue lacks it, as
    the GitHub sync does), else a KEP-less one by the row's name, so the release's figures count every feature the
    team tracked. Rows already tracked (by KEP, or by name) are left as they are."""
    outcome = FileOutcome()
    if not sheet.has_status and sheet.features:
        message = "no status column: the features are listed as tracked; what shipped is not recorded"
        outcome.warnings.append((sheet.header_line, message))
    sigs = _sigs(sheet.features, outcome)
    numbers = {record.number for record in sheet.features if record.number}
    tracked = _SheetRows(
        keps={kep.number: kep for kep in Kep.objects.select_related("owning_sig").filter(number__in=numbers)},
        by_number={
            te.kep.number: te
            for te in release.tracked_enhancements.select_related("kep").filter(kep__number__in=numbers)
        },
        by_name={te.feature_name: te for te in release.tracked_enhancements.filter(kep__isnull=True)},
        # The KEP-less row each place of the sheet was tracked as, to follow a feature renamed in the sheet.
        by_position={
            row.position: row.tracked_enhancement
            for row in release.feature_sheet_rows.select_related("tracked_enhancement").filter(
                tracked_enhancement__kep__isnull=True, tracked_enhancement__source=TrackedSource.FEATURE_SHEET
            )
        },
        kepless_names={record.name for record in sheet.features if not record.number},
    )
    context = _SheetContext(
        release=release,
        people=people_by_handle({handle.lower() for record in sheet.features for handle in record.assignees[:1]}),
        at=midnight_utc(release.release_date or release.cycle_start or timezone.now().date()),
        freeze=release.milestones.filter(kind=FREEZE_MILESTONE[Freeze.ENHANCEMENTS], sig__isnull=True)
        .order_by("at")
        .first(),
    )
    wanted = {}
    for position, record in enumerate(sheet.features, start=1):
        sig = sigs.get(record.sig_slug)
        if record.number:
            row = _kep_sheet_row(context, tracked, record, sig, outcome)
        else:
            row = _named_sheet_row(context, tracked, record, sig, position, outcome)
        if row is not None:
            _shipped_claim_corrected(context, row, record, outcome)
        wanted[position] = _feature_values(release, position, record, sig, row)
    existing = {row.position: row for row in release.feature_sheet_rows.all()}
    rows_sync(
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


@dataclass(frozen=True)
class _SheetRows:
    """What the release already tracks, looked up by a sheet row (added to as the import creates rows)."""

    keps: dict
    by_number: dict
    by_name: dict
    by_position: dict
    kepless_names: set


def _kep_sheet_row(
    context: _SheetContext, tracked: _SheetRows, record: FeatureRecord, sig: Sig | None, outcome: FileOutcome
) -> TrackedEnhancement | None:
    """The tracked enhancement of a sheet row that names its issue: the release's row of that KEP, else a new one
    (with a stub KEP when the catalogue lacks it); None when neither a KEP nor a SIG can hold it."""
    row = tracked.by_number.get(record.number)
    if row is not None:
        return row
    kep = tracked.keps.get(record.number)
    if kep is None and sig is None:
        message = f"#{record.number}: no SIG and no KEP to file it under; kept as a sheet row only"
        outcome.warnings.append((record.line, message))
        return None
    if kep is None:
        kep = tracked.keps[record.number] = _stub_kep(record, sig)
        outcome.created += 1
        outcome.changes.append(f"stub KEP-{record.number} created from the feature sheet")
    row = tracked.by_number[record.number] = _sheet_tracked(context, record, kep=kep, sig=sig or kep.owning_sig)
    outcome.created += 1
    outcome.changes.append(f"{context.release.version} KEP-{record.number} tracked from the feature sheet")
    return row


def _named_sheet_row(
    context: _SheetContext,
    tracked: _SheetRows,
    record: FeatureRecord,
    sig: Sig | None,
    position: int,
    outcome: FileOutcome,
) -> TrackedEnhancement | None:
    """The KEP-less tracked enhancement of a sheet row that names no issue: by its name, by its place when the
    feature was renamed, else a new one; None when it has no SIG to be filed under."""
    version = context.release.version
    row = tracked.by_name.get(record.name)
    previous = tracked.by_position.get(position)
    if row is None and previous is not None and previous.feature_name not in tracked.kepless_names:
        # Same place, another name, the old one gone from the sheet: the feature renamed, not a new one
        # (a second row would count it twice). The name is no status: the row keeps its history.
        outcome.changes.append(f"{version} {previous.feature_name!r} renamed {record.name!r}")
        outcome.updated += 1
        tracked.by_name.pop(previous.feature_name, None)
        previous.feature_name = record.name
        previous.save(update_fields=["feature_name", "updated_at"])
        row = tracked.by_name[record.name] = previous
    if row is not None:
        return row
    if sig is None:
        message = f"{record.name!r}: no issue and no SIG to file it under; kept as a sheet row only"
        outcome.warnings.append((record.line, message))
        return None
    row = tracked.by_name[record.name] = _sheet_tracked(context, record, kep=None, sig=sig)
    outcome.created += 1
    outcome.changes.append(f"{version} {record.name!r} tracked from the feature sheet (no KEP)")
    return row


def _feature_values(
    release: Release, position: int, record: FeatureRecord, sig: Sig | None, row: TrackedEnhancement | None
) -> dict:
    """The `FeatureSheetRow` field values of one row of the sheet."""
    return {
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


def _shipped_claim_corrected(context: _SheetContext, row: TrackedEnhancement, record: FeatureRecord, outcome) -> None:
    """A row an earlier import of this sheet marked done, when the sheet records no outcome for it (the rule before
    2026-12: every row of a sheet counted as shipped): its one sheet entry superseded by the sheet's status, at the
    same assumed instant. The history keeps the old claim, struck through; other sources' rows are untouched."""
    if row.source != TrackedSource.FEATURE_SHEET or row.status != EnhancementStatus.DONE:
        return
    status = _sheet_status(record, context.release, timezone.now().date())
    entries = list(row.history.filter(source=HistorySource.FEATURE_SHEET).values_list("changed_at", "to_status"))
    if status == EnhancementStatus.DONE or status == EnhancementStatus.REMOVED or len(entries) != 1:
        return
    if entries[0][1] != EnhancementStatus.DONE:
        return
    note = "the feature sheet records no outcome for it: tracked, not shipped"
    entry = HistoryEntry(entries[0][0], status, author=f"features.csv:{record.line}", note=note, assumed=True)
    tracked_enhancement_mirror_history(tracked_enhancement=row, entries=[entry], source=HistorySource.FEATURE_SHEET)
    row.refresh_from_db(fields=["status"])
    outcome.updated += 1
    outcome.changes.append(f"{context.release.version} {row}: done corrected to {status} (no outcome in the sheet)")


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
        # A sheet says what was tracked (and at most what merged), not when each row reached each freeze: the
        # release day stands in.
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
