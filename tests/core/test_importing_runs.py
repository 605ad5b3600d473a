"""The import runners (`core.importing.runs`) and the thin command shell (`core.importing.commands`)."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DataError

from community.models import Sig
from core.importing import (
    ImportCommand,
    ImportFailure,
    ImportReport,
    ImportUsageError,
    import_file_by_file,
    import_in_one_transaction,
    parsed_in_chunks,
)

pytestmark = pytest.mark.django_db

FILES = [Path("a.txt"), Path("bad.txt"), Path("c.txt")]


def write_sig(path: Path, report: ImportReport) -> None:
    """Writes a row, counts, warns and notes, then fails for bad.txt (after writing)."""
    Sig.objects.create(slug=f"sig-{path.stem}")
    report.count("created")
    report.warn(f"{path}: a warning")
    report.note(f"{path}: a note")
    if path.stem == "bad":
        raise ImportFailure("broken", line=3)


def test_file_by_file_skips_a_failing_file_alone_and_takes_back_what_it_counted():
    report = import_file_by_file(
        files=FILES, import_file=write_sig, lock_name="test", dry_run=False, report=ImportReport()
    )
    assert sorted(Sig.objects.values_list("slug", flat=True)) == ["sig-a", "sig-c"]
    assert [str(failure) for failure in report.skipped] == ["bad.txt:3: broken"]
    assert (report.files_read, report.created) == (3, 2)
    assert report.warnings == ["a.txt: a warning", "c.txt: a warning"]
    assert [note for _, note in report.notes] == ["a.txt: a note", "c.txt: a note"]


def test_file_by_file_dry_run_writes_nothing_and_counts_what_would_change():
    report = import_file_by_file(
        files=FILES, import_file=write_sig, lock_name="test", dry_run=True, report=ImportReport()
    )
    assert not Sig.objects.exists()
    assert (report.files_read, report.created, len(report.skipped)) == (3, 2, 1)


def test_one_transaction_dry_run_rolls_back():
    report = ImportReport()
    import_in_one_transaction(
        lock_name="test", dry_run=True, report=report, write=lambda: Sig.objects.create(slug="sig-x")
    )
    assert not Sig.objects.exists() and report.refused == ""


def test_one_transaction_turns_a_database_refusal_into_one_line_and_writes_nothing():
    def write():
        Sig.objects.create(slug="sig-half-written")
        raise DataError("value too long\n  for type varchar(20)")

    report = import_in_one_transaction(lock_name="test", dry_run=False, report=ImportReport(), write=write)
    assert report.refused == "the database refused the import, nothing was written: value too long for type varchar(20)"
    assert not Sig.objects.exists()


def test_parsed_in_chunks_skips_a_failing_file_alone():
    def parse(path: Path, report: ImportReport) -> str:
        report.warn(f"{path}: parsed")
        if path.stem == "bad":
            raise ImportFailure("does not parse")
        return path.stem

    report = ImportReport()
    files = [Path(f"{n}.txt") for n in range(5)] + [Path("bad.txt")]
    chunks = list(parsed_in_chunks(files=files, parse_file=parse, report=report, chunk_size=2))
    assert chunks == [["0", "1"], ["2", "3"], ["4"]]
    assert [str(f) for f in report.skipped] == ["bad.txt: does not parse"]
    assert report.files_read == 6 and len(report.warnings) == 5


class ReportingCommand(ImportCommand):
    """Returns the report it is given, or raises the usage error."""

    def __init__(self, outcome, **kwargs):
        super().__init__(**kwargs)
        self.outcome = outcome

    def run_import(self, options, *, dry_run):
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


def run(outcome, **options):
    out, err = StringIO(), StringIO()
    try:
        call_command(ReportingCommand(outcome), stdout=out, stderr=err, **options)
        status = 0
    except CommandError as exc:
        status = exc.returncode
        err.write(str(exc))
    return status, out.getvalue(), err.getvalue()


def test_exit_status_and_printed_report():
    report = ImportReport(files_read=2, created=1)
    report.note("detail", verbosity=2)
    report.note("always", verbosity=1)
    status, out, _ = run(report)
    assert status == 0 and out.splitlines() == ["always", "2 files read: 1 created, 0 updated, 0 unchanged, 0 skipped"]
    assert "detail" in run(report, verbosity=2)[1]
    assert run(report, dry_run=True)[1].endswith(
        "dry run: 2 files read: 1 would be created, 0 would be updated, 0 unchanged, 0 skipped\n"
    )

    skipped = ImportReport(files_read=1)
    skipped.skip(ImportFailure("broken", source="x.yaml"))
    status, _, err = run(skipped)
    assert status == 1 and err.startswith("skipped: x.yaml: broken")

    status, out, err = run(ImportReport(refused="the database refused the import, nothing was written: no"))
    assert status == 1 and out == "" and err.endswith("nothing was written: no")

    status, _, err = run(ImportUsageError("here: not a folder"))
    assert status == 2 and err == "here: not a folder"
