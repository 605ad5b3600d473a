"""`keps.services.kep_tree_import`, called directly (no command): discovery, dry run, skips, re-linking, lock."""

import shutil
import threading
import time
from pathlib import Path

import pytest
from django.db import DataError, connection, transaction

from community.models import Person, Sig
from core.importing import ImportReport, ImportUsageError, import_lock
from keps.models import Kep, PrrApproval
from keps.services import KEP_IMPORT_LOCK, kep_tree_find, kep_tree_import
from tests.concurrency import run_together
from tests.factories import AgendaItemFactory

pytestmark = pytest.mark.django_db

SAMPLE_FILES = [
    "keps/sig-node/2727-grpc-probe/kep.yaml",
    "keps/sig-node/4960-container-stop-signals/kep.yaml",
    "keps/sig-node/2625-cpumanager-policies-thread-placement/kep.yaml",
    "keps/sig-scheduling/5075-dra-consumable-capacity/kep.yaml",
    "keps/prod-readiness/sig-node/2727.yaml",
    "keps/prod-readiness/sig-node/4960.yaml",
    "keps/prod-readiness/sig-node/2625.yaml",
    "keps/prod-readiness/sig-scheduling/5075.yaml",
]
NUMBERS = [2625, 2727, 4960, 5075]


@pytest.fixture
def tree(tmp_path, upstream_dir) -> Path:
    root = tmp_path / "enhancements"
    for relative in SAMPLE_FILES:
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(upstream_dir / "enhancements" / relative, target)
    return root


def nothing_written() -> bool:
    return not (Kep.objects.exists() or Sig.objects.exists() or Person.objects.exists() or PrrApproval.objects.exists())


def test_imports_a_tree_and_reports_per_file(tree):
    report = kep_tree_import(root=tree, dry_run=False)
    assert isinstance(report, ImportReport)
    assert (report.files_read, report.created, report.updated, report.unchanged) == (8, 8, 0, 0)
    assert report.skipped == [] and report.refused == ""
    assert sorted(Kep.objects.values_list("number", flat=True)) == NUMBERS
    assert PrrApproval.objects.exists()

    again = kep_tree_import(root=tree, dry_run=False)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 8)
    assert "nothing to change" in again.summary()


def test_dry_run_writes_nothing_but_counts_what_would_change(tree):
    AgendaItemFactory(title="KEP-2727 gRPC probes to beta")
    sigs_before = set(Sig.objects.values_list("slug", flat=True))

    report = kep_tree_import(root=tree, dry_run=True)

    assert (report.files_read, report.created) == (8, 8)
    assert "8 would be created" in report.summary(dry_run=True)
    assert not Kep.objects.exists() and not Person.objects.exists() and not PrrApproval.objects.exists()
    assert set(Sig.objects.values_list("slug", flat=True)) == sigs_before


def test_a_bad_file_is_skipped_alone_and_the_rest_imported(tree):
    broken = tree / "keps/sig-node/9999-broken/kep.yaml"
    broken.parent.mkdir()
    broken.write_text("title: Broken\nkep-number: 9999\nowning-sig: sig-node\nauthors: [\n")
    prr = tree / "keps/prod-readiness/sig-node/2727.yaml"
    prr.write_bytes(b"kep-number: 2727\x00\n")

    report = kep_tree_import(root=tree, dry_run=False)

    assert [failure.source for failure in report.skipped] == [
        "keps/sig-node/9999-broken/kep.yaml",
        "keps/prod-readiness/sig-node/2727.yaml",
    ]
    assert report.files_read == 9 and report.created == 7
    assert sorted(Kep.objects.values_list("number", flat=True)) == NUMBERS
    assert not PrrApproval.objects.filter(kep__number=2727).exists()
    assert PrrApproval.objects.filter(kep__number=4960).exists()


def test_agenda_items_imported_earlier_are_linked_to_the_keps_created(tree):
    item = AgendaItemFactory(title="KEP-2727 gRPC probes to beta", body="")
    kep_tree_import(root=tree, dry_run=False)
    assert list(item.keps.values_list("number", flat=True)) == [2727]


