"""`manage.py import_keps PATH`: KEPs and PRR approvals from a kubernetes/enhancements checkout."""

import os
from collections import Counter
from pathlib import Path

from django.core.management.base import CommandError

from core.importing import BatchImportCommand, ImportFailure, ImportReport, read_text
from keps.importers.kep_yaml import KepRecord, PrrRecord, directory_number, parse_kep, parse_prr
from keps.services import kep_import_session
from meetings.services import agenda_items_link_keps


class Command(BatchImportCommand):
    """Reads every `keps/**/kep.yaml` (not the template `keps/NNNN-kep-template`) and
    `keps/prod-readiness/**/<number>.yaml`.

    Built on the batch shell: the valid files are written together in one transaction under
    `import_lock("import_keps")`, each chunk of kep.yaml files while the next is parsed; a file that fails to
    parse is skipped alone, with one line naming it, and contributes nothing. One transaction rather than one
    per file because PRR files and duplicate KEP numbers refer across files, and because bulk writes keep a
    full-tree import within a second; a file that fails still never writes anything and the others still
    import. kep.yaml files come first, so the PRR files' KEPs are known when they are written.
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
        keps_dir = (path / "keps" if (path / "keps").is_dir() else path).absolute()
        # Stored source paths are relative to the checkout ("keps/sig-node/2727-grpc-probe/kep.yaml"), so the
        # same tree imported from another place is recognised as unchanged.
        self.base_prefix = os.path.join(keps_dir.parent, "")
        # The template (keps/NNNN-kep-template/kep.yaml) is not a KEP. An unnumbered draft inside a SIG folder
        # (keps/sig-storage/NNNN-stateful-set-update-claim-template) is read, and skipped with its reason.
        top, prr_dir = str(keps_dir), os.path.join(keps_dir, "prod-readiness")
        kep_files, prr_files = [], []
        for folder, _, names in os.walk(keps_dir):
            if folder == prr_dir or folder.startswith(prr_dir + os.sep):
                prr_files += [os.path.join(folder, name) for name in names if name.endswith(".yaml")]
            elif "kep.yaml" in names:
                template = os.path.dirname(folder) == top and os.path.basename(folder).upper().startswith("NNNN")
                if not template:
                    kep_files.append(os.path.join(folder, "kep.yaml"))
        # In path order (by folder names, as pathlib sorts), whatever characters the names hold.
        kep_files.sort(key=lambda file: file.split(os.sep))
        # Numbers that two directories carry (a KEP moved between SIGs, leaving a `replaced` copy) are settled by
        # the duplicate rule once every file is read; the others are written as soon as they are parsed.
        claims = Counter(directory_number(os.path.basename(os.path.dirname(file))) for file in kep_files)
        self.contested_numbers = {number for number, count in claims.items() if number is not None and count > 1}
        prr_files.sort(key=lambda file: file.split(os.sep))
        self.prr_files = set(prr_files)
        if not kep_files and not prr_files:
            raise CommandError(f"{path}: no keps/<sig>/<NNNN-name>/kep.yaml or prod-readiness files", returncode=2)
        return [Path(file) for file in kep_files + prr_files]

    def parse_file(self, path: Path, report: ImportReport, options):
        file = str(path)
        relative = file.removeprefix(self.base_prefix).replace(os.sep, "/")
        try:
            text = read_text(path)
        except ImportFailure as failure:
            failure.source = relative  # every message names files the same way, relative to the checkout
            raise
        folder, name = os.path.split(file)
        if file in self.prr_files:
            stem = name.removesuffix(".yaml")
            number = int(stem) if stem.isascii() and stem.isdigit() else None
            record = parse_prr(text, source=relative, file_number=number)
        else:
            record = parse_kep(text, source=relative, directory=os.path.basename(folder))
        report.warnings.extend(record.warnings)
        return record

    def write_stream(self, chunks, report: ImportReport, options) -> None:
        kep_records, prr_records = [], []
        with kep_import_session(contested_numbers=self.contested_numbers) as run:
            for chunk in chunks:
                keps = [record for record in chunk if isinstance(record, KepRecord)]
                run.add_keps(keps)
                kep_records += keps
                prr_records += [record for record in chunk if isinstance(record, PrrRecord)]
            result = run.finish(prr_records=prr_records)
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
