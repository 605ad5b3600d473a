"""Reads for the meeting pages: the list (with search), its PR-flow chart, and one meeting."""

import datetime

from django.db.models import (
    Count,
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

#: Points on the PR-flow chart: about a year of weekly meetings.
CHART_POINTS = 52


def meeting_list(*, filters: dict | None = None) -> QuerySet[Meeting]:
    """Meetings newest first with their agenda-item count; `filters` (query parameters) applies MeetingFilterSet."""
    # A subquery rather than Count() over a join: the search and KEP filters add joins of their own.
    item_count = (
        AgendaItem.objects.filter(meeting=OuterRef("pk"))
        .order_by()
        .values("meeting")
        .annotate(n=Count("pk"))
        .values("n")
    )
    queryset = (
        Meeting.objects.select_related("sig")
        .annotate(item_count=Coalesce(Subquery(item_count, output_field=IntegerField()), 0))
        .order_by("-date", "sig__slug")
    )
    if filters is None:
        return queryset
    return MeetingFilterSet(filters, queryset=queryset).qs


def pr_flow_chart(*, meetings: QuerySet[Meeting], points: int = CHART_POINTS) -> SafeString:
    """Open PRs (line) and PRs created / merged that week (bars) of the latest `points` meeting dates with
    figures. Meetings of several SIGs on one date are added together."""
    has_figures = Q(open_prs__isnull=False) | Q(prs_created__isnull=False) | Q(prs_merged__isnull=False)
    rows = list(
        meetings.filter(has_figures)
        .order_by()
        .values("date")
        .annotate(open=Sum("open_prs"), created=Sum("prs_created"), merged=Sum("prs_merged"))
        .order_by("-date")[:points]
    )
    rows.reverse()
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
