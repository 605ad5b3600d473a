"""Reads for the meeting pages: the list (with search), its PR-flow chart, and one meeting."""

import datetime
from collections.abc import Sequence
from functools import cached_property

from django.db.models import (
    Count,
    Func,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    prefetch_related_objects,
)
from django.db.models.functions import Coalesce
from django.utils.safestring import SafeString

from core.charts import Series, line_bar_chart
from keps.models import Kep

from .filtersets import MeetingFilterSet
from .models import PR_FLOW_FIELDS, AgendaItem, Meeting
from .search import with_matches

#: Points on the PR-flow chart: about a year of weekly meetings.
CHART_POINTS = 52


class _PerMeeting(Subquery):
    """A subquery on the meeting (`OuterRef("pk")`) that adds nothing to a GROUP BY: a query that groups meetings
    (search, by meeting) already groups by that key. Django would otherwise keep it in the inner query of the
    page's COUNT(*), running it once per matching meeting only to be counted."""

    def get_group_by_cols(self):
        return []


def meeting_list(*, filters: dict | None = None) -> QuerySet[Meeting]:
    """Meetings newest first with their agenda-item count; `filters` (query parameters) applies MeetingFilterSet."""
    # A subquery rather than Count() over a join: search joins the matching items (and groups by meeting). An
    # aggregate with no GROUP BY, so it is one row, 0 for a meeting with no items, with no COALESCE around it: a
    # COALESCE would be put in the search's GROUP BY, running the subquery for every matching item.
    item_count = (
        AgendaItem.objects.filter(meeting=OuterRef("pk"))
        .order_by()
        .annotate(n=Func("pk", function="COUNT", output_field=IntegerField()))
        .values("n")
    )
    queryset = (
        Meeting.objects.select_related("sig")
        .annotate(item_count=_PerMeeting(item_count, output_field=IntegerField()))
        .order_by("-date", "sig__slug")
    )
    if filters is None:
        return queryset
    return MeetingFilterSet(filters, queryset=queryset).qs


class MeetingSearchResults:
    """The meetings of one search (`matched`: `meeting_list` filtered by MeetingFilterSet with a `q`), matched once.

    Counting the queryset, showing a page of it and charting it would each match and rank every agenda item again
    (with the SIG Node archive, "kubelet": 3,700 items in 2,600 meetings, each match 10-25 ms). Here `matched` is
    read once, as narrow rows (primary key, rank, date and PR figures of every matching meeting, in the
    list's order): the count, the chart and which meetings a page shows come from those rows, and the page's
    meetings are then read by primary key from `shown` (the list without the filters: the rows already applied
    them), with their matching items.

    The view's paginator and the django-tables2 table take it for a queryset: `count()`, slicing (a page read when
    first used), `order_by()` (a column sort: the rows read again in that order, the count kept), and iteration (a
    CSV export: `matched` read in full, as the queryset itself would be).
    """

    #: Enough of every matching meeting to order, count and chart them.
    ROW_FIELDS = ("pk", "search_rank", "date", "open_prs", "prs_created", "prs_merged")

    model = Meeting
    ordered = True

    def __init__(self, matched: QuerySet[Meeting], *, shown: QuerySet[Meeting], text: str, count: int | None = None):
        self.matched, self.shown, self.text = matched, shown, text
        self._count = count

    @property
    def query(self):
        # What django-tables2 reads the data's ordering from.
        return self.matched.query

    @cached_property
    def rows(self) -> list[tuple]:
        """(pk, search_rank, date, open_prs, prs_created, prs_merged) of every matching meeting, in order."""
        return list(self.matched.prefetch_related(None).values_list(*self.ROW_FIELDS))

    def count(self) -> int:
        return self._count if self._count is not None else len(self.rows)

    def __len__(self) -> int:
        return self.count()

    def order_by(self, *fields) -> "MeetingSearchResults":
        return MeetingSearchResults(
            self.matched.order_by(*fields), shown=self.shown, text=self.text, count=self.count()
        )

    def __iter__(self):
        return iter(self.matched)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _Page(lambda: self._meetings(self.rows[key]))
        return self._meetings([self.rows[key]])[0]

    def _meetings(self, rows: list[tuple]) -> list[Meeting]:
        found = with_matches(self.shown, self.text).in_bulk([row[0] for row in rows])
        meetings = []
        for pk, rank, *_ in rows:
            if pk in found:  # else deleted since the rows were read
                found[pk].search_rank = rank
                meetings.append(found[pk])
        return meetings

    def pr_flow_by_date(self, *, points: int) -> list[dict]:
        """`_pr_flow_by_date` of these meetings, summed from the rows as SQL's SUM would (a figure no meeting of
        the date has stays None)."""
        sums: dict[datetime.date, list[int | None]] = {}
        for _, _, date, *figures in self.rows:
            if all(figure is None for figure in figures):
                continue
            total = sums.setdefault(date, [None] * len(figures))
            for index, figure in enumerate(figures):
                if figure is not None:
                    total[index] = (total[index] or 0) + figure
        dates = sorted(sums)[-points:]
        return [dict(zip(("date", "open", "created", "merged"), (date, *sums[date]), strict=True)) for date in dates]


