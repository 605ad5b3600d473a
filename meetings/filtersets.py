"""FilterSet of the meetings list; its `q` is a full-text search over agenda items."""

import django_filters
from django import forms
from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector, SearchVectorField
from django.db import connections
from django.db.models import Case, Expression, FloatField, OuterRef, Prefetch, Q, QuerySet, Subquery, Value, When

from community.models import Sig
from core.text import bound_search_text

from .models import AgendaItem, Meeting

#: Text search configuration; the stored column of migration 0003 is built with exactly this expression.
SEARCH_CONFIG = "english"


def agenda_search_vector() -> SearchVector:
    """The tsvector of an agenda item's title, notes and presenters, as migration 0003 stores it on PostgreSQL
    (`StoredSearchVector` reads that column; this expression is what it holds)."""
    return SearchVector("title", "body", "presenters_text", config=SEARCH_CONFIG)


class StoredSearchVector(Expression):
    """`meetings_agendaitem.search_vector`, the stored (generated) `agenda_search_vector()` of migration 0003, on
    PostgreSQL. Not a model field: only PostgreSQL has it, and nothing but search reads it. It names the column of
    the query's own agenda-item table, whatever alias a subquery gives it (`U0`)."""

    output_field = SearchVectorField()

    def as_sql(self, compiler, connection):
        alias = compiler.query.get_initial_alias()
        return f"{compiler.quote_name_unless_alias(alias)}.{connection.ops.quote_name('search_vector')}", []


def matching_agenda_items(text: str, *, using: str = "default") -> QuerySet[AgendaItem]:
    """Agenda items matching `text`, with a `rank` (higher is better).

    PostgreSQL: full-text search, `websearch_to_tsquery` syntax ("perma beta", "quoted phrase", -word, or),
    English stemming, served by the GIN index of the stored vector. Other databases: every word must appear
    (case-insensitive) in the title, notes or presenters; rank is 0. Either way `text` is first bounded
    (`bound_search_text`): PostgreSQL refuses some operator runs and very long phrases with an error, not an empty
    result.
    """
    text = bound_search_text(text)
    items = AgendaItem.objects.using(using).order_by()  # no default ordering: it joins meeting and SIG
    if connections[using].vendor == "postgresql":
        query = SearchQuery(text, search_type="websearch", config=SEARCH_CONFIG)
        vector = StoredSearchVector()
        return items.alias(search=vector).filter(search=query).annotate(rank=SearchRank(vector, query))
    for word in text.split():
        items = items.filter(Q(title__icontains=word) | Q(body__icontains=word) | Q(presenters_text__icontains=word))
    return items.annotate(rank=Value(0.0, output_field=FloatField()))


def search_agenda_items(queryset: QuerySet[Meeting], text: str) -> QuerySet[Meeting]:
    """Meetings with a matching agenda item, best match first; each meeting's `matches` lists those items."""
    items = matching_agenda_items(text, using=queryset.db)
    best = _best_rank(text, using=queryset.db)
    return (
        queryset.filter(pk__in=items.values("meeting_id"))
        .annotate(search_rank=Subquery(best))
        .order_by("-search_rank", "-date", "sig__slug")
        .prefetch_related(Prefetch("agenda_items", queryset=items.order_by("order"), to_attr="matches"))
    )


def _best_rank(text: str, *, using: str) -> Expression:
    """The rank of a meeting's best-matching agenda item, a subquery on the meeting (`OuterRef("pk")`).

    It reads the meeting's items through the meeting index and tests the match row by row (a CASE, not a WHERE):
    with the match in its WHERE, PostgreSQL may plan each of these subqueries (one per matching meeting) as a scan of
    the text index for every item that matches anywhere, ANDed with the meeting's items, which on the SIG Node
    archive ("kubelet": 3,700 items in 2,600 meetings) took 5 s instead of 0.16 s."""
    if connections[using].vendor != "postgresql":
        return Value(0.0, output_field=FloatField())  # no ranking without full-text search
    query = SearchQuery(bound_search_text(text), search_type="websearch", config=SEARCH_CONFIG)
    vector = StoredSearchVector()
    ranked = (
        AgendaItem.objects.using(using)
        .filter(meeting=OuterRef("pk"))
        .alias(search=vector)
        .annotate(
            rank=Case(When(search=query, then=SearchRank(vector, query)), default=Value(0.0), output_field=FloatField())
        )
    )
    return Subquery(ranked.order_by("-rank").values("rank")[:1])


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
