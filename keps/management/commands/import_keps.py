"""`manage.py import_keps PATH`: KEPs and PRR approvals from a kubernetes/enhancements checkout."""

from pathlib import Path

from core.importing import ImportCommand, ImportReport
from keps.services import kep_tree_import


class Command(ImportCommand):
    """Calls `keps.services.kep_tree_import`, which finds the files, applies the duplicate-number rule, writes
    in one locked transaction and links agenda items to the KEPs it created."""

    help = "Import KEPs (kep.yaml) and PRR approvals from a kubernetes/enhancements checkout or its keps folder."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("path", type=Path, help="A kubernetes/enhancements checkout, or its keps/ folder.")

    def run_import(self, options, *, dry_run: bool) -> ImportReport:
        return kep_tree_import(root=options["path"], dry_run=dry_run, progress=self.progress)
