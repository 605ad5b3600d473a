"""`manage.py import_keps PATH`: KEPs and PRR approvals from a kubernetes/enhancements checkout.

`manage.py import_keps --history PATH`: each KEP's plan history from the clone's git log instead."""

from pathlib import Path

from core.importing import ImportCommand, ImportReport
from keps.services import kep_tree_import
from keps.services_history import kep_history_import


class Command(ImportCommand):
    """Calls `keps.services.kep_tree_import`, which finds the files, applies the duplicate-number rule, writes
    in one locked transaction and links agenda items to the KEPs it created; with `--history`,
    `keps.services_history.kep_history_import`, which replays master's first-parent history of every kep.yaml."""

    help = "Import KEPs (kep.yaml) and PRR approvals from a kubernetes/enhancements checkout or its keps folder."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("path", type=Path, help="A kubernetes/enhancements checkout, or its keps/ folder.")
        parser.add_argument(
            "--history",
            action="store_true",
            help="PATH is a git clone of kubernetes/enhancements (bare or not): record each KEP's planned-release "
            "history from master's git log; a re-run reads only the commits since the last one.",
        )

    def run_import(self, options, *, dry_run: bool) -> ImportReport:
        if options["history"]:
            self.unit = "blob"
            return kep_history_import(root=options["path"], dry_run=dry_run, progress=self.progress)
        return kep_tree_import(root=options["path"], dry_run=dry_run, progress=self.progress)
