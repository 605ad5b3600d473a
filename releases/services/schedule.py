"""Write a parsed release schedule: the Release and its Milestones, updated in place.

Milestones are matched by `releases.importers.schedule.milestone_key` — ``(release, kind, slot)`` — so a
re-import updates rows instead of adding new ones, and unchanged rows are not written at all. Milestones
the schedule does not mention (curated by hand, or SIG freezes) are left alone. When milestones of a
release with tracked enhancements change, its stats are queued for recomputation (on commit).

`release_schedules_import` is the whole import of `manage.py import_schedule`: it finds the READMEs, reads and
writes each in its own locked transaction, and points agenda items at the releases it created.
"""

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from django.db import transaction
from django.utils import timezone

from core.importing import ImportReport, ImportUsageError, Progress, import_file_by_file, no_progress, read_text
from releases.importers.schedule import Schedule, milestone_key, parse_schedule, version_from_path
from releases.models import Milestone, Release
from releases.rules import release_state
from releases.services.release_state import release_states_refresh
from releases.services.stats import release_stats_request
from releases.signals import releases_created

#: Name of the advisory lock that serialises concurrent schedule imports.
SCHEDULE_IMPORT_LOCK = "import_schedule"
#: kubernetes/sig-release keeps each release's README in releases/release-1.NN/.
_RELEASE_FOLDER = re.compile(r"^release-v?(\d+)\.(\d+)$")

#: Milestone fields the schedule owns; `sends_reminders` and `sig` stay as curated.
MILESTONE_FIELDS = ("label", "at", "all_day", "quoted_timezone", "source_text", "exception_deadline")


@dataclass
class ScheduleOutcome:
    """Rows created, updated and left unchanged by one schedule import (the release counts as a row)."""

    release: Release
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    changes: list[str] = field(default_factory=list)


def release_state_at(
    *,
    cycle_start: datetime.date | None,
    release_date: datetime.date | None,
    now: datetime.datetime,
    first_milestone: datetime.datetime | None = None,
    last_milestone: datetime.datetime | None = None,
) -> str:
    """The state of a release with these dates at `now`: `releases.rules.release_state`, for dates not yet saved."""
    dates = SimpleNamespace(
        cycle_start=cycle_start,
        release_date=release_date,
        first_milestone=first_milestone,
        last_milestone=last_milestone,
    )
    return release_state(dates, now=now)


@transaction.atomic
def release_schedule_import(*, schedule: Schedule, now: datetime.datetime) -> ScheduleOutcome:
    """Create or update `schedule`'s Release and Milestones; return what changed.

    The release's name is only replaced by a non-empty one, so a curated name survives a schedule
    without one. The state is recomputed from the dates at `now` (see `release_state_at`).
    """
    release = Release.objects.select_for_update().filter(version=schedule.version).first()
    # Only what the schedule states is written: a date or name it leaves out keeps its curated value.
    given = {
        "name": schedule.name,
        "cycle_start": schedule.cycle_start,
        "planned_release_date": schedule.planned_release_date,
        "source_url": schedule.source_url,
    }
    wanted = {name: value for name, value in given.items() if value}
    instants = [milestone.at for milestone in schedule.milestones]
    wanted["state"] = release_state_at(
        cycle_start=wanted.get("cycle_start", release.cycle_start if release else None),
        release_date=(release.actual_release_date if release else None)
        or wanted.get("planned_release_date", release.planned_release_date if release else None),
        first_milestone=min(instants, default=None),
        last_milestone=max(instants, default=None),
        now=now,
    )
    release, outcome = _release_write(release, schedule.version, wanted)
    written = _milestones_write(release, schedule, outcome)
    # The funnel of a release's stats is cut at its freeze instants: recompute when they move.
    if written and release.tracked_enhancements.exists():
        release_stats_request(release_ids=[release.pk])
    return outcome


def _release_write(release: Release | None, version: str, wanted: dict) -> tuple[Release, ScheduleOutcome]:
    """Create the release with `wanted`, or set on it those of `wanted` that differ."""
    if release is None:
        release = Release.objects.create(version=version, **wanted)
        return release, ScheduleOutcome(release=release, created=1, changes=[f"release {release.version} created"])
    outcome = ScheduleOutcome(release=release)
    changed = [name for name, value in wanted.items() if getattr(release, name) != value]
    if changed:
        for name in changed:
            setattr(release, name, wanted[name])
        release.save(update_fields=changed)
        outcome.updated += 1
        outcome.changes.append(f"release {release.version}: {', '.join(changed)} updated")
    else:
        outcome.unchanged += 1
    return release, outcome


