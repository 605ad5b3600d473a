import pytest
from django.db import IntegrityError, transaction

from community.models import Person
from keps.models import Kep
from tests.factories import FeatureGateFactory, KepFactory, PersonFactory, PrrApprovalFactory

pytestmark = pytest.mark.django_db


def test_github_handle_unique_regardless_of_case():
    PersonFactory(github="SergeyKanzhelev")
    with pytest.raises(IntegrityError), transaction.atomic():
        PersonFactory(github="sergeykanzhelev")


def test_person_natural_key_is_case_insensitive():
    person = PersonFactory(github="mrunalp")
    assert Person.objects.get_by_natural_key("MrunalP") == person


def test_kep_number_unique_and_positive():
    KepFactory(number=2727)
    with pytest.raises(IntegrityError), transaction.atomic():
        KepFactory(number=2727)
    with pytest.raises(IntegrityError), transaction.atomic():
        KepFactory(number=0)


@pytest.mark.parametrize("field", ["latest_milestone", "alpha_milestone", "beta_milestone", "stable_milestone"])
def test_kep_milestones_must_be_versions(field):
    kep = KepFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Kep.objects.filter(pk=kep.pk).update(**{field: "v1.27"})
    Kep.objects.filter(pk=kep.pk).update(**{field: "1.27"})


def test_kep_stage_and_status_checked_by_database():
    kep = KepFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Kep.objects.filter(pk=kep.pk).update(status="imlpemented")
    with pytest.raises(IntegrityError), transaction.atomic():
        Kep.objects.filter(pk=kep.pk).update(stage="alpha (deprecated)")


def test_one_prr_approver_per_stage():
    approval = PrrApprovalFactory(stage="beta")
    with pytest.raises(IntegrityError), transaction.atomic():
        PrrApprovalFactory(kep=approval.kep, stage="beta")


def test_feature_gate_listed_once_per_kep():
    gate = FeatureGateFactory(name="GRPCContainerProbe")
    with pytest.raises(IntegrityError), transaction.atomic():
        FeatureGateFactory(name="GRPCContainerProbe", kep=gate.kep)
