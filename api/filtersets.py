"""Filters the pages do not have: the API's own lists (history, agenda items, retros, SIGs) and the release a
tracked-enhancement list belongs to. Lists the pages have reuse the pages' FilterSets unchanged."""

import django_filters
from django.db.models import Q
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.exceptions import ValidationError

from community.choices import SigKind
from community.models import Sig
from core.filters import TextFilter
from core.text import bound_search_text
from meetings.models import AgendaItem
from meetings.search import agenda_items_matching
from releases.choices import EnhancementStatus
from releases.filtersets import TrackedEnhancementFilterSet
from releases.models import EnhancementStatusChange, Release
from retros.choices import ActionStatus
from retros.models import RetroItem, Retrospective
from retros.selectors import OPEN_ACTION_STATUSES

#: Query parameters every list takes besides its filters: pagination (`cursor`, `page_size`; `page` for clients
#: of page-numbered APIs, which a cursor list ignores), the renderer (`format`), DRF's `ordering`.
NON_FILTER_PARAMS = frozenset({"cursor", "page", "page_size", "format", "ordering"})


class StrictFilterBackend(DjangoFilterBackend):
    """The view's FilterSet, refusing a query parameter it does not know (400 naming it and the filters the list
    has) rather than ignoring it: `?latest_milestone=1.37` on a list without that filter would otherwise answer
    every row as if filtered. Lists only; a view's own extra parameters are listed in its `extra_query_params`."""

    def filter_queryset(self, request, queryset, view):
        if getattr(view, "action", "list") == "list":
            self._refuse_unknown(request, queryset, view)
        return super().filter_queryset(request, queryset, view)

    def _refuse_unknown(self, request, queryset, view) -> None:
        filterset_class = self.get_filterset_class(view, queryset)
        known = set(filterset_class.base_filters) if filterset_class else set()
        allowed = known | NON_FILTER_PARAMS | set(getattr(view, "extra_query_params", ()))
        unknown = sorted(name for name in request.query_params if name not in allowed)
        if unknown:
            filters = ", ".join(sorted(known)) or "nothing"
            raise ValidationError(
                {
                    name[:100]: [f"Unknown query parameter {name[:100]!r}: this list filters by {filters}."]
                    for name in unknown[:20]
                }
            )


def _releases(request=None):
    return Release.objects.all()


def _sigs(request=None):
    return Sig.objects.all()


class TrackedEnhancementApiFilterSet(TrackedEnhancementFilterSet):
    """The enhancement list page's filters, plus the release the page has in its URL."""

    release = django_filters.ModelChoiceFilter(
        queryset=_releases, to_field_name="version", required=True, label="Release version, e.g. 1.27"
    )


class StatusChangeFilterSet(django_filters.FilterSet):
    release = django_filters.ModelChoiceFilter(
        field_name="tracked_enhancement__release", queryset=_releases, to_field_name="version", label="Release"
    )
    sig = django_filters.ModelChoiceFilter(
        field_name="tracked_enhancement__sig", queryset=_sigs, to_field_name="slug", label="SIG"
    )
    kep = django_filters.NumberFilter(field_name="tracked_enhancement__kep__number", label="KEP number", min_value=1)
    to_status = django_filters.ChoiceFilter(choices=EnhancementStatus.choices, label="New status")
    since = django_filters.IsoDateTimeFilter(field_name="changed_at", lookup_expr="gte", label="Changed at or after")

    class Meta:
        model = EnhancementStatusChange
        fields = ["release", "sig", "kep", "to_status", "since"]


class AgendaItemFilterSet(django_filters.FilterSet):
    q = TextFilter(method="search", label="Full-text search (title, notes, presenters)")
    sig = django_filters.ModelChoiceFilter(field_name="meeting__sig", queryset=_sigs, to_field_name="slug")
    kep = django_filters.NumberFilter(field_name="keps__number", label="KEP number", min_value=1, distinct=True)
    release = django_filters.ModelChoiceFilter(
        field_name="related_release", queryset=_releases, to_field_name="version", label="Related release"
    )
    meeting = django_filters.NumberFilter(field_name="meeting_id", label="Meeting id")

    class Meta:
        model = AgendaItem
        fields = ["q", "sig", "kep", "release", "meeting"]

    def search(self, queryset, name, value):
        # The same search as the meetings page's `q` (meetings.search.matching_agenda_items).
        if not bound_search_text(value):
            return queryset
        return agenda_items_matching(queryset, value)


class RetrospectiveFilterSet(django_filters.FilterSet):
    release = django_filters.ModelChoiceFilter(queryset=_releases, to_field_name="version")
    sig = django_filters.ModelChoiceFilter(queryset=_sigs, to_field_name="slug")

    class Meta:
        model = Retrospective
        fields = ["release", "sig"]


class ActionItemFilterSet(django_filters.FilterSet):
    release = django_filters.ModelChoiceFilter(
        field_name="retrospective__release", queryset=_releases, to_field_name="version", label="Retro's release"
    )
    sig = django_filters.ModelChoiceFilter(field_name="retrospective__sig", queryset=_sigs, to_field_name="slug")
    status = django_filters.ChoiceFilter(choices=ActionStatus.choices)
    open = django_filters.BooleanFilter(method="filter_open", label="Open or in progress")
    owner = TextFilter(field_name="owner__github", lookup_expr="iexact", label="Owner (GitHub handle)")

    class Meta:
        model = RetroItem
        fields = ["release", "sig", "status", "open", "owner"]

    def filter_open(self, queryset, name, value):
        if value is None:
            return queryset
        condition = Q(status__in=OPEN_ACTION_STATUSES)
        return queryset.filter(condition) if value else queryset.exclude(condition)


class SigFilterSet(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=SigKind.choices)
    in_community = django_filters.BooleanFilter(label="Listed in kubernetes/community's sigs.yaml")

    class Meta:
        model = Sig
        fields = ["kind", "in_community"]
