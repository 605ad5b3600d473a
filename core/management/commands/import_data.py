from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from core.backup import DataImportError, database_import


class Command(BaseCommand):
    help = "Load a file made by export_data into an empty (freshly migrated) database, all or nothing."

    def add_arguments(self, parser):
        parser.add_argument("file", help="A file written by export_data.")

    def handle(self, *args, file, **options):
        try:
            count = database_import(path=Path(file))
        except DataImportError as exc:
            raise CommandError(str(exc), returncode=1) from exc
        if options["verbosity"] >= 1:
            self.stdout.write(f"Imported {count} rows from {file}.")