def _milestones_write(release: Release, schedule: Schedule, outcome: ScheduleOutcome) -> bool:
    """Make the release's schedule milestones (no SIG) those of `schedule`; returns whether any row was written."""
    rows = list(release.milestones.filter(sig__isnull=True).order_by("pk"))
    existing: dict[tuple[str, str], Milestone] = {}
    for milestone in rows:
        existing.setdefault(milestone_key(milestone.kind, milestone.label), milestone)
    keyed = {item.key for item in schedule.milestones}
    # Rows this import wrote before under another identity: an earlier parser read the same README line as another
    # kind (a PRR freeze as "other") or label. They are that milestone, corrected in place (same row, so its page
    # anchor, reminders and calendar UID follow), not left beside a new row as a second copy of it.
    earlier = [row for row in rows if row.source_text and milestone_key(row.kind, row.label) not in keyed]
    to_create, to_update, fields_changed = [], [], set()
    for item in schedule.milestones:
        values = {name: getattr(item, name) for name in MILESTONE_FIELDS}
        current = existing.get(item.key)
        if current is None:
            current = _imported_before(item, earlier)
            if current is None:
                to_create.append(Milestone(release=release, kind=item.kind, **values))
                continue
            earlier.remove(current)
            values["kind"] = item.kind
        changed = [name for name, value in values.items() if getattr(current, name) != value]
        if not changed:
            outcome.unchanged += 1
            continue
        for name in changed:
            setattr(current, name, values[name])
        fields_changed.update(changed)
        to_update.append(current)
        outcome.changes.append(f"{release.version} {item.label}: {', '.join(changed)} updated")
    if to_create:
        Milestone.objects.bulk_create(to_create)
        outcome.created += len(to_create)
    if to_update:
        Milestone.objects.bulk_update(to_update, sorted(fields_changed))
        outcome.updated += len(to_update)
    return bool(to_create or to_update)


def _imported_before(item, rows: list[Milestone]) -> Milestone | None:
    """The row among `rows` (imported from this README before, under another kind or label) that is `item`: the same
    schedule line with the same label, else the same line at the same instant."""
    same_line = [row for row in rows if row.source_text == item.source_text]
    return next((row for row in same_line if row.label == item.label), None) or next(
        (row for row in same_line if row.at == item.at), None
    )


def _release_order(path: Path):
    match = _RELEASE_FOLDER.match(path.parent.name)
    return (0, int(match.group(1)), int(match.group(2)), str(path)) if match else (1, 0, 0, str(path))


def release_schedule_files_find(*, paths: Sequence[str | Path]) -> list[Path]:
    """The READMEs to read: each path is a README, or a folder whose release-1.NN/README.md files are taken in
    version order (or, failing those, its own README.md). The same README named twice is read once.

    Raises ImportUsageError for a path that does not exist or a folder with no release README.
    """
    return list(_schedule_files(paths=paths))


def _schedule_files(*, paths: Sequence[str | Path]) -> dict[Path, Path | None]:
    """Each README to read with the folder it was found in (None for a file named on its own): no README found
    in a folder is read through a symbolic link out of it."""
    files: dict[Path, Path | None] = {}
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise ImportUsageError(f"{raw}: no such file or folder")
        if not path.is_dir():
            # A file, or something that is not one (a FIFO, a device): read_text reads or refuses it by name.
            files[path] = None
            continue
        found = sorted(
            (readme for readme in path.rglob("README.md") if _RELEASE_FOLDER.match(readme.parent.name)),
            key=_release_order,
        )
        if not found and (path / "README.md").is_file():
            found = [path / "README.md"]
        if not found:
            raise ImportUsageError(f"{raw}: no release-1.NN/README.md in this folder")
        for readme in found:
            files.setdefault(readme, path)
    # The same README named twice (as a file and through its folder) is read once.
    unique: dict[Path, Path] = {}
    for path in files:
        unique.setdefault(path.resolve(), path)
    return {path: files[path] for path in unique.values()}


def release_schedules_import(
    *,
    paths: Sequence[str | Path],
    dry_run: bool,
    progress: Progress = no_progress,
    now: datetime.datetime | None = None,
) -> ImportReport:
    """Import release schedules (README files or folders of them, see `release_schedule_files_find`).

    Each README is parsed and written in its own transaction under `import_lock("import_schedule")`: one that
    cannot be read or parsed is skipped with one line naming it, the others import. Agenda items that named a
    release before it existed are pointed at it. What changed is noted (shown in a dry run, or with -v 2);
    a dry run writes nothing. Release states are computed at `now` (default: the time each file is written).
    """
    roots = _schedule_files(paths=paths)
    files = list(roots)

    def import_file(path: Path, report: ImportReport) -> None:
        schedule = parse_schedule(read_text(path, root=roots[path]), version_hint=version_from_path(path))
        if not schedule.milestones:
            # A README that states no date (a proposal, a stub) is one line of the report, not a failure.
            for warning in schedule.warnings:
                report.warn(f"{path}: {warning.message}")
            return
        outcome = release_schedule_import(schedule=schedule, now=now or timezone.now())
        if outcome.created:
            # Meeting agenda items may name this release from before it existed.
            releases_created.send(sender=Release, versions=[outcome.release.version])
        # The stored states by the one rule across releases (a dateless minor older than this one has shipped), so
        # a state stored wrong by an earlier import is corrected by this one, not only this release's.
        for change in release_states_refresh(now=now or timezone.now()):
            report.note(("would be: " if dry_run else "") + f"release {change}", verbosity=1 if dry_run else 2)
        report.count("created", outcome.created)
        report.count("updated", outcome.updated)
        report.count("unchanged", outcome.unchanged)
        for warning in schedule.warnings:
            where = f"{path}:{warning.line}" if warning.line else str(path)
            report.warn(f"{where}: {warning.message}")
        for change in outcome.changes:
            report.note(("would be: " if dry_run else "") + change, verbosity=1 if dry_run else 2)

    return import_file_by_file(
        files=files,
        import_file=import_file,
        lock_name=SCHEDULE_IMPORT_LOCK,
        dry_run=dry_run,
        report=ImportReport(),
        progress=progress,
    )