def test_usage_errors_raise_before_anything_is_read(tmp_path):
    with pytest.raises(ImportUsageError, match="nowhere: not a folder"):
        kep_tree_import(root=tmp_path / "nowhere", dry_run=False)
    (tmp_path / "keps" / "sig-node").mkdir(parents=True)
    with pytest.raises(ImportUsageError, match="no keps/"):
        kep_tree_import(root=tmp_path, dry_run=False)
    assert nothing_written()


def test_discovery_skips_the_template_and_flags_contested_numbers(tree):
    template = tree / "keps/NNNN-kep-template/kep.yaml"
    template.parent.mkdir()
    template.write_text("title: template\n")
    moved = tree / "keps/sig-apps/2727-grpc-probe/kep.yaml"
    moved.parent.mkdir(parents=True)
    moved.write_text((tree / "keps/sig-node/2727-grpc-probe/kep.yaml").read_text())

    found = kep_tree_find(root=tree / "keps")  # the keps/ folder works as well as the checkout

    assert len(found.kep_files) == 5 and len(found.prr_files) == 4
    assert not any("NNNN-kep-template" in file for file in found.kep_files)
    assert found.contested_numbers == {2727}
    assert found.files[-1].name == "5075.yaml"  # kep.yaml files first, then the PRR files


def test_a_database_refusal_is_one_report_line_and_nothing_is_written(tree, monkeypatch):
    import keps.services

    def refuse(**kwargs):
        Sig.objects.create(slug="sig-half-written")
        raise DataError("value too long\nfor type character varying(20)")

    monkeypatch.setattr(keps.services, "kep_import_session", refuse)
    report = kep_tree_import(root=tree, dry_run=False)
    assert report.refused == (
        "the database refused the import, nothing was written: value too long for type character varying(20)"
    )
    assert nothing_written()


def test_progress_sees_every_file(tree):
    seen = []

    def progress(files):
        for path in files:
            seen.append(path)
            yield path

    kep_tree_import(root=tree, dry_run=True, progress=progress)
    assert len(seen) == 8


# -- concurrency, on PostgreSQL (SQLite serialises writers by itself) ----------------------------------------


def _waits_for_an_advisory_lock(timeout: float) -> bool:
    """Whether, within `timeout` seconds, PostgreSQL shows a session of this database queued behind an advisory
    lock (not granted): proof that the import is waiting for the lock, with no fixed sleep."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.02)
    return False


@pytest.mark.django_db(transaction=True)
def test_the_lock_makes_an_import_wait_for_the_one_holding_it(postgres_only, tree):
    """While another transaction holds the import lock, an import waits for it and writes nothing; once the lock
    is released, it runs."""
    holding, release = threading.Event(), threading.Event()
    reports, errors = [], []

    def hold_the_lock():
        try:
            with transaction.atomic(), import_lock(KEP_IMPORT_LOCK):
                holding.set()
                release.wait(timeout=60)
        finally:
            connection.close()

    def import_tree():
        try:
            reports.append(kep_tree_import(root=tree, dry_run=False))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_lock)
    holder.start()
    assert holding.wait(timeout=30)
    importer = threading.Thread(target=import_tree)
    importer.start()
    try:
        assert _waits_for_an_advisory_lock(timeout=30), "the import never queued behind the lock"
        assert importer.is_alive() and reports == []
        assert not Kep.objects.exists()
    finally:
        release.set()
        holder.join(timeout=60)
        importer.join(timeout=120)

    assert errors == []
    assert [(r.created, len(r.skipped)) for r in reports] == [(8, 0)]
    assert sorted(Kep.objects.values_list("number", flat=True)) == NUMBERS


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_imports_run_one_after_the_other(postgres_only, tree):
    """Two imports started together: one creates everything, the other, serialised behind it, finds it done."""
    reports = run_together(lambda: kep_tree_import(root=tree, dry_run=False))
    assert sorted((r.created, r.unchanged) for r in reports) == [(0, 8), (8, 0)]
    numbers = list(Kep.objects.values_list("number", flat=True))
    assert sorted(numbers) == NUMBERS
    handles = list(Person.objects.values_list("github", flat=True))
    assert len({h.lower() for h in handles}) == len(handles)


def test_only_the_changed_keps_are_read_with_their_other_files(tree):
    kep_tree_import(root=tree, dry_run=False)
    moved = tree / "keps/sig-apps/2727-grpc-probe/kep.yaml"
    moved.parent.mkdir(parents=True)
    moved.write_text((tree / "keps/sig-node/2727-grpc-probe/kep.yaml").read_text())
    Kep.objects.filter(number=4960).update(title="edited by hand")

    report = kep_tree_import(root=tree, dry_run=False, only=["keps/prod-readiness/sig-node/2727.yaml"])

    # KEP 2727's kep.yaml files (both directories: the duplicate rule weighs them together) and its PRR file.
    assert report.files_read == 3
    assert Kep.objects.get(number=4960).title == "edited by hand"  # outside the change: left alone
    gone = kep_tree_import(root=tree, dry_run=False, only=["keps/sig-node/9999-deleted/kep.yaml"])
    assert gone.files_read == 0


def test_an_import_of_changed_keps_writes_what_a_whole_tree_import_writes(tree):
    """Reading only the changed KEPs' stored rows (`KepTree.numbers`) decides the same writes as loading all."""
    from tests.upstream.snapshots import domain_rows, rows_differ

    kep_tree_import(root=tree, dry_run=False)
    kep = tree / "keps/sig-node/2727-grpc-probe/kep.yaml"
    kep.write_text(kep.read_text().replace("stage: ", "stage: beta\n# was: ", 1))
    prr = tree / "keps/prod-readiness/sig-node/4960.yaml"
    prr.write_text(prr.read_text() + "\n# edited\n")
    changed = ["keps/sig-node/2727-grpc-probe/kep.yaml", "keps/prod-readiness/sig-node/4960.yaml"]

    report = kep_tree_import(root=tree, dry_run=False, only=changed)
    assert report.files_read == 4  # the two changed files and the other file of each KEP
    assert report.updated == 1 and Kep.objects.get(number=2727).stage == "beta"
    incremental = domain_rows()
    whole = kep_tree_import(root=tree, dry_run=False)
    assert (whole.created, whole.updated) == (0, 0)
    assert rows_differ(incremental, domain_rows()) == {}


