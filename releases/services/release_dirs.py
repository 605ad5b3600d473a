"""`manage.py import_releases`: every file of kubernetes/sig-release release directories, release by release.

A release directory (`releases/release-1.NN/`) holds the schedule (`README.md`), the exception requests
(`exceptions.yaml`, 1.10-), the early features tracking sheet (`features.csv`, 1.3-1.12) and the team roster
(`release-team.md`, `release_team.md` before 1.20). Each file is read and written in its own transaction
(`import_file_by_file`, under the schedule import's lock, since all of them write the same releases): one that
cannot be read is skipped with one line naming it, the others import. The README comes first, so the other
files find their release; a directory whose README is missing or skipped still gets its release, from the
folder's name. Entries of a file that cannot be read (an exceptions.yaml entry that is not YAML) are reported
with their line, as skips of the file's line, and the rest of the file imports.

`only` narrows a folder to some of its files (an upstream refresh, which knows which files changed): the exception
file and the roster are read alone, since no other file reads their rows; a change to the README (the schedule the
exception requests are dated against) or to features.csv (the tracked rows the requests link to) reads the whole
directory, as the files after them depend on them.
"""

import datetime
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from django.utils import timezone

from core.importing import (
    ImportFailure,
    ImportReport,
    ImportUsageError,
    Progress,
    import_file_by_file,
    no_progress,
    read_text,
)
from releases.importers.exceptions_yaml import parse_exceptions
from releases.importers.features_csv import parse_features
from releases.importers.roster import Roster, RosterMoved, parse_roster
from releases.importers.schedule import parse_schedule, version_from_path
from releases.models import Release
from releases.services.release_feature_sheet import release_feature_sheet_import
from releases.services.release_files import FileOutcome, release_exceptions_import, release_team_import
from releases.services.release_state import release_states_refresh
from releases.services.schedule import SCHEDULE_IMPORT_LOCK, release_schedule_import
from releases.signals import releases_created

_RELEASE_FOLDER = re.compile(r"^release-v?(\d+)\.(\d+)$")
#: The files of a release directory, in the order they are read; of each group's names, the first found is read
#: (each file owns its rows of the release, so two spellings of one file must not both be read). The roster was
#: `release_team.md` before 1.20; the exception file of 1.14 is `exception.yaml`.
RELEASE_FILES = (
    ("README.md",),
    ("features.csv",),
    ("release-team.md", "release_team.md"),
    ("exceptions.yaml", "exception.yaml"),
)
_EXCEPTION_FILES = RELEASE_FILES[-1]


#: Files whose rows no other file of the directory reads: a change to one of them alone re-reads only it.
_STANDALONE = frozenset(
    name for names in RELEASE_FILES if {"exceptions.yaml", "release-team.md"} & set(names) for name in names
)


def release_files_read_alone(names: Collection[str]) -> frozenset[str] | None:
    """The file names of a release directory to read when `names` changed: every one of their groups' spellings
    when each is read alone (`_STANDALONE`), else None (the whole directory)."""
    if not names or not set(names) <= _STANDALONE:
        return None
    return frozenset(name for group in RELEASE_FILES if set(group) & set(names) for name in group)


def release_directories_find(*, paths: Sequence[str | Path]) -> list[Path]:
    """The files to read, release by release in version order: each path is a release-1.NN folder or a folder
    holding them (sig-release's `releases/`). Raises ImportUsageError for a path that does not exist or holds no
    release folder."""
    return list(_release_files(paths=paths))


def _release_files(
    *, paths: Sequence[str | Path], only: Mapping[Path, Collection[str]] | None = None
) -> dict[Path, Path]:
    """Each file to read (in order) with the folder it was found in, the one given: no file is read through a
    symbolic link out of it (`read_text(root=...)`). A release folder given in `only` is read for the groups
    of the names it lists (of each group, still the first name found)."""
    only = {Path(folder).resolve(): set(names) for folder, names in (only or {}).items()}
    folders: dict[Path, tuple[Path, Path]] = {}  # real folder -> (folder as found, the folder given)
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise ImportUsageError(f"{raw}: no such file or folder")
        if not path.is_dir():
            raise ImportUsageError(f"{raw}: not a folder (give a release-1.NN folder, or the folder holding them)")
        if _RELEASE_FOLDER.match(path.name):
            folders.setdefault(path.resolve(), (path, path))
            continue
        found = [child for child in path.iterdir() if child.is_dir() and _RELEASE_FOLDER.match(child.name)]
        if not found:
            raise ImportUsageError(f"{raw}: no release-1.NN folder in this folder")
        for child in found:
            folders.setdefault(child.resolve(), (child, path))

    def order(item: tuple[Path, Path]):
        match = _RELEASE_FOLDER.match(item[0].name)
        return int(match.group(1)), int(match.group(2))

    found: dict[Path, Path] = {}
    for folder, root in sorted(folders.values(), key=order):
        wanted = only.get(folder.resolve())
        for names in RELEASE_FILES:
            if wanted is not None and not wanted & set(names):
                continue
            for name in names:
                if (folder / name).is_file():
                    found[folder / name] = root
                    break
    return found


