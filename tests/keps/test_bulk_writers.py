"""The import's bulk writers (`keps.bulk_writers`): typed rows in, the same database rows out, whichever writer.

The ORM writer runs on any database, so on PostgreSQL both writers are checked against the same expectations.
"""

import datetime

import pytest
from django.db.models.functions import Lower

from community.models import Person
from keps.bulk_writers import (
    KEP_COLUMNS,
    GateKey,
    GateRow,
    KepRow,
    LinkRow,
    OrmBulkWriter,
    PersonRow,
    PostgresBulkWriter,
    PrrKey,
    PrrRow,
    _sql_columns,
)
from keps.models import FeatureGate, Kep, PrrApproval

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["orm", "postgres"])
def writer_class(request):
    if request.param == "postgres":
        request.getfixturevalue("postgres_only")  # skipped without PostgreSQL, failed if services are required
        return PostgresBulkWriter
    return OrmBulkWriter


def kep_row(number=4242, **changes) -> KepRow:
    row = KepRow(
        number=number,
        title="Grpc probe",
        slug=f"{number}-grpc-probe",
        owning_sig="sig-node",
        status="implementable",
        stage="beta",
        latest_milestone="1.27",
        alpha_milestone="1.24",
        beta_milestone="1.27",
        stable_milestone="",
        deprecated_milestone="",
        creation_date=datetime.date(2021, 3, 1),
        last_updated=None,
        disable_supported=True,
        tracking_issue_url="https://github.com/kubernetes/enhancements/issues/2727",
        source_path=f"keps/sig-node/{number}-grpc-probe/kep.yaml",
    )
    return row._replace(**changes)


def test_kep_columns_follow_the_row_type():
    assert KEP_COLUMNS == KepRow._fields[1:]
    types = dict(_sql_columns(KepRow))
    assert types["number"] == "integer"
    assert types["creation_date"] == types["last_updated"] == "date"
    assert types["disable_supported"] == "boolean"
    assert types["title"] == types["owning_sig"] == "text"
    assert dict(_sql_columns(GateRow))["components"] == "jsonb"


def test_keps_people_links_gates_and_approvals_written_by_natural_key(writer_class):
    with writer_class() as writer:
        writer.insert_sigs(["sig-node", "sig-apps"])
        writer.insert_people([PersonRow("Alice", "", ""), PersonRow("bob", "Bob", "")])
        writer.fill_people([PersonRow("alice", "Alice A", "alice@example.org"), PersonRow("bob", "Robert", "b@x")])
        writer.upsert_keps([kep_row(), kep_row(4243, owning_sig="sig-apps", stage="")])
        writer.insert_links("participating_sigs", [LinkRow(4242, "sig-apps")])
        writer.insert_links("authors", [LinkRow(4242, "alice"), LinkRow(4242, "bob")])
        writer.upsert_gates([GateRow(4242, "GRPCContainerProbe", ("kubelet", "kube-apiserver"))])
        writer.upsert_prr_approvals([PrrRow(4242, "beta", "alice")])

    kep = Kep.objects.get(number=4242)
    assert (kep.owning_sig.slug, kep.stage, kep.creation_date, kep.last_updated, kep.disable_supported) == (
        "sig-node",
        "beta",
        datetime.date(2021, 3, 1),
        None,
        True,
    )
    assert Kep.objects.get(number=4243).owning_sig.slug == "sig-apps"
    # A blank name or email is filled; a set one is kept; the handle keeps its spelling.
    people = {p.github: (p.name, p.email) for p in Person.objects.all()}
    assert people == {"Alice": ("Alice A", "alice@example.org"), "bob": ("Bob", "b@x")}
    assert [s.slug for s in kep.participating_sigs.all()] == ["sig-apps"]
    assert sorted(p.github for p in kep.authors.all()) == ["Alice", "bob"]
    assert list(FeatureGate.objects.values_list("name", "components")) == [
        ("GRPCContainerProbe", ["kubelet", "kube-apiserver"])
    ]
    assert list(PrrApproval.objects.values_list("kep__number", "stage", "approver__github")) == [
        (4242, "beta", "Alice")
    ]

    # Upserts update in place; deletes go by natural key. Plain tuples in field order work as well.
    with writer_class() as writer:
        writer.upsert_keps([tuple(kep_row(title="gRPC probes", stage="stable", disable_supported=None))])
        writer.delete_links("authors", [LinkRow(4242, "bob")])
        writer.upsert_gates([(4242, "GRPCContainerProbe", ("kubelet",)), GateRow(4242, "Other", ())])
        writer.delete_gates([GateKey(4242, "Other")])
        writer.upsert_prr_approvals([PrrRow(4242, "beta", "bob"), PrrRow(4242, "stable", "alice")])
        writer.delete_prr_approvals([PrrKey(4242, "stable")])

    kep = Kep.objects.get(number=4242)
    assert (kep.title, kep.stage, kep.disable_supported) == ("gRPC probes", "stable", None)
    assert Kep.objects.count() == 2
    assert [p.github for p in kep.authors.all()] == ["Alice"]
    assert list(FeatureGate.objects.values_list("name", "components")) == [("GRPCContainerProbe", ["kubelet"])]
    approvals = PrrApproval.objects.annotate(key=Lower("approver__github")).values_list("stage", "key")
    assert list(approvals) == [("beta", "bob")]
