"""FilterSet of the meetings list; its `q` is a full-text search over agenda items."""

import django_filters
from django import forms
from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector, SearchVectorField
from django.db import connections
from django.db.models import Expression, F, FloatField, Max, Prefetch, Q, QuerySet, Value

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
    PostgreSQL. Not a model field: only PostgreSQL has it, and nothing but search reads it.

    Without `relation` it names the column of the query's own agenda-item table, whatever alias a subquery gives it
    (`U0`). With `relation` (a path from the query's model to agenda items, such as "agenda_items") it names the
    column of the joined agenda-item table that path sets up, so a meeting query can rank by its items in a join."""

    output_field = SearchVectorField()

    def __init__(self, relation: str = ""):
        super().__init__()
        self.relation = relation
        self.column = None  # the joined table's primary key column, once resolved against a query

    def get_source_expressions(self):
        return [self.column] if self.column is not None else []

    def set_source_expressions(self, exprs):
        if exprs:
            (self.column,) = exprs

    def resolve_expression(self, query=None, allow_joins=True, reuse=None, summarize=False, for_save=False):
        if not self.relation or self.column is not None:
            # Already resolved: a subquery's annotations are resolved again against the outer query (for its
            # OuterRefs), which must not set up a second join there.
            return super().resolve_expression(query, allow_joins, reuse, summarize, for_save)
        clone = self.copy()
        clone.column = F(f"{self.relation}__pk").resolve_expression(query, allow_joins, reuse, summarize, for_save)
        return clone

    def as_sql(self, compiler, connection):
        alias = self.column.alias if self.column is not None else compiler.query.get_initial_alias()
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
    """Meetings with a matching agenda item, best match first (`search_rank`: the rank of the meeting's best-matching
    item); each meeting's `matches` lists those items.

    PostgreSQL: one join of the meetings with their matching items, grouped by meeting, so every item is matched and
    ranked once. The rank used to be a subquery per matching meeting, which on the SIG Node archive ("kubelet": 3,700
    items in 2,600 meetings) cost more than the rest of the page's queries together. Counts annotated on the
    meetings must therefore be subqueries (as `meeting_list`'s are), and a sum over the result must select its
    meetings by primary key (`meetings.selectors.pr_flow_chart`), or the join would multiply them."""
    items = matching_agenda_items(text, using=queryset.db)
    matches = Prefetch("agenda_items", queryset=items.order_by("order"), to_attr="matches")
    if connections[queryset.db].vendor != "postgresql":  # no ranking without full-text search
        return (
            queryset.filter(pk__in=items.values("meeting_id"))
            .annotate(search_rank=Value(0.0, output_field=FloatField()))
            .order_by("-date", "sig__slug")
            .prefetch_related(matches)
        )
    query = SearchQuery(bound_search_text(text), search_type="websearch", config=SEARCH_CONFIG)
    return (
        queryset.alias(item_vector=StoredSearchVector("agenda_items"))
        .filter(item_vector=query)
        .annotate(search_rank=Max(SearchRank(F("item_vector"), query)))
        .order_by("-search_rank", "-date", "sig__slug")
        .prefetch_related(matches)
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