class _Page(Sequence):
    """A page of search results, read when first used: Django's paginator cuts a page that only the table shows."""

    def __init__(self, read):
        self._read = read

    @cached_property
    def _meetings(self) -> list[Meeting]:
        return self._read()

    def __getitem__(self, key):
        return self._meetings[key]

    def __iter__(self):
        return iter(self._meetings)

    def __len__(self) -> int:
        return len(self._meetings)


def meeting_search_results(*, matched: QuerySet[Meeting], shown: QuerySet[Meeting], text: str) -> MeetingSearchResults:
    """The search results page, count and chart of `matched` with the search matched once (MeetingSearchResults);
    `shown` is the list the page's meetings are read from (`meeting_list()`, with the columns the page shows)."""
    return MeetingSearchResults(matched, shown=shown, text=text)


def pr_flow_chart(*, meetings: "QuerySet[Meeting] | MeetingSearchResults", points: int = CHART_POINTS) -> SafeString:
    """Open PRs (line) and PRs created / merged that week (bars) of the latest `points` meeting dates with
    figures. Meetings of several SIGs on one date are added together."""
    if isinstance(meetings, MeetingSearchResults):
        rows = meetings.pr_flow_by_date(points=points)
    else:
        rows = _pr_flow_by_date(meetings, points=points)
    if not rows:
        return SafeString("")
    return line_bar_chart(
        title="Open PRs and weekly PR flow",
        labels=[row["date"].isoformat() for row in rows],
        dates=[row["date"] for row in rows],
        bars="overlaid",
        series=[
            Series("PRs created that week", [row["created"] for row in rows], kind="bar"),
            Series("PRs merged that week", [row["merged"] for row in rows], kind="bar"),
            Series("Open PRs", [row["open"] for row in rows], kind="line"),
        ],
    )


def _pr_flow_by_date(meetings: QuerySet[Meeting], *, points: int) -> list[dict]:
    """The chart's points, oldest first: per date with figures, each figure summed over the date's meetings
    (NULL when none has it)."""
    has_figures = Q(open_prs__isnull=False) | Q(prs_created__isnull=False) | Q(prs_merged__isnull=False)
    # The meetings by primary key: search results join their matching items, which a sum over them would count once
    # per item.
    rows = list(
        Meeting.objects.filter(pk__in=meetings.order_by().values("pk"))
        .filter(has_figures)
        .order_by()
        .values("date")
        .annotate(open=Sum("open_prs"), created=Sum("prs_created"), merged=Sum("prs_merged"))
        .order_by("-date")[:points]
    )
    rows.reverse()
    return rows


def meeting_detail(*, sig: str, date: datetime.date) -> Meeting | None:
    """One meeting with its agenda in order: presenters, KEPs and the release each item refers to."""
    items = AgendaItem.objects.select_related("related_release").prefetch_related(
        "presenters", Prefetch("keps", queryset=Kep.objects.only("pk", "number", "title"))
    )
    return (
        Meeting.objects.select_related("sig")
        .prefetch_related(Prefetch("agenda_items", queryset=items.order_by("order")))
        .filter(sig__slug=sig, date=date)
        .first()
    )


