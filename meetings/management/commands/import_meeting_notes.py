"""`manage.py import_meeting_notes FILE... [--sig sig-node] [--dry-run]`: load SIG meeting-note archives."""

from core.importing import ImportCommand, ImportReport
from meetings.services import meeting_notes_import_files


class Command(ImportCommand):
    """Calls `meetings.services.meeting_notes_import_files`: each file in its own transaction."""

    help = (
        "Import SIG meeting-note archives (kubernetes/community sig-*/archive/meeting-notes-YYYY.md): one meeting "
        "per dated heading with its PR-flow figures and agenda items, and release retros (tallies, items, KEP "
        "tables). Re-running updates in place. Exit status 0: all imported; 1: some files skipped; 2: usage error."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "files",
            nargs="+",
            metavar="FILE",
            help=(
                "A yearly notes archive, or a folder: its *meeting-notes*.md files (the SIG's own meetings) are "
                "read in name order."
            ),
        )
        parser.add_argument(
            "--subgroups",
            action="store_true",
            help="In a folder, also read sub-group notes (e.g. ci-subgroup-notes-2023.md), as the same SIG's meetings.",
        )
        parser.add_argument(
            "--sig",
            help=(
                "Slug of the SIG the notes belong to (created if missing). Default: the sig-*/wg-* folder the "
                "file sits in, as in kubernetes/community; required when the path names none."
            ),
        )

    def run_import(self, options, *, dry_run: bool) -> ImportReport:
        return meeting_notes_import_files(
            paths=options["files"],
            sig=options.get("sig"),
            dry_run=dry_run,
            progress=self.progress,
            subgroups=options.get("subgroups", False),
        )
