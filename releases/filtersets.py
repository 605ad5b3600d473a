"""FilterSets of the release pages; the same ones serve the views, the selectors and the CSV exports."""

import django_filters
from django import forms
from django.db.models import Exists, OuterRef, Q

from community.models import Sig
from core.filters import TextFilter
from core.text import parse_kep_number

from .choices import (
    DocsStatus,
    EnhancementStatus,
    EnhancementType,
    ExceptionDecision,
    ExceptionSource,
    Freeze,
    PrrStatus,
    ReleaseState,
    TargetStage,
)
from .models import EnhancementException, Release, TrackedEnhancement
from .prr import with_prr


class ReleaseFilterSet(django_filters.FilterSet):
    q = TextFilter(
        method="search",
        label="Search",
        widget=forms.TextInput(attrs={"placeholder": "1.24 or Stargazer", "type": "search"}),
    )
    state = django_filters.ChoiceFilter(choices=ReleaseState.choices, label="State", empty_label="Any state")

    class Meta:
        model = Release
        fields = ["q", "state"]

    def search(self, queryset, name, value):
        """Version ("1.24", "v1.24") or release name."""
        value = value.strip()
        if not value:
            return queryset
        version = value.removeprefix("v")
        return queryset.filter(Q(version__startswith=version) | Q(name__icontains=value))


class TrackedEnhancementFilterSet(django_filters.FilterSet):
    q = TextFilter(
        method="search",
        label="Search",
        widget=forms.TextInput(attrs={"placeholder": "KEP number, title or @contact", "type": "search"}),
    )
    sig = django_filters.ModelChoiceFilter(
        queryset=lambda request=None: Sig.objects.listed().order_by("slug"),
        to_field_name="slug",
        label="SIG",
        empty_label="Any SIG",
    )
    type = django_filters.ChoiceFilter(choices=EnhancementType.choices, label="Type", empty_label="Any type")
    stage = django_filters.ChoiceFilter(
        field_name="target_stage", choices=TargetStage.choices, label="Stage", empty_label="Any stage"
    )
    status = django_filters.ChoiceFilter(choices=EnhancementStatus.choices, label="Status", empty_label="Any status")
    prr = django_filters.ChoiceFilter(
        method="filter_prr", choices=PrrStatus.choices, label="PRR", empty_label="Any PRR"
    )
    exception = django_filters.ChoiceFilter(
        method="filter_exception",
        choices=[("none", "No exception"), *ExceptionDecision.choices],
        label="Exception",
        empty_label="Any exception",
    )
    docs = django_filters.ChoiceFilter(
        field_name="docs_status", choices=DocsStatus.choices, label="Docs", empty_label="Any docs"
    )
    blog = django_filters.ChoiceFilter(
        method="filter_blog",
        choices=[("yes", "Feature blog"), ("no", "No feature blog")],
        label="Feature blog",
        empty_label="Blog or not",
    )

    class Meta:
        model = TrackedEnhancement
        fields = ["q", "sig", "type", "stage", "status", "prr", "exception", "docs", "blog"]

    def filter_exception(self, queryset, name, value):
        """Rows with an exception request of that decision (any freeze), or ("none") without any."""
        requests = EnhancementException.objects.filter(tracked_enhancement=OuterRef("pk"))
        if value == "none":
            return queryset.filter(~Exists(requests))
        return queryset.filter(Exists(requests.filter(decision=value)))

    def filter_prr(self, queryset, name, value):
        """By the PRR status the column shows (`rules.prr_status`): the board's, else the prod-readiness file's."""
        if "prr_file_approver" not in queryset.query.annotations:
            queryset = with_prr(queryset)
        from_file = Q(prr_status=PrrStatus.NOT_STARTED, prr_file_approver__isnull=False)
        if value == PrrStatus.APPROVED:
            return queryset.filter(Q(prr_status=PrrStatus.APPROVED) | from_file)
        if value == PrrStatus.NOT_STARTED:
            return queryset.filter(prr_status=PrrStatus.NOT_STARTED, prr_file_approver__isnull=True)
        return queryset.filter(prr_status=value)

    def filter_blog(self, queryset, name, value):
        return queryset.filter(feature_blog=value == "yes")

    def search(self, queryset, name, value):
        """A KEP number ("1287", "KEP-1287") matches exactly; other text searches KEP titles, the names of KEP-less
        features and contacts."""
        value = value.strip()
        if not value:
            return queryset
        number = parse_kep_number(value)
        if number is not None:
            return queryset.filter(kep__number=number)
        return queryset.filter(
            Q(kep__title__icontains=value)
            | Q(kep__slug__icontains=value)
            | Q(feature_name__icontains=value)
            | Q(enhancements_contact__github__icontains=value.lstrip("@"))
        )


class ExceptionRequestFilterSet(django_filters.FilterSet):
    """Exception requests by release, KEP, freeze, decision and source: the API's list and the release and KEP
    pages' sections (through `releases.selectors_published`)."""

    release = django_filters.ModelChoiceFilter(
        queryset=lambda request=None: Release.objects.all(), to_field_name="version", label="Release version, e.g. 1.25"
    )
    kep = django_filters.NumberFilter(method="filter_kep", label="KEP number", min_value=1)
    freeze = django_filters.ChoiceFilter(choices=Freeze.choices, label="Freeze")
    decision = django_filters.ChoiceFilter(choices=ExceptionDecision.choices, label="Decision")
    source = django_filters.ChoiceFilter(choices=ExceptionSource.choices, label="Source")

    class Meta:
        model = EnhancementException
        fields = ["release", "kep", "freeze", "decision", "source"]

    def filter_kep(self, queryset, name, value):
        """The number the request names, or its tracked enhancement's KEP (requests typed in name only that)."""
        if value is None:
            return queryset
        return queryset.filter(Q(kep_number=value) | Q(tracked_enhancement__kep__number=value))
