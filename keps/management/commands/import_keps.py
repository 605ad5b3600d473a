"""`manage.py import_keps PATH`: KEPs and PRR approvals from a kubernetes/enhancements checkout."""

from pathlib import Path

from django.core.management.base import CommandError

from keps.importers.kep_yaml import KepRecord, PrrRecord, parse_kep, parse_prr
from keps.services import kep_import
from meetings.services import agenda_items_link_keps
from sigtracker.importing import BatchImportCommand, ImportFailure, ImportReport, read_text


class Command(BatchImportCommand):
    """Reads every `keps/**/kep.yaml` (not the template `keps/NNNN-kep-template`) and
    `keps/prod-readiness/**/<number>.yaml`.

    Built on the batch shell: all files are parsed first (a file that fails is skipped alone, with one line
    naming it, and contributes nothing), then the valid ones are written together in one transaction under
    `import_lock("import_keps")`. One transaction rather than one per file because PRR files and duplicate
    KEP numbers refer across files, and because bulk writes keep a full-tree import within seconds; a file
    that fails still never writes anything and the others still import.
    """

    help = "Import KEPs (kep.yaml) and PRR approvals from a kubernetes/enhancements checkout or its keps folder."
    lock_name = "import_keps"

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("path", type=Path, help="A kubernetes/enhancements checkout, or its keps/ folder.")

    def collect_files(self, options) -> list[Path]:
        path: Path = options["path"]
        if not path.is_dir():
            raise CommandError(f"{path}: not a folder", returncode=2)
        keps_dir = path / "keps" if (path / "keps").is_dir() else path
        # Stored source paths are relative to the checkout ("keps/sig-node/2727-grpc-probe/kep.yaml"), so the
        # same tree imported from another place is recognised as unchanged.
        self.base_dir = keps_dir.parent
        prr_dir = keps_dir / "prod-readiness"
        # The template (keps/NNNN-kep-template/kep.yaml) is not a KEP. An unnumbered draft inside a SIG folder
        # (keps/sig-storage/NNNN-stateful-set-update-claim-template) is read, and skipped with its reason.
        kep_files = sorted(
            p
            for p in keps_dir.rglob("kep.yaml")
            if p.relative_to(keps_dir).parts[0] != "prod-readiness"
            and not (p.parent.parent == keps_dir and p.parent.name.upper().startswith("NNNN"))
        )
        self.prr_files = set(sorted(prr_dir.rglob("*.yaml"))) if prr_dir.is_dir() else set()
        if not kep_files and not self.prr_files:
            raise CommandError(f"{path}: no keps/<sig>/<NNNN-name>/kep.yaml or prod-readiness files", returncode=2)
        return kep_files + sorted(self.prr_files)

    def parse_file(self, path: Path, report: ImportReport, options):
        relative = path.relative_to(self.base_dir).as_posix()
        try:
            text = read_text(path)
        except ImportFailure as failure:
            failure.source = relative  # every message names files the same way, relative to the checkout
            raise
        if path in self.prr_files:
            number = int(path.stem) if path.stem.isascii() and path.stem.isdigit() else None
            record = parse_prr(text, source=relative, file_number=number)
        else:
            record = parse_kep(text, source=relative, directory=path.parent.name)
        report.warnings.extend(record.warnings)
        return record

    def write_records(self, records: list, report: ImportReport, options) -> None:
        kep_records = [r for r in records if isinstance(r, KepRecord)]
        prr_records = [r for r in records if isinstance(r, PrrRecord)]
        result = kep_import(records=kep_records, prr_records=prr_records)
        # Agenda items imported earlier may mention KEPs that exist only now: link them (same transaction).
        created = [r.number for r in kep_records if result.outcomes.get(r.source_path) == "created"]
        if created:
            agenda_items_link_keps(kep_numbers=created)
        for outcome in ("created", "updated", "unchanged"):
            report.count(outcome, result.count(outcome))
        report.warnings.extend(result.warnings)
        if self.verbosity >= 2:
            self.stdout.write(
                f"{result.sigs_created} SIGs and {result.people_created} people created, "
                f"{result.people_updated} people completed, {result.rows_written} rows written"
            )
