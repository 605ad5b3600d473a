"""``manage.py import_schedule PATH...``: releases and milestones from kubernetes/sig-release schedules."""

import re
from pathlib import Path

from django.core.management.base import CommandError
from django.utils import timezone

from core.importing import BaseImportCommand, ImportReport, read_text
from meetings.services import agenda_items_link_releases
from releases.importers.schedule import parse_schedule, version_from_path
from releases.services.schedule import release_schedule_import

_RELEASE_FOLDER = re.compile(r"^release-v?(\d+)\.(\d+)$")


def _release_order(path: Path):
    match = _RELEASE_FOLDER.match(path.parent.name)
    return (0, int(match.group(1)), int(match.group(2)), str(path)) if match else (1, 0, 0, str(path))


class Command(BaseImportCommand):
    help = (
        "Import release schedules (releases/release-1.NN/README.md of kubernetes/sig-release): each PATH is a "
        "README or a folder holding release-1.NN folders. Creates or updates the Release and its Milestones."
    )
    lock_name = "import_schedule"
    unit = "file"

    def add_arguments(self, parser):
        parser.add_argument(
            "paths", nargs="+", metavar="PATH", help="A release README, or a folder containing release-1.NN/ folders."
        )
        super().add_arguments(parser)

    def collect_files(self, options) -> list[Path]:
        files: dict[Path, None] = {}
        for raw in options["paths"]:
            path = Path(raw)
            if not path.exists():
                raise CommandError(f"{raw}: no such file or folder", returncode=2)
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
                raise CommandError(f"{raw}: no release-1.NN/README.md in this folder", returncode=2)
            files.update(dict.fromkeys(found))
        # The same README named twice (as a file and through its folder) is read once.
        unique: dict[Path, Path] = {}
        for path in files:
            unique.setdefault(path.resolve(), path)
        return list(unique.values())

    def import_file(self, path: Path, report: ImportReport, options) -> None:
        schedule = parse_schedule(read_text(path), version_hint=version_from_path(path))
        outcome = release_schedule_import(schedule=schedule, now=timezone.now())
        if outcome.created:
            # Meeting agenda items may name this release from before it existed.
            agenda_items_link_releases(versions=[outcome.release.version])
        report.count("created", outcome.created)
        report.count("updated", outcome.updated)
        report.count("unchanged", outcome.unchanged)
        for warning in schedule.warnings:
            where = f"{path}:{warning.line}" if warning.line else str(path)
            report.warn(f"{where}: {warning.message}")
        if options["dry_run"] and self.verbosity >= 1 or self.verbosity >= 2:
            for change in outcome.changes:
                self.stdout.write(("would be: " if options["dry_run"] else "") + change)
