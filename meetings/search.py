"""Agenda-item search, the `q` of the meetings page and of the API: the items matching a visitor's text, and the
meetings holding them, best match first. What each database does with the text is `core.db.text_search`'s."""

from django.db.models import Prefetch, QuerySet

from core.db.text_search import TextSearch

from .models import AgendaItem, Meeting

#: On PostgreSQL `meetings_agendaitem.search_vector` (migration 0003) stores `AGENDA_SEARCH.vector()`: these
#: fields in this order, English stemming; a plain query's words match as prefixes ("retro" finds "retrospective").
#: SQLite matches the same fields word by word, each word (cut to a crude stem) anywhere in a word.
AGENDA_SEARCH = TextSearch(
    fields=("title", "body", "presenters_text"), column="search_vector", config="english", prefix=True
)


def matching_agenda_items(text: str, *, using: str = "default") -> QuerySet[AgendaItem]:
    """Agenda items matching `text`, with a `rank` (higher is better; 0 on SQLite)."""
    items = AgendaItem.objects.using(using).order_by()  # no default ordering: it joins meeting and SIG
    return AGENDA_SEARCH.matching(items, text)


def agenda_items_matching(queryset: QuerySet[AgendaItem], text: str) -> QuerySet[AgendaItem]:
    """The agenda items of `queryset` matching `text`, best match first, then the newest meeting's (`rank`)."""
    return AGENDA_SEARCH.matching(queryset, text).order_by("-rank", "-meeting__date", "-meeting_id", "order")


def search_agenda_items(queryset: QuerySet[Meeting], text: str) -> QuerySet[Meeting]:
    """Meetings with a matching agenda item, best match first (`search_rank`: the rank of the meeting's
    best-matching item; every rank is 0 on SQLite, so there the newest come first), each with its `matches`.

    Counts annotated on the meetings must be subqueries (as `meeting_list`'s are), and a sum over the result must
    select its meetings by primary key: on PostgreSQL the meetings are joined with their matching items."""
    ranked = AGENDA_SEARCH.ranked_by_related(queryset, "agenda_items", text, rank="search_rank")
    return with_matches(ranked.order_by("-search_rank", "-date", "sig__slug"), text)


def with_matches(queryset: QuerySet[Meeting], text: str) -> QuerySet[Meeting]:
    """Each meeting with its `matches`: its agenda items matching `text`, in agenda order, with what the meetings
    table shows of them (anchor and title)."""
    items = matching_agenda_items(text, using=queryset.db).only("meeting_id", "order", "title").order_by("order")
    return queryset.prefetch_related(Prefetch("agenda_items", queryset=items, to_attr="matches"))
