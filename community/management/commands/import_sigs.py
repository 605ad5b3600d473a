"""`manage.py import_sigs PATH`: SIGs, working groups, committees and user groups from community's sigs.yaml."""

from pathlib import Path

from community.services import sigs_yaml_import
from core.importing import ImportCommand, ImportReport


class Command(ImportCommand):
    """Calls `community.services.sigs_yaml_import`: one file, one transaction; a group the parser cannot import is
    skipped with one line naming its place, and the others are imported."""

    help = (
        "Import SIGs, working groups and committees (name, label, mission, mailing list, Slack, chairs and tech "
        "leads, meetings) from kubernetes/community's sigs.yaml. PATH is the file or a community checkout."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="sigs.yaml, or a kubernetes/community checkout holding it.")
        super().add_arguments(parser)

    def run_import(self, options, *, dry_run: bool) -> ImportReport:
        return sigs_yaml_import(path=options["path"], dry_run=dry_run, progress=self.progress)
