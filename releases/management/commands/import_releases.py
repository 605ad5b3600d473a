"""``manage.py import_releases PATH...``: every file of kubernetes/sig-release release directories."""

from core.importing import ImportCommand, ImportReport
from releases.services.release_dirs import release_directories_import


class Command(ImportCommand):
    """Calls `releases.services.release_dirs.release_directories_import`: each file in its own transaction."""

    help = (
        "Import kubernetes/sig-release release directories: each PATH is a release-1.NN folder or a folder holding "
        "them (sig-release's releases/). Reads README.md (schedule), features.csv (early feature sheets), "
        "release-team.md / release_team.md (the team) and exceptions.yaml (exception requests)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "paths", nargs="+", metavar="PATH", help="A release-1.NN folder, or a folder containing release-1.NN/."
        )
        super().add_arguments(parser)

    def run_import(self, options, *, dry_run: bool) -> ImportReport:
        return release_directories_import(paths=options["paths"], dry_run=dry_run, progress=self.progress)