def meeting_neighbours(*, meeting: Meeting) -> tuple[Meeting | None, Meeting | None]:
    """The SIG's previous and next meetings."""
    same_sig = Meeting.objects.filter(sig_id=meeting.sig_id).select_related("sig")
    previous = same_sig.filter(date__lt=meeting.date).order_by("-date").first()
    following = same_sig.filter(date__gt=meeting.date).order_by("date").first()
    return previous, following


PR_FLOW_LABELS = {
    "open_prs": "Open PRs at the meeting",
    "prs_created": "PRs created that week",
    "prs_updated": "PRs updated that week",
    "prs_closed": "PRs closed that week",
    "prs_merged": "PRs merged that week",
}


def pr_flow_rows(meeting: Meeting) -> list[tuple[str, int | None]]:
    """(label, value) of each PR-flow figure of the meeting, in the notes' order."""
    return [(PR_FLOW_LABELS[name], getattr(meeting, name)) for name in PR_FLOW_FIELDS]


# -- meetings of a release's cycle (release pages) ---------------------------------------------------------------------


def _agenda_item_count() -> Coalesce:
    """Agenda items of each meeting, as a correlated subquery: computed for the returned rows only, where a
    JOIN + GROUP BY would aggregate every meeting in the table before the LIMIT."""
    items = AgendaItem.objects.filter(meeting=OuterRef("pk")).order_by().values("meeting").annotate(n=Count("pk"))
    return Coalesce(Subquery(items.values("n"), output_field=IntegerField()), Value(0))


def meetings_between(*, start: datetime.date | None, end: datetime.date | None, limit: int = 20):
    """Meetings held from `start` to `end` (inclusive), newest first: `(at most limit rows, total count)`."""
    if start is None or end is None:
        return [], 0
    queryset = Meeting.objects.filter(date__gte=start, date__lte=end)
    rows = list(
        queryset.select_related("sig").annotate(item_count=_agenda_item_count()).order_by("-date", "sig__slug")[:limit]
    )
    return rows, queryset.count()


def meeting_latest(*, on_or_before: datetime.date) -> Meeting | None:
    """The most recent meeting held (not cancelled) on or before a day, with its agenda-item count."""
    return (
        Meeting.objects.filter(date__lte=on_or_before, cancelled=False)
        .select_related("sig")
        .annotate(item_count=_agenda_item_count())
        .order_by("-date", "sig__slug")
        .first()
    )


# -- a KEP's page ---------------------------------------------------------------------------------------------------


#: Agenda items listed on a KEP's page; the rest are one click away on the filtered meetings list.
KEP_MENTIONS_SHOWN = 50


def kep_mentions(*, kep: Kep, limit: int = KEP_MENTIONS_SHOWN) -> tuple[list[AgendaItem], int]:
    """The newest `limit` agenda items that mention the KEP, and how many there are in all."""
    items = AgendaItem.objects.filter(keps=kep)
    shown = list(items.select_related("meeting__sig").order_by("-meeting__date", "order")[:limit])
    return shown, items.count()


def perma_beta_enrich(*, rows) -> None:
    """Add authors, feature gates and the latest meeting mention to the KEPs of `rows` (three queries)."""
    keps = [row.kep for row in rows]
    if not keps:
        return
    prefetch_related_objects(keps, "feature_gates", "authors")
    latest_item = AgendaItem.objects.filter(keps=OuterRef("pk")).order_by("-meeting__date", "-meeting_id")
    meeting_of = dict(
        Kep.objects.filter(pk__in=[k.pk for k in keps])
        .order_by()  # read into a dict: KEP order would walk the number index past every other KEP
        .annotate(meeting_id=Subquery(latest_item.values("meeting_id")[:1]))
        .values_list("pk", "meeting_id")
    )
    meetings = (
        Meeting.objects.select_related("sig").only("date", "sig__slug").in_bulk(set(meeting_of.values()) - {None})
    )
    for kep in keps:
        meeting = meetings.get(meeting_of.get(kep.pk))
        kep.last_mention_date = meeting.date if meeting else None
        kep.last_mention_sig = meeting.sig.slug if meeting else ""
