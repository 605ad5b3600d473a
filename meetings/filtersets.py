"""FilterSet of the meetings list; its `q` is a full-text search over agenda items (`meetings.search`)."""

import django_filters
from django import forms
from django.db.models import Q

from community.models import Sig
from core.filters import TextFilter
from core.text import bound_search_text

from .models import AgendaItem, Meeting
from .search import search_agenda_items


def _sigs(request=None):
    return Sig.objects.listed()


def _years():
    return [(d.year, str(d.year)) for d in Meeting.objects.dates("date", "year", order="DESC")]


class MeetingFilterSet(django_filters.FilterSet):
    q = TextFilter(method="search", label="Search agenda items")
    sig = django_filters.ModelChoiceFilter(queryset=_sigs, to_field_name="slug", label="SIG", empty_label="any SIG")
    year = django_filters.ChoiceFilter(
        field_name="date", lookup_expr="year", choices=_years, label="Year", empty_label="any year"
    )
    presenter = TextFilter(method="filter_presenter", label="Presenter (GitHub handle or name)")
    kep = django_filters.NumberFilter(method="filter_kep", label="KEP number", min_value=1)
    cancelled = django_filters.BooleanFilter(
        label="Held or cancelled",
        widget=forms.Select(choices=[("", "either"), ("false", "held"), ("true", "cancelled")]),
    )

    class Meta:
        model = Meeting
        fields = ["q", "sig", "year", "presenter", "kep", "cancelled"]

    # The filters below select meetings through a subquery on agenda items rather than a join, so that
    # counts annotated on meetings are never multiplied by the matching rows.

    def search(self, queryset, name, value):
        """Meetings with an agenda item matching `value`, best match first, each with its `matches`."""
        if not bound_search_text(value):
            return queryset
        return search_agenda_items(queryset, value)

    def filter_presenter(self, queryset, name, value):
        value = value.strip().lstrip("@")
        if not value:
            return queryset
        items = AgendaItem.objects.filter(Q(presenters__github__iexact=value) | Q(presenters_text__icontains=value))
        return queryset.filter(pk__in=items.values("meeting_id"))

    def filter_kep(self, queryset, name, value):
        if value is None:
            return queryset
        return queryset.filter(pk__in=AgendaItem.objects.filter(keps__number=value).values("meeting_id"))
