"""Public read-only meeting pages: the searchable list with its PR-flow chart, and one meeting."""

import datetime

from django.http import Http404
from django.views.generic import TemplateView

from core.text import bound_search_text
from core.views import PublicListView

from . import selectors
from .filtersets import MeetingFilterSet
from .tables import MeetingTable


class MeetingListView(PublicListView):
    filterset_class = MeetingFilterSet
    table_class = MeetingTable
    template_name = "meetings/meeting_list.html"
    export_name = "meetings"
    paginate_by = 50
    extra_context = {"nav": "meetings"}

    #: What the table, its links and its CSV read of a meeting and its SIG. Search sorts and groups the matching
    #: meetings' rows by meeting: carrying every column (the SIG's mission, the meeting's URLs) through that sort made
    #: it a fifth slower on the SIG Node archive.
    columns = ("date", "title", "cancelled", "open_prs", "prs_created", "prs_merged", "prs_closed", "sig__slug")

    def get_queryset(self):
        return selectors.meeting_list().only(*self.columns)

    def searching(self) -> bool:
        # The filter's own test: `?q=---` holds nothing searchable, so it lists meetings, not search results.
        return bool(bound_search_text(self.request.GET.get("q", "")))

    def get_table_kwargs(self):
        # The "matching agenda items" column only means something on search results.
        return {} if self.searching() else {"exclude": ("matches",)}

    def get_context_data(self, **kwargs):
        if self.searching() and self.filterset.is_valid():
            # The count, the page and the chart from one match of the agenda items.
            self.object_list = kwargs["object_list"] = selectors.meeting_search_results(
                matched=self.object_list, shown=self.get_queryset(), text=self.filterset.form.cleaned_data["q"]
            )
        context = super().get_context_data(**kwargs)
        context["chart"] = selectors.pr_flow_chart(meetings=self.object_list)
        context["searching"] = self.searching()
        return context


class MeetingDetailView(TemplateView):
    template_name = "meetings/meeting_detail.html"
    extra_context = {"nav": "meetings"}

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        try:
            date = datetime.date.fromisoformat(self.kwargs["date"])
        except ValueError as exc:
            raise Http404("Not a date: use YYYY-MM-DD.") from exc
        meeting = selectors.meeting_detail(sig=self.kwargs["sig"], date=date)
        if meeting is None:
            raise Http404("No meeting of this SIG on this date.")
        previous, following = selectors.meeting_neighbours(meeting=meeting)
        context.update(
            meeting=meeting,
            items=list(meeting.agenda_items.all()),
            pr_flow=selectors.pr_flow_rows(meeting),
            previous=previous,
            following=following,
        )
        return context
