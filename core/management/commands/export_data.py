from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.backup import database_export


class Command(BaseCommand):
    help = "Export the whole database (SIGs, people, KEPs, releases, meetings, users, admin history) to a JSON file."

    def add_arguments(self, parser):
        parser.add_argument("file", help="Where to write the export; '-' for standard output.")

    def handle(self, *args, file, **options):
        if file == "-":
            count = database_export(stream=self.stdout._out)
        else:
            path = Path(file)
            try:
                with path.open("w", encoding="utf-8") as stream:
                    count = database_export(stream=stream)
            except OSError as exc:
                raise CommandError(f"{path}: cannot write ({exc.strerror or exc})", returncode=2) from exc
        if options["verbosity"] >= 1 and file != "-":
            self.stdout.write(f"Exported {count} rows to {file}.")
