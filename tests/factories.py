"""factory_boy factories for every model, shared by all tests."""

import datetime

import factory
from django.utils import timezone

from community.models import Person, Sig
from keps.models import DesignGroup, FeatureGate, Kep, PrrApproval
from meetings.models import AgendaItem, Meeting
from releases.choices import EnhancementStatus, MilestoneKind
from releases.models import Milestone, Release, TrackedEnhancement, status_writer
from retros.choices import RetroCategory
from retros.models import RetroItem, Retrospective


class SigFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Sig
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"sig-test{n}")
    name = factory.LazyAttribute(lambda o: o.slug.replace("sig-", "SIG ").title())
    mailing_list = factory.LazyAttribute(lambda o: f"kubernetes-{o.slug}@googlegroups.com")


class PersonFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Person

    github = factory.Sequence(lambda n: f"contributor{n}")
    name = factory.Faker("name")
    email = factory.LazyAttribute(lambda o: f"{o.github}@example.com")


class KepFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Kep

    number = factory.Sequence(lambda n: 1000 + n)
    title = factory.Faker("sentence", nb_words=5)
    slug = factory.LazyAttribute(lambda o: f"{o.number}-test-kep")
    owning_sig = factory.SubFactory(SigFactory, slug="sig-node")
    status = "implementable"
    stage = "alpha"


class FeatureGateFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = FeatureGate

    name = factory.Sequence(lambda n: f"TestGate{n}")
    kep = factory.SubFactory(KepFactory)
    components = factory.LazyFunction(lambda: ["kubelet"])


class PrrApprovalFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PrrApproval

    kep = factory.SubFactory(KepFactory)
    stage = "alpha"
    approver = factory.SubFactory(PersonFactory)


class DesignGroupFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = DesignGroup

    name = factory.Sequence(lambda n: f"Design group {n}")
    slug = factory.Sequence(lambda n: f"design-group-{n}")


class ReleaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Release
        django_get_or_create = ("version",)

    version = factory.Sequence(lambda n: f"1.{30 + n}")
    cycle_start = datetime.date(2022, 1, 10)
    planned_release_date = datetime.date(2022, 5, 3)


class MilestoneFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Milestone

    release = factory.SubFactory(ReleaseFactory)
    kind = MilestoneKind.ENHANCEMENTS_FREEZE
    at = factory.LazyFunction(lambda: timezone.now() + datetime.timedelta(days=7))


class TrackedEnhancementFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = TrackedEnhancement

    release = factory.SubFactory(ReleaseFactory)
    kep = factory.SubFactory(KepFactory)
    sig = factory.LazyAttribute(lambda o: o.kep.owning_sig)
    type = "net_new"
    target_stage = "alpha"
    status = EnhancementStatus.TRACKED_ENHANCEMENTS

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        # Tests lay out boards directly (their history with `on_board`); the model refuses new rows outside the
        # tracking service, which this factory stands in for.
        with status_writer():
            return super()._create(model_class, *args, **kwargs)


class RetrospectiveFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Retrospective

    release = factory.SubFactory(ReleaseFactory)
    sig = factory.SubFactory(SigFactory, slug="sig-node")


class RetroItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RetroItem

    retrospective = factory.SubFactory(RetrospectiveFactory)
    category = RetroCategory.WENT_WELL
    text = factory.Faker("sentence")


class MeetingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Meeting

    sig = factory.SubFactory(SigFactory, slug="sig-node")
    date = factory.Sequence(lambda n: datetime.date(2022, 1, 4) + datetime.timedelta(weeks=n))
    title = "SIG Node weekly meeting"


class AgendaItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = AgendaItem

    meeting = factory.SubFactory(MeetingFactory)
    order = factory.Sequence(lambda n: n)
    title = factory.Faker("sentence")
