"""`manage.py import_keps`: on the shared upstream samples and on small trees built from them in tmp_path."""

import os
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.db.models.functions import Lower
from django.test.utils import CaptureQueriesContext

from community.models import Person, Sig
from keps.models import FeatureGate, Kep, PrrApproval
from tests.concurrency import run_together
from tests.factories import KepFactory, PersonFactory
from tests.special_files import fifo_with_a_writer

pytestmark = pytest.mark.django_db

#: A handful of real files with the traps they carry.
SAMPLE_FILES = [
    "keps/sig-node/2727-grpc-probe/kep.yaml",  # clean
    "keps/sig-node/4960-container-stop-signals/kep.yaml",  # kep-number as a string
    "keps/sig-node/2625-cpumanager-policies-thread-placement/kep.yaml",  # status "imlpemented"
    "keps/sig-scheduling/5075-dra-consumable-capacity/kep.yaml",  # creation-date 2025-30-01
    "keps/prod-readiness/sig-node/2727.yaml",
    "keps/prod-readiness/sig-node/4960.yaml",
    "keps/prod-readiness/sig-node/2625.yaml",
    "keps/prod-readiness/sig-scheduling/5075.yaml",
]
MANAGE = Path(__file__).resolve().parents[2] / "manage.py"


def run(*args, **options):
    """call_command with captured output: (stdout, stderr)."""
    out, err = StringIO(), StringIO()
    call_command("import_keps", *[str(a) for a in args], stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def run_failing(*args, **options):
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as exc:
        call_command("import_keps", *[str(a) for a in args], stdout=out, stderr=err, **options)
    return exc.value, out.getvalue(), err.getvalue()


@pytest.fixture
def tree(tmp_path, upstream_dir):
    """A checkout-shaped folder holding copies of SAMPLE_FILES (copied at test time, never into the repo)."""
    root = tmp_path / "enhancements"
    for relative in SAMPLE_FILES:
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(upstream_dir / "enhancements" / relative, target)
    return root


def expected_prr_approvals(keps_dir: Path, kep_numbers: set[int]) -> int:
    """PRR approvals the files hold, counted with plain PyYAML: known stages of KEPs present in the tree."""
    total = 0
    for path in (keps_dir / "prod-readiness").rglob("*.yaml"):
        data = yaml.safe_load(path.read_text())
        if int(path.stem) not in kep_numbers:
            continue
        total += sum(1 for stage in ("alpha", "beta", "stable", "deprecation", "deprecated") if stage in data)
    return total


def test_imports_every_shared_sample(upstream_dir):
    keps_dir = upstream_dir / "enhancements" / "keps"
    kep_files = [p for p in keps_dir.glob("*/*/kep.yaml") if not p.parent.name.startswith("NNNN")]
    prr_files = list((keps_dir / "prod-readiness").rglob("*.yaml"))

    out, err = run(upstream_dir / "enhancements")

    assert Kep.objects.count() == len(kep_files)
    numbers = set(Kep.objects.values_list("number", flat=True))
    assert PrrApproval.objects.count() == expected_prr_approvals(keps_dir, numbers) > 150
    assert f"{len(kep_files) + len(prr_files)} files read" in out and "0 skipped" in out
    assert err == ""
    grpc = Kep.objects.get(number=2727)
    assert (grpc.title, grpc.owning_sig.slug, grpc.status, grpc.stage) == (
        "Add gRPC probe to Pod.Spec.Container.{Liveness,Readiness,Startup}Probe",
        "sig-node",
        "implemented",
        "stable",
    )
    assert grpc.stable_milestone == "1.27" and grpc.source_path == "keps/sig-node/2727-grpc-probe/kep.yaml"
    assert grpc.issue_url == "https://github.com/kubernetes/enhancements/issues/2727"
    assert list(grpc.prr_approvals.values_list("stage", "approver__github")) == [
        ("alpha", "johnbelamaric"),
        ("beta", "johnbelamaric"),
        ("stable", "johnbelamaric"),
    ]
    assert FeatureGate.objects.get(name="GRPCContainerProbe").kep == grpc
    # Every person once, whatever the case they were written in.
    assert Person.objects.annotate(key=Lower("github")).values("key").distinct().count() == Person.objects.count()

    with CaptureQueriesContext(connection) as queries:
        again, _ = run(upstream_dir / "enhancements")
    assert "0 created, 0 updated" in again and "nothing to change" in again
    writes = [q["sql"] for q in queries if q["sql"].lstrip().split()[0].upper() in {"INSERT", "UPDATE", "DELETE"}]
    assert writes == []


def test_traps_are_imported_with_warnings(tree):
    out, _ = run(tree)
    assert Kep.objects.count() == 4 and PrrApproval.objects.filter(kep__number__in=[2727, 4960]).exists()
    assert Kep.objects.get(number=4960).slug == "4960-container-stop-signals"
    assert Kep.objects.get(number=2625).status == "implemented"
    assert Kep.objects.get(number=5075).creation_date is None
    assert "5075-dra-consumable-capacity/kep.yaml: creation-date: impossible date '2025-30-01'" in out
    assert "status: 'imlpemented' read as 'implemented'" in out


def test_path_may_be_the_keps_folder(tree):
    run(tree / "keps")
    assert Kep.objects.count() == 4


def test_rerun_changes_nothing_and_says_so(tree):
    run(tree)
    before = list(Kep.objects.values().order_by("number"))
    out, _ = run(tree)
    assert "8 files read: 0 created, 0 updated, 8 unchanged, 0 skipped — nothing to change" in out
    assert list(Kep.objects.values().order_by("number")) == before


def test_newer_input_updates_in_place(tree):
    run(tree)
    grpc = Kep.objects.get(number=2727)
    path = tree / "keps/sig-node/2727-grpc-probe/kep.yaml"
    text = path.read_text()
    text = text.replace("title: Add gRPC probe to Pod.Spec.Container.{Liveness,Readiness,Startup}Probe", "title: gRPC")
    text = text.replace('latest-milestone: "v1.27"', 'latest-milestone: "v1.28"')
    text = text.replace("  - name: GRPCContainerProbe", "  - name: GRPCContainerProbeV2")
    path.write_text(text)
    prr = tree / "keps/prod-readiness/sig-node/2727.yaml"
    prr.write_text(prr.read_text().replace('stable:\n  approver: "@johnbelamaric"', 'stable:\n  approver: "@wojtek-t"'))

    out, _ = run(tree)

    assert "0 created, 2 updated, 6 unchanged" in out
    assert Kep.objects.count() == 4
    grpc.refresh_from_db()
    assert (grpc.title, grpc.latest_milestone) == ("gRPC", "1.28")
    assert list(grpc.feature_gates.values_list("name", flat=True)) == ["GRPCContainerProbeV2"]
    assert grpc.prr_approvals.get(stage="stable").approver.github == "wojtek-t"
    assert PrrApproval.objects.filter(kep=grpc).count() == 3


def test_people_lists_follow_the_file_and_handles_match_existing_people_case_insensitively(tree):
    existing = PersonFactory(github="sergeykanzhelev", name="Sergey")
    run(tree)
    grpc = Kep.objects.get(number=2727)
    authors = ["PxyUp", "bowei", "sergeykanzhelev"]  # the file says "@SergeyKanzhelev"
    assert sorted(grpc.authors.values_list("github", flat=True)) == authors
    assert grpc.authors.get(github="sergeykanzhelev") == existing
    path = tree / "keps/sig-node/2727-grpc-probe/kep.yaml"
    path.write_text(path.read_text().replace('  - "@SergeyKanzhelev"', '  - "@SergeyKanzhelev"\n  - "@mrunalp"'))
    run(tree)
    assert sorted(grpc.authors.values_list("github", flat=True)) == sorted([*authors, "mrunalp"])
    path.write_text(path.read_text().replace('  - "@bowei"\n', ""))
    run(tree)
    assert sorted(grpc.authors.values_list("github", flat=True)) == ["PxyUp", "mrunalp", "sergeykanzhelev"]
    assert Person.objects.filter(github="bowei").exists()  # only the link goes


def test_dry_run_writes_nothing(tree):
    out, _ = run(tree, dry_run=True)
    assert "dry run: 8 files read: 8 would be created, 0 would be updated, 0 unchanged, 0 skipped" in out
    assert Kep.objects.count() == Sig.objects.count() == Person.objects.count() == PrrApproval.objects.count() == 0


def test_bad_file_among_good_ones_is_skipped_by_name_and_the_rest_imported(tree):
    broken = tree / "keps/sig-node/9999-broken/kep.yaml"
    broken.parent.mkdir()
    broken.write_text("title: Broken\nkep-number: 9999\nauthors:\n  - '@a'\n owning-sig: sig-node\n")
    wrong_type = tree / "keps/sig-node/9998-wrong-type/kep.yaml"
    wrong_type.parent.mkdir()
    wrong_type.write_text("title: Wrong\nkep-number: 9998\nowning-sig: sig-node\nauthors: '@a'\n")
    binary = tree / "keps/sig-node/9997-binary/kep.yaml"
    binary.parent.mkdir()
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    huge = tree / "keps/prod-readiness/sig-node/9996.yaml"
    with huge.open("wb") as handle:
        handle.truncate(20 * 1024 * 1024)  # sparse: 20 MB without writing them

    error, out, err = run_failing(tree)

    assert error.returncode == 1
    lines = err.splitlines()
    assert lines[0].startswith("skipped: keps/sig-node/9997-binary/kep.yaml: binary file")
    assert lines[1].startswith("skipped: keps/sig-node/9998-wrong-type/kep.yaml: authors: expected a list")
    assert lines[2].startswith("skipped: keps/sig-node/9999-broken/kep.yaml:5: YAML does not parse")
    assert lines[3].startswith("skipped: keps/prod-readiness/sig-node/9996.yaml: file too large")
    assert len(lines) == 4 and "Traceback" not in err
    assert "12 files read: 8 created, 0 updated, 0 unchanged, 4 skipped" in out
    assert sorted(Kep.objects.values_list("number", flat=True)) == [2625, 2727, 4960, 5075]
    assert not Person.objects.filter(github="a").exists()


def test_database_refusal_is_one_line_and_writes_nothing(tree, monkeypatch):
    from django.db import DataError

    import keps.services

    def refuse(**kwargs):
        Sig.objects.create(slug="sig-half-written")
        raise DataError("value too long for type character varying(20)")

    monkeypatch.setattr(keps.services, "kep_import_session", refuse)
    error, _, err = run_failing(tree)
    assert error.returncode == 1
    assert str(error) == (
        "the database refused the import, nothing was written: value too long for type character varying(20)"
    )
    assert not Sig.objects.exists()


def test_template_and_unnumbered_drafts_are_listed_not_skipped(tree):
    """The KEP template and drafts waiting for a number (NNNN-, 0000-) are no KEPs yet: listed with -v 2, exit 0."""
    text = "title: Draft\nkep-number: NNNN\nowning-sig: sig-storage\nstatus: provisional\n"
    for relative in (
        "keps/NNNN-kep-template/kep.yaml",
        "keps/sig-storage/NNNN-update-claim-template/kep.yaml",
        "keps/sig-network/0000-pod-network-health/kep.yaml",
    ):
        (tree / relative).parent.mkdir(parents=True)
        (tree / relative).write_text(text)

    out, err = run(tree, verbosity=2)

    assert err == ""
    assert "not a KEP: keps/NNNN-kep-template/kep.yaml (the KEP template)" in out
    assert (
        "not a KEP yet: keps/sig-storage/NNNN-update-claim-template/kep.yaml: kep-number: not a positive number "
        "('NNNN') and the directory has no KEP number yet (an unnumbered draft)"
    ) in out
    assert "not a KEP yet: keps/sig-network/0000-pod-network-health/kep.yaml" in out
    assert "10 files read: 8 created, 0 updated, 0 unchanged, 0 skipped" in out
    assert sorted(Kep.objects.values_list("number", flat=True)) == [2625, 2727, 4960, 5075]
    quiet, _ = run(tree, dry_run=True)
    assert "not a KEP" not in quiet  # only with -v 2


def test_the_prr_template_is_listed_not_skipped(tree):
    """keps/prod-readiness/template/nnnn.yaml is the PRR file template: listed with -v 2, exit 0."""
    template = tree / "keps/prod-readiness/template/nnnn.yaml"
    template.parent.mkdir(parents=True)
    template.write_text('kep-number: NNNN\nalpha:\n  approver: "@"\n')

    out, err = run(tree, verbosity=2)

    assert err == ""
    assert "not a KEP: keps/prod-readiness/template/nnnn.yaml (the PRR approval template)" in out
    assert "0 skipped" in out


def test_a_kep_number_disagreeing_with_its_directory_loses_to_it(tree):
    """keps/sig-node/2043-pod-resource-concrete-assigments/kep.yaml says `kep-number: 1884` (a copy-paste slip):
    the KEP is 2043, with a warning naming both."""
    relative = "keps/sig-node/2043-pod-resource-concrete-assigments/kep.yaml"
    (tree / relative).parent.mkdir(parents=True)
    (tree / relative).write_text(
        "title: Pod resources\nkep-number: 1884\nowning-sig: sig-node\nauthors: ['@a']\nstatus: implemented\n"
    )

    out, err = run(tree)

    assert err == ""
    assert (
        f"warning: {relative}: kep-number: 1884 differs from the directory's number 2043; using the directory's" in out
    )
    assert Kep.objects.filter(number=2043, source_path=relative).exists()
    assert not Kep.objects.filter(number=1884).exists()


def test_a_date_named_kep_without_a_number_still_fails_the_import(tree):
    """An old date-named folder (before KEP numbers) holds a KEP that should have imported: exit 1, named."""
    relative = "keps/sig-network/20200103-mixed-protocol-lb/kep.yaml"
    (tree / relative).parent.mkdir(parents=True)
    (tree / relative).write_text("title: Mixed\nkep-number: NNNN\nowning-sig: sig-network\nstatus: provisional\n")

    error, out, err = run_failing(tree)

    assert error.returncode == 1
    assert err.splitlines() == [
        "skipped: keps/sig-network/20200103-mixed-protocol-lb/kep.yaml: kep-number: not a positive number ('NNNN') "
        "and the directory name starts with a date (20200103), not a KEP number",
    ]
    assert "9 files read: 8 created, 0 updated, 0 unchanged, 1 skipped" in out


def test_the_shared_upstream_tree_imports_with_exit_0(upstream_dir):
    out, err = run(upstream_dir / "enhancements", verbosity=2)
    assert err == ""
    assert "0 skipped" in out
    assert "not a KEP: keps/NNNN-kep-template/kep.yaml (the KEP template)" in out
    assert Kep.objects.count() > 100


def test_duplicate_number_prefers_the_live_kep(tree):
    moved = tree / "keps/sig-apps/2727-grpc-probe/kep.yaml"
    moved.parent.mkdir(parents=True)
    text = (tree / "keps/sig-node/2727-grpc-probe/kep.yaml").read_text()
    moved.write_text(text.replace("status: implemented", "status: replaced").replace("sig-node", "sig-apps"))
    out, _ = run(tree)
    kep = Kep.objects.get(number=2727)
    assert kep.owning_sig.slug == "sig-node" and kep.status == "implemented"
    assert "keps/sig-apps/2727-grpc-probe/kep.yaml: kep-number: KEP-2727 is also claimed by" in out


def test_prr_file_for_a_kep_already_in_the_database_is_attached(tree):
    KepFactory(number=1287)
    prr = tree / "keps/prod-readiness/sig-node/1287.yaml"
    prr.write_text('kep-number: 1287\nalpha:\n  approver: "@jpbetz"\n')
    run(tree)
    assert PrrApproval.objects.get(kep__number=1287).approver.github == "jpbetz"


def test_missing_path_is_a_usage_error(tmp_path):
    error, _, _ = run_failing(tmp_path / "nowhere")
    assert error.returncode == 2
    error, _, _ = run_failing(tmp_path)  # a folder without any KEP
    assert error.returncode == 2 and "no keps/" in str(error)


def test_exit_status_from_the_command_line(tmp_path):
    """A usage error exits 2 from the shell too (call_command only shows the returncode); no database needed."""
    proc = subprocess.run(
        [sys.executable, str(MANAGE), "import_keps", str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().endswith("nowhere: not a folder") and "Traceback" not in proc.stderr


@pytest.mark.django_db(transaction=True)
def test_concurrent_imports_create_no_duplicates(postgres_only, upstream_dir):
    def import_once():
        out = StringIO()
        call_command("import_keps", str(upstream_dir / "enhancements"), stdout=out, stderr=StringIO())
        return out.getvalue()

    outputs = run_together(import_once)
    numbers = list(Kep.objects.values_list("number", flat=True))
    assert len(numbers) == len(set(numbers)) > 150
    handles = list(Person.objects.values_list("github", flat=True))
    assert len({h.lower() for h in handles}) == len(handles)
    assert Sig.objects.values("slug").distinct().count() == Sig.objects.count()
    # One run created everything, the other found it done.
    assert sorted("nothing to change" in out for out in outputs) == [False, True]


def test_statement_refused_in_the_pipeline_rolls_back_the_whole_import(postgres_only, tree, monkeypatch):
    """On PostgreSQL statements are pipelined: an error surfaces when the pipeline syncs, still as one line."""
    from keps.bulk_writers import PostgresBulkWriter

    def refused(self, rows):
        self._execute("SELECT 1 / 0", [])

    monkeypatch.setattr(PostgresBulkWriter, "upsert_gates", refused)
    error, _, err = run_failing(tree)
    assert error.returncode == 1
    assert str(error).startswith("the database refused the import, nothing was written: division by zero")
    assert Kep.objects.count() == Sig.objects.count() == Person.objects.count() == 0


def test_files_that_are_not_regular_are_skipped_unread(tree):
    """A kep.yaml symlinked to /dev/zero (size 0, endless) or a FIFO (an open that waits for a writer)
    is skipped with one line naming it; the other files import."""
    if not Path("/dev/zero").exists() or not hasattr(os, "mkfifo"):
        pytest.skip("needs /dev/zero and FIFOs (a POSIX system)")
    zero = tree / "keps/sig-node/9994-zero/kep.yaml"
    zero.parent.mkdir()
    zero.symlink_to("/dev/zero")
    fifo = tree / "keps/sig-node/9995-fifo/kep.yaml"
    fifo.parent.mkdir()
    text = "title: Fifo\nkep-number: 9995\nowning-sig: sig-node\nauthors: ['@fifo']\nstatus: provisional\n"

    with fifo_with_a_writer(fifo, text):
        error, out, err = run_failing(tree)

    assert error.returncode == 1
    assert err.splitlines() == [
        "skipped: keps/sig-node/9994-zero/kep.yaml: a symbolic link to /dev/zero, outside the folder imported; "
        "not read",
        "skipped: keps/sig-node/9995-fifo/kep.yaml: not a regular file (a FIFO); not read",
    ]
    assert "10 files read: 8 created, 0 updated, 0 unchanged, 2 skipped" in out
    assert sorted(Kep.objects.values_list("number", flat=True)) == [2625, 2727, 4960, 5075]


def test_an_error_that_surfaces_as_the_writer_closes_still_ends_its_pipeline(postgres_only):
    """A pipelined statement's error surfaces at the next statement or sync, which may be the writer's last one,
    sent as it closes: the pipeline is still left, so the connection takes queries again (a worker's next job)."""
    import time

    from django.db import DataError, transaction

    from keps.bulk_writers import PostgresBulkWriter

    with pytest.raises(DataError, match="division by zero"):
        with transaction.atomic(), PostgresBulkWriter() as writer:
            writer._execute("SELECT 1 / 0", [])
            # The server's answer is in by the writer's closing statement, which reads it (as on a busy machine,
            # where the import's last statements finish before it closes).
            time.sleep(0.3)
    assert Kep.objects.count() == 0
