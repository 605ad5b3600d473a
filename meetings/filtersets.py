"""FilterSet of the meetings list; its `q` is a full-text search over agenda items."""

import django_filters
from django import forms
from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db import connections
from django.db.models import FloatField, OuterRef, Prefetch, Q, QuerySet, Subquery, Value

from core.text import bound_search_text
from keps.models import Sig

from .models import AgendaItem, Meeting

#: Text search configuration; the GIN index of migration 0002 is built on exactly this expression.
SEARCH_CONFIG = "english"


def agenda_search_vector() -> SearchVector:
    """The tsvector searched on PostgreSQL: title, notes and presenters of an agenda item."""
    return SearchVector("title", "body", "presenters_text", config=SEARCH_CONFIG)


def matching_agenda_items(text: str, *, using: str = "default") -> QuerySet[AgendaItem]:
    """Agenda items matching `text`, with a `rank` (higher is better).

    PostgreSQL: full-text search, `websearch_to_tsquery` syntax ("perma beta", "quoted phrase", -word, or),
    English stemming, served by the GIN index. Other databases: every word must appear (case-insensitive)
    in the title, notes or presenters; rank is 0. Either way `text` is first bounded (`bound_search_text`):
    PostgreSQL refuses some operator runs and very long phrases with an error, not an empty result.
    """
    text = bound_search_text(text)
    items = AgendaItem.objects.using(using).order_by()  # no default ordering: it joins meeting and SIG
    if connections[using].vendor == "postgresql":
        query = SearchQuery(text, search_type="websearch", config=SEARCH_CONFIG)
        vector = agenda_search_vector()
        return items.alias(search=vector).filter(search=query).annotate(rank=SearchRank(vector, query))
    for word in text.split():
        items = items.filter(Q(title__icontains=word) | Q(body__icontains=word) | Q(presenters_text__icontains=word))
    return items.annotate(rank=Value(0.0, output_field=FloatField()))


def search_agenda_items(queryset: QuerySet[Meeting], text: str) -> QuerySet[Meeting]:
    """Meetings with a matching agenda item, best match first; each meeting's `matches` lists those items."""
    items = matching_agenda_items(text, using=queryset.db)
    best = items.filter(meeting=OuterRef("pk")).order_by("-rank").values("rank")[:1]
    return (
        queryset.filter(pk__in=items.values("meeting_id"))
        .annotate(search_rank=Subquery(best))
        .order_by("-search_rank", "-date", "sig__slug")
        .prefetch_related(Prefetch("agenda_items", queryset=items.order_by("order"), to_attr="matches"))
    )


def _sigs(request=None):
    return Sig.objects.listed()


def _years():
    return [(d.year, str(d.year)) for d in Meeting.objects.dates("date", "year", order="DESC")]


class MeetingFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label="Search agenda items")
    sig = django_filters.ModelChoiceFilter(queryset=_sigs, to_field_name="slug", label="SIG", empty_label="any SIG")
    year = django_filters.ChoiceFilter(
        field_name="date", lookup_expr="year", choices=_years, label="Year", empty_label="any year"
    )
    presenter = django_filters.CharFilter(method="filter_presenter", label="Presenter (GitHub handle or name)")
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
