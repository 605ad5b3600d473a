"""FilterSets for the KEP pages: one per listable model, each with a `q` search; shared by views and selectors."""

import django_filters
from django.apps import apps
from django.db.models import Q

from community.models import Sig
from core.filters import TextFilter
from core.text import parse_kep_number

from .choices import KepStage, KepStatus
from .models import DesignGroup, FeatureGate, Kep


def _sigs(request=None):
    return Sig.objects.listed()


def _design_groups(request=None):
    return DesignGroup.objects.all()


def _releases(request=None):
    # KEPs are tracked in releases by the releases app, which sits above this one: its model is found through
    # the app registry, as the relation the filters follow (`tracked_enhancements__release`) is found by name.
    return apps.get_model("releases", "Release").objects.order_by("-major", "-minor")


class KepFilterSet(django_filters.FilterSet):
    """What `kepctl query` offers (SIG, stage, status, author, approver), plus design group and release."""

    q = TextFilter(method="search", label="Search number or title")
    owning_sig = django_filters.ModelChoiceFilter(
        queryset=_sigs, to_field_name="slug", label="Owning SIG", empty_label="any SIG"
    )
    participating_sig = django_filters.ModelChoiceFilter(
        field_name="participating_sigs",
        queryset=_sigs,
        to_field_name="slug",
        label="Participating SIG",
        empty_label="any SIG",
        distinct=True,
    )
    stage = django_filters.ChoiceFilter(choices=KepStage.choices, label="Stage", empty_label="any stage")
    status = django_filters.ChoiceFilter(choices=KepStatus.choices, label="Status", empty_label="any status")
    author = TextFilter(
        field_name="authors__github", lookup_expr="iexact", label="Author (GitHub handle)", distinct=True
    )
    approver = TextFilter(
        field_name="approvers__github", lookup_expr="iexact", label="Approver (GitHub handle)", distinct=True
    )
    prr_approver = TextFilter(
        field_name="prr_approvals__approver__github",
        lookup_expr="iexact",
        label="PRR approver (GitHub handle)",
        distinct=True,
    )
    design_group = django_filters.ModelChoiceFilter(
        field_name="design_groups",
        queryset=_design_groups,
        to_field_name="slug",
        label="Design group",
        empty_label="any group",
        distinct=True,
    )
    release = django_filters.ModelChoiceFilter(
        field_name="tracked_enhancements__release",
        queryset=_releases,
        to_field_name="version",
        label="Tracked in release",
        empty_label="any release",
        distinct=True,
    )
    latest_milestone = django_filters.CharFilter(
        method="filter_latest_milestone", label="Latest milestone in kep.yaml (release, e.g. 1.37)", max_length=10
    )
    min_slips = django_filters.NumberFilter(
        method="filter_min_slips", label="At least N planned slips (kep.yaml history)", min_value=0
    )

    class Meta:
        model = Kep
        fields = [
            "q",
            "owning_sig",
            "participating_sig",
            "stage",
            "status",
            "author",
            "approver",
            "prr_approver",
            "design_group",
            "release",
            "latest_milestone",
            "min_slips",
        ]

    def filter_latest_milestone(self, queryset, name, value):
        """kep.yaml's `latest-milestone`, as stored ("1.37"); "v1.37" means the same."""
        value = value.strip().lower().removeprefix("v")
        return queryset.filter(latest_milestone=value) if value else queryset

    def filter_min_slips(self, queryset, name, value):
        from .selectors_history import plan_slip_count  # it builds on keps.selectors, which imports this module

        return queryset.annotate(plan_slips_at_least=plan_slip_count()).filter(plan_slips_at_least__gte=value)

    def search(self, queryset, name, value):
        """Number (`2727`, `KEP-2727`, `#2727`) or words of the title."""
        value = value.strip()
        if not value:
            return queryset
        condition = Q(title__icontains=value)
        number = parse_kep_number(value)
        if number is not None:
            condition |= Q(number=number)
        return queryset.filter(condition)


