"""`manage.py import_sigs PATH`: SIGs, working groups, committees and user groups from community's sigs.yaml."""

from pathlib import Path

from django.core.management.base import CommandError

from core.importing import BaseImportCommand, ImportReport, read_text
from keps.importers.sigs_yaml import parse_sigs
from keps.services_sigs import sigs_import


class Command(BaseImportCommand):
    """One file, one transaction. Outcomes are counted per group (a SIG, WG, committee or user group); a group the
    parser cannot import is skipped with one line naming its place, and the others are imported."""

    help = (
        "Import SIGs, working groups and committees (name, label, mission, mailing list, Slack, chairs and tech "
        "leads, meetings) from kubernetes/community's sigs.yaml. PATH is the file or a community checkout."
    )
    lock_name = "import_sigs"
    unit = "file"

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="sigs.yaml, or a kubernetes/community checkout holding it.")
        super().add_arguments(parser)

    def collect_files(self, options) -> list[Path]:
        path: Path = options["path"]
        if path.is_dir():
            path = path / "sigs.yaml"
            if not path.is_file():
                raise CommandError(f"{options['path']}: no sigs.yaml in this folder", returncode=2)
        elif not path.exists():
            raise CommandError(f"{path}: no such file or folder", returncode=2)
        return [path]

    def import_file(self, path: Path, report: ImportReport, options) -> None:
        parsed = parse_sigs(read_text(path), source=str(path))
        for failure in parsed.skipped:
            report.skip(failure)
        report.warnings.extend(parsed.warnings)
        result = sigs_import(groups=parsed.groups)
        for outcome in ("created", "updated", "unchanged"):
            report.count(outcome, result.count(outcome))
        if self.verbosity >= 2:
            self.stdout.write(f"{len(parsed.groups)} groups, {result.people_created} people created")
