"""`manage.py import_meeting_notes FILE... [--sig sig-node] [--dry-run]`: load SIG meeting-note archives."""

import re
from pathlib import Path

from django.core.management.base import CommandError

from core.importing import BaseImportCommand, ImportReport, read_text
from meetings.importers.notes import parse_meeting_notes
from meetings.services import meeting_notes_import

_SIG_SLUG = re.compile(r"^(?:sig|wg|committee|ug)-[a-z0-9-]+$")


def sig_from_path(path: Path) -> str | None:
    """The SIG a kubernetes/community path belongs to (`sig-node/archive/meeting-notes-2022.md` -> sig-node)."""
    for part in reversed(path.resolve().parts[:-1]):
        if _SIG_SLUG.match(part):
            return part
    return None


class Command(BaseImportCommand):
    help = (
        "Import SIG meeting-note archives (kubernetes/community sig-*/archive/meeting-notes-YYYY.md): one meeting "
        "per dated heading with its PR-flow figures and agenda items, and release retros (tallies, items, KEP "
        "tables). Re-running updates in place. Exit status 0: all imported; 1: some files skipped; 2: usage error."
    )
    lock_name = "import_meeting_notes"

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "files",
            nargs="+",
            metavar="FILE",
            help="A yearly notes archive, or a folder: its *notes*.md files are read in name order.",
        )
        parser.add_argument(
            "--sig",
            help=(
                "Slug of the SIG the notes belong to (created if missing). Default: the sig-*/wg-* folder the "
                "file sits in, as in kubernetes/community; required when the path names none."
            ),
        )

    def collect_files(self, options) -> list[Path]:
        files: list[Path] = []
        for name in options["files"]:
            path = Path(name)
            if path.is_dir():
                files += sorted(p for p in path.glob("*notes*.md") if p.is_file())
            elif path.exists():
                files.append(path)
            else:
                raise CommandError(f"{name}: no such file or folder", returncode=2)
        sig = options.get("sig")
        if sig is not None and not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,63}", sig):
            raise CommandError(f"--sig {sig!r}: not a SIG slug like sig-node", returncode=2)
        if sig is None:
            inferred = {sig_from_path(p) for p in files}
            if None in inferred or len(inferred) != 1:
                raise CommandError("--sig is required: the file paths do not name one sig-* folder", returncode=2)
            options["sig"] = inferred.pop()
        return files

    def import_file(self, path: Path, report: ImportReport, options) -> None:
        notes = parse_meeting_notes(read_text(path), source=path.name)
        result = meeting_notes_import(notes=notes, sig=options["sig"])
        report.count("created", result.created)
        report.count("updated", result.updated)
        report.count("unchanged", result.unchanged)
        for warning in [*notes.warnings, *result.warnings]:
            report.warn(warning)