class SlipFilterSet(django_filters.FilterSet):
    """The slips page: SIG, stage and the range of releases slipped from (applied by the selector, which counts
    slips within it), and a minimum number of planned slips."""

    owning_sig = django_filters.ModelChoiceFilter(
        queryset=_sigs, to_field_name="slug", label="Owning SIG", empty_label="any SIG"
    )
    stage = django_filters.ChoiceFilter(choices=KepStage.choices, label="Stage now", empty_label="any stage")
    since = TextFilter(method="keep", label="Slipped from release (from, e.g. 1.24)")
    until = TextFilter(method="keep", label="Slipped from release (to, e.g. 1.30)")
    min_slips = django_filters.NumberFilter(
        field_name="plan_slips", lookup_expr="gte", label="At least N planned slips", min_value=0
    )

    class Meta:
        model = Kep
        fields = ["owning_sig", "stage", "since", "until", "min_slips"]

    def keep(self, queryset, name, value):
        return queryset


class FeatureGateFilterSet(django_filters.FilterSet):
    """The feature-gate ledger: by name, component, the KEP's stage and owning SIG."""

    q = TextFilter(method="search", label="Search gate or KEP number")
    component = TextFilter(method="filter_component", label="Component (e.g. kubelet)")
    stage = django_filters.ChoiceFilter(
        field_name="kep__stage", choices=KepStage.choices, label="Stage", empty_label="any stage"
    )
    sig = django_filters.ModelChoiceFilter(
        field_name="kep__owning_sig", queryset=_sigs, to_field_name="slug", label="Owning SIG", empty_label="any SIG"
    )

    class Meta:
        model = FeatureGate
        fields = ["q", "component", "stage", "sig"]

    def search(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        condition = Q(name__icontains=value)
        number = parse_kep_number(value)
        if number is not None:
            condition |= Q(kep__number=number)
        return queryset.filter(condition)

    def filter_component(self, queryset, name, value):
        # JSON `contains` is not available on SQLite; the quoted, case-insensitive match on the JSON text is
        # exact per element on both databases (components are plain strings without quotes).
        value = value.strip().strip('"')
        if not value:
            return queryset
        return queryset.filter(components__icontains=f'"{value}"')


class PermaBetaFilterSet(django_filters.FilterSet):
    """Filters of the perma-beta list. `min_releases` is applied by the selector (it needs version arithmetic)."""

    min_releases = django_filters.NumberFilter(
        method="keep", label="At least N releases in the stage", min_value=1, max_value=100
    )
    stage = django_filters.ChoiceFilter(
        choices=[(KepStage.BETA, "Beta"), (KepStage.ALPHA, "Alpha")],
        label="Stage",
        empty_label="beta or alpha",
    )
    owning_sig = django_filters.ModelChoiceFilter(
        queryset=_sigs, to_field_name="slug", label="Owning SIG", empty_label="any SIG"
    )

    class Meta:
        model = Kep
        fields = ["min_releases", "stage", "owning_sig"]

    def keep(self, queryset, name, value):
        return queryset


class ApproverFilterSet(django_filters.FilterSet):
    """The approvers page looks at one release (default: the current one), optionally one SIG."""

    release = django_filters.ModelChoiceFilter(
        queryset=_releases, to_field_name="version", label="Release", empty_label="current release", method="keep"
    )
    sig = django_filters.ModelChoiceFilter(
        queryset=_sigs, to_field_name="slug", label="SIG", empty_label="any SIG", method="keep"
    )

    class Meta:
        model = Kep
        fields = ["release", "sig"]

    def keep(self, queryset, name, value):
        return queryset


class DesignGroupFilterSet(django_filters.FilterSet):
    q = TextFilter(method="search", label="Search name or summary")
    sig = django_filters.ModelChoiceFilter(
        field_name="sigs", queryset=_sigs, to_field_name="slug", label="SIG", empty_label="any SIG", distinct=True
    )
    coverage_status = django_filters.ChoiceFilter(
        choices=DesignGroup._meta.get_field("coverage_status").choices, label="Coverage", empty_label="any"
    )

    class Meta:
        model = DesignGroup
        fields = ["q", "sig", "coverage_status"]

    def search(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(Q(name__icontains=value) | Q(summary__icontains=value) | Q(slug__icontains=value))