def test_a_listing_of_the_checkout_finds_what_a_walk_finds(upstream_dir):
    root = upstream_dir / "enhancements"
    listing = [path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()]
    listing += ["README.md", "keps/../elsewhere/kep.yaml", "keps//x/kep.yaml"]  # nothing outside keps/ is read
    walked = kep_tree_find(root=root)
    assert walked.kep_files and walked.prr_files
    assert kep_tree_find(root=root, listing=listing) == walked


def test_a_listing_with_changed_keps_reads_what_a_walk_with_them_reads(tree):
    """The checkout's listing narrowed to the changed KEPs' numbers keeps every file the subset would take (a KEP
    in two directories, its PRR file), and a change to the template alone imports nothing, without an error."""
    kep_tree_import(root=tree, dry_run=False)
    moved = tree / "keps/sig-apps/2727-grpc-probe/kep.yaml"
    moved.parent.mkdir(parents=True)
    moved.write_text((tree / "keps/sig-node/2727-grpc-probe/kep.yaml").read_text())
    template = tree / "keps/NNNN-kep-template/kep.yaml"
    template.parent.mkdir(parents=True, exist_ok=True)
    template.write_text("title: KEP Template\nkep-number: NNNN\n")
    listing = [path.relative_to(tree).as_posix() for path in tree.rglob("*") if path.is_file()]
    changed = ["keps/prod-readiness/sig-node/2727.yaml", "keps/sig-node/4960-container-stop-signals/kep.yaml"]

    walked = kep_tree_import(root=tree, dry_run=True, only=changed)
    listed = kep_tree_import(root=tree, dry_run=True, only=changed, listing=listing)

    assert listed.files_read == walked.files_read == 5  # 2727's two kep.yaml and PRR file, 4960's two files
    assert (listed.created, listed.updated, listed.unchanged) == (walked.created, walked.updated, walked.unchanged)
    nothing = kep_tree_import(root=tree, dry_run=False, only=["keps/NNNN-kep-template/kep.yaml"], listing=listing)
    assert nothing.files_read == 0 and not nothing.skipped
