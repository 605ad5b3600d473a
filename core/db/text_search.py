"""Full-text search over some text columns of a table. PostgreSQL: the columns' words stemmed, the websearch syntax
("a phrase", `or`, -word) and a rank, read from a stored tsvector column of the table that a GIN index serves.
With `prefix`, a plain query (words only, no "phrase", `or` or -word) matches each word as a prefix of a stemmed
word ("retro" finds "retrospective"). SQLite (the demo, the fast test lane): every word must appear,
case-insensitively, in one of the columns (so a word matches as a part of one), and every rank is 0; with
`prefix`, a long word is first cut to a crude stem ("retrospectives" finds "retrospective"). Either way the
visitor's text is first bounded (`core.text.bound_search_text`): PostgreSQL refuses some operator runs and very long
phrases with an error, not an empty result.
"""

import re
from dataclasses import dataclass

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector, SearchVectorField
from django.db import connections
from django.db.models import Expression, F, FloatField, Max, Q, QuerySet, Value
from django.db.models.functions import Cast

from core.text import bound_search_text

__all__ = ["StoredSearchVector", "TextSearch"]

#: The websearch syntax's operators: a text using any is read as websearch, not word by word.
_OPERATORS = re.compile(r'"|(^|\s)-\S|(^|\s)or(\s|$)', re.IGNORECASE)
#: A word that can be a prefix in a raw tsquery: letters and digits only (no operator, quote or colon).
_PLAIN_WORD = re.compile(r"[^\W_]+")
#: English endings cut from a word (of 4 letters or more left) for SQLite's substring match.
_ENDINGS = ("ives", "ive", "ings", "ing", "ions", "ion", "ed", "es", "s")
#: At most this many words in a prefix query (the text is bounded already; this bounds the tsquery too).
_MAX_WORDS = 32


def _exact(rank: Expression) -> Cast:
    """A rank as double precision: ts_rank's float4 read into Python and written back into a query (a cursor's
    position) compares equal to itself only at the same precision."""
    return Cast(rank, FloatField())


def crude_stem(word: str) -> str:
    """A word without a common English ending ("retrospectives" -> "retrospect"), for a substring match."""
    lowered = word.lower()
    for ending in _ENDINGS:
        if lowered.endswith(ending) and len(lowered) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


class StoredSearchVector(Expression):
    """A stored tsvector column (`column`) on PostgreSQL. Not a model field: only PostgreSQL has it, and nothing but
    search reads it.

    Without `relation` it names the column of the query's own table, whatever alias a subquery gives it (`U0`).
    With `relation` (a path from the query's model to the table holding the column, such as "agenda_items") it
    names the column of the joined table that path sets up, so a query can rank its rows by their related rows'
    matches in one join."""

    output_field = SearchVectorField()

    def __init__(self, relation: str = "", *, column: str = "search_vector"):
        super().__init__()
        self.relation = relation
        self.column_name = column
        self.joined = None  # the joined table's primary key, once resolved against a query

    def get_source_expressions(self):
        return [self.joined] if self.joined is not None else []

    def set_source_expressions(self, exprs):
        if exprs:
            (self.joined,) = exprs

    def resolve_expression(self, query=None, allow_joins=True, reuse=None, summarize=False, for_save=False):
        if not self.relation or self.joined is not None:
            # Already resolved: a subquery's annotations are resolved again against the outer query (for its
            # OuterRefs), which must not set up a second join there.
            return super().resolve_expression(query, allow_joins, reuse, summarize, for_save)
        clone = self.copy()
        clone.joined = F(f"{self.relation}__pk").resolve_expression(query, allow_joins, reuse, summarize, for_save)
        return clone

    def as_sql(self, compiler, connection):
        alias = self.joined.alias if self.joined is not None else compiler.query.get_initial_alias()
        return f"{compiler.quote_name_unless_alias(alias)}.{connection.ops.quote_name(self.column_name)}", []


@dataclass(frozen=True)
class TextSearch:
    """Search over `fields` of one model. On PostgreSQL its table must hold `column`, a stored tsvector of exactly
    `vector()` (a generated column, with a GIN index), which is what the search reads."""

    fields: tuple[str, ...]
    column: str = "search_vector"
    config: str = "english"
    #: Match each word of a plain query as a prefix ("retro" finds "retrospective").
    prefix: bool = False

    def vector(self) -> SearchVector:
        """The tsvector `column` holds on PostgreSQL, as an expression."""
        return SearchVector(*self.fields, config=self.config)

    def _query(self, text: str) -> SearchQuery:
        """websearch syntax; with `prefix` and no operator in `text`, every word ANDed, a plain word as a prefix of
        a stemmed word (`retro:*`), any other token (`1.24`, `kube-proxy`) as the parser reads it."""
        words = text.split()
        if not self.prefix or not words or _OPERATORS.search(text):
            return SearchQuery(text, search_type="websearch", config=self.config)
        query = None
        for word in words[:_MAX_WORDS]:
            if _PLAIN_WORD.fullmatch(word):
                part = SearchQuery(f"{word}:*", search_type="raw", config=self.config)
            else:
                part = SearchQuery(word, search_type="plain", config=self.config)
            query = part if query is None else query & part
        return query

    def matching(self, queryset: QuerySet, text: str) -> QuerySet:
        """The rows of `queryset` matching `text`, each with a `rank` (higher is better)."""
        text = bound_search_text(text)
        if connections[queryset.db].vendor == "postgresql":
            query, vector = self._query(text), StoredSearchVector(column=self.column)
            return queryset.alias(search=vector).filter(search=query).annotate(rank=_exact(SearchRank(vector, query)))
        for word in text.split():
            word = crude_stem(word) if self.prefix else word
            queryset = queryset.filter(Q(*((f"{field}__icontains", word) for field in self.fields), _connector=Q.OR))
        return queryset.annotate(rank=Value(0.0, output_field=FloatField()))

    def ranked_by_related(self, queryset: QuerySet, relation: str, text: str, *, rank: str) -> QuerySet:
        """The rows of `queryset` with a matching row among `relation` (a reverse foreign key to the searched
        model), each once, annotated `rank`: the rank of its best-matching related row.

        PostgreSQL: one join of the rows with their matching related rows, grouped by row, so that every related
        row is matched and ranked once (a subquery per row would rank each row's matches again). Counts annotated on
        the rows must therefore be subqueries, and a sum over the result must select its rows by primary key, or
        the join would multiply them. SQLite: the rows whose primary key is among the matching rows' keys."""
        text = bound_search_text(text)
        if connections[queryset.db].vendor == "postgresql":
            query = self._query(text)
            return (
                queryset.alias(_matched_vector=StoredSearchVector(relation, column=self.column))
                .filter(_matched_vector=query)
                .annotate(**{rank: _exact(Max(SearchRank(F("_matched_vector"), query)))})
            )
        foreign_key = queryset.model._meta.get_field(relation).field
        related = foreign_key.model._default_manager.using(queryset.db).order_by()
        keys = self.matching(related, text).values(foreign_key.attname)
        return queryset.filter(**{f"{foreign_key.target_field.attname}__in": keys}).annotate(
            **{rank: Value(0.0, output_field=FloatField())}
        )
