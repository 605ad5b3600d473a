"""``manage.py import_schedule PATH...``: releases and milestones from kubernetes/sig-release schedules."""

from core.importing import ImportCommand, ImportReport
from releases.services.schedule import release_schedules_import


class Command(ImportCommand):
    """Calls `releases.services.schedule.release_schedules_import`: each README in its own transaction."""

    help = (
        "Import release schedules (releases/release-1.NN/README.md of kubernetes/sig-release): each PATH is a "
        "README or a folder holding release-1.NN folders. Creates or updates the Release and its Milestones."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "paths", nargs="+", metavar="PATH", help="A release README, or a folder containing release-1.NN/ folders."
        )
        super().add_arguments(parser)

    def run_import(self, options, *, dry_run: bool) -> ImportReport:
        return release_schedules_import(paths=options["paths"], dry_run=dry_run, progress=self.progress)