_ROSTER_NAMES = next(names for names in RELEASE_FILES if "release-team.md" in names)


def _roster(path: Path, text: str, *, root: Path, report: ImportReport) -> Roster:
    """The roster `path` holds, or, when it is only "MOVED to …/release_team.md" (1.20), the one it names: read
    from the same folder (never elsewhere: the pointer is a URL), falling back to the folder's other roster."""
    try:
        return parse_roster(text)
    except RosterMoved as moved:
        named = path.parent / moved.target
        candidates = [named] if moved.target in _ROSTER_NAMES and named != path else []
        candidates += [path.parent / name for name in _ROSTER_NAMES if path.parent / name not in (path, named)]
        for candidate in candidates:
            if candidate.is_file():
                report.note(f"{path}: moved to {moved.target}; {candidate.name} read instead", verbosity=2)
                try:
                    return parse_roster(read_text(candidate, root=root))
                except RosterMoved as again:
                    reason = f"moved to {moved.target}, which says it moved too"
                    raise ImportFailure(reason, source=str(candidate)) from again
        reason = f"the roster moved to {moved.target}, which is not in this folder"
        raise ImportFailure(reason, line=moved.line) from None


def _release(path: Path) -> tuple[Release, bool]:
    """The release of the folder `path` is in, and whether it was created now."""
    match = _RELEASE_FOLDER.match(path.parent.name)
    if not match:
        raise ImportFailure("not in a release-1.NN folder: which release it belongs to is unknown")
    return Release.objects.get_or_create(version=f"{int(match.group(1))}.{int(match.group(2))}")


def _count(report: ImportReport, outcome: FileOutcome, path: Path, *, dry_run: bool) -> None:
    report.count("created", outcome.created)
    report.count("updated", outcome.updated)
    report.count("unchanged", outcome.unchanged)
    for line, message in outcome.warnings:
        report.warn(f"{path}:{line}: {message}")
    for change in outcome.changes:
        report.note(("would be: " if dry_run else "") + change, verbosity=1 if dry_run else 2)


def release_directories_import(
    *,
    paths: Sequence[str | Path],
    dry_run: bool,
    progress: Progress = no_progress,
    now: datetime.datetime | None = None,
    only: Mapping[Path, Collection[str]] | None = None,
) -> ImportReport:
    """Import every file of the release directories under `paths` (see the module docstring), or of a folder in
    `only`, the files of the groups it names."""
    roots = _release_files(paths=paths, only=only)
    files = list(roots)
    report = ImportReport()

    def import_file(path: Path, report: ImportReport) -> None:
        text = read_text(path, root=roots[path])
        if path.name == "README.md":
            schedule = parse_schedule(text, version_hint=version_from_path(path))
            outcome = release_schedule_import(schedule=schedule, now=now or timezone.now())
            if outcome.created:
                releases_created.send(sender=Release, versions=[outcome.release.version])
            warnings = [(w.line, w.message) for w in schedule.warnings]
            counted = FileOutcome(outcome.created, outcome.updated, outcome.unchanged, outcome.changes, warnings)
            _count(report, counted, path, dry_run=dry_run)
            release_states_refresh(now=now or timezone.now())
            return
        release, created = _release(path)
        if path.name in _EXCEPTION_FILES:
            parsed = parse_exceptions(text)
            outcome = release_exceptions_import(release=release, parsed=parsed)
            for problem in parsed.problems:
                report.skip(ImportFailure(problem.message, source=str(path), line=problem.line))
            outcome.warnings[:0] = [(w.line, w.message) for w in parsed.warnings]
        elif path.name == "features.csv":
            sheet = parse_features(text)
            outcome = release_feature_sheet_import(release=release, sheet=sheet)
            outcome.warnings[:0] = sheet.warnings
        else:
            roster = _roster(path, text, root=roots[path], report=report)
            outcome = release_team_import(release=release, roster=roster)
            outcome.warnings[:0] = roster.warnings
        _count(report, outcome, path, dry_run=dry_run)
        # A release known only from its files takes its state from the days its exception requests were made and
        # decided, and from the releases around it (a minor older than a released one has shipped): settled when
        # the file brought the release or may have moved those days. A roster or features sheet of a release
        # already known moves no date, so no state (time passing is beat's hourly refresh).
        if created or path.name in _EXCEPTION_FILES:
            release_states_refresh(now=now or timezone.now())

    return import_file_by_file(
        files=files,
        import_file=import_file,
        lock_name=SCHEDULE_IMPORT_LOCK,
        dry_run=dry_run,
        report=report,
        progress=progress,
    )
