"""`keps.services.kep_import_session`: the write side of import_keps, on records built from kep.yaml text.

Runs on SQLite (the ORM writer) and on PostgreSQL in CI (set-based SQL, pipelined).
"""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from community.models import Person
from keps.importers.kep_yaml import parse_kep, parse_prr
from keps.models import FeatureGate, Kep, PrrApproval
from keps.services import kep_import_session

pytestmark = pytest.mark.django_db

WRITES = ("INSERT", "UPDATE", "DELETE")


def record(directory, *, number=None, sig="sig-node", status="implementable", authors=("@alice",), gates=()):
    lines = [f"title: KEP in {directory}", f"owning-sig: {sig}", f"status: {status}", "authors:"]
    lines += [f'  - "{author}"' for author in authors]
    if number is not None:
        lines.append(f"kep-number: {number}")
    if gates:
        lines.append("feature-gates:")
        lines += [f"  - name: {gate}\n    components: [kubelet]" for gate in gates]
    source = f"keps/{sig}/{directory}/kep.yaml"
    return parse_kep("\n".join(lines) + "\n", source=source, directory=directory)


def run_import(*chunks, prr=(), contested=()):
    with transaction.atomic(), kep_import_session(contested_numbers=contested) as run:
        for chunk in chunks:
            run.add_keps(chunk)
        return run.finish(prr_records=list(prr))


def test_a_copy_written_early_is_replaced_whole_by_the_winner_found_later():
    """A kep.yaml in a folder named by date (no number of its own) cannot be foreseen as a duplicate: the copy seen
    first is written, and the live KEP found later takes its place, lists and gates included."""
    moved = record("2727-grpc-probe", sig="sig-apps", status="replaced", authors=("@old",), gates=("OldGate",))
    live = record("20190603-grpc-probe-v2", number=2727, authors=("@new", "@other"), gates=("NewGate",))

    result = run_import([moved], [live])

    kep = Kep.objects.get(number=2727)
    assert (kep.owning_sig.slug, kep.status, kep.slug) == ("sig-node", "implementable", "20190603-grpc-probe-v2")
    assert sorted(kep.authors.values_list("github", flat=True)) == ["new", "other"]
    assert list(FeatureGate.objects.values_list("name", flat=True)) == ["NewGate"]
    assert result.outcomes == {moved.source_path: "unchanged", live.source_path: "created"}
    assert any("also claimed by" in warning for warning in result.warnings)

    with CaptureQueriesContext(connection) as queries:
        again = run_import([moved], [live])
    assert [q["sql"] for q in queries if q["sql"].lstrip().split()[0].upper() in WRITES] == []
    assert again.count("unchanged") == 2


def test_contested_numbers_wait_for_the_duplicate_rule():
    live = record("1287-in-place-update")
    copy = record("1287-in-place-update", sig="sig-autoscaling", status="replaced", authors=("@copy",))

    result = run_import([copy], [live], contested={1287})

    assert Kep.objects.get(number=1287).owning_sig.slug == "sig-node"
    assert not Person.objects.filter(github="copy").exists()  # the losing copy wrote nothing at all
    assert result.count("created") == 1


def test_people_names_fill_blanks_only_and_prr_approvals_follow_the_file():
    Person.objects.create(github="Alice", name="Alice Curated")
    first = record("100-a", authors=("Alice Other (@alice)", "Bob B (@bob)"))
    prr = parse_prr('alpha:\n  approver: "@bob"\nbeta:\n  approver: "@carol"\n', source="100.yaml", file_number=100)

    run_import([first], prr=[prr])

    assert Person.objects.get(github="Alice").name == "Alice Curated"  # a curator's name is kept
    assert Person.objects.get(github="bob").name == "Bob B"
    assert dict(PrrApproval.objects.values_list("stage", "approver__github")) == {"alpha": "bob", "beta": "carol"}

    fewer = parse_prr('alpha:\n  approver: "@carol"\n', source="100.yaml", file_number=100)
    result = run_import([first], prr=[fewer])

    assert dict(PrrApproval.objects.values_list("stage", "approver__github")) == {"alpha": "carol"}
    assert result.outcomes["100.yaml"] == "updated"
