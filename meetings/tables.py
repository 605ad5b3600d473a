"""Table of the meetings list."""

import django_tables2 as tables

from core.tables import BaseTable

from .models import Meeting


class MeetingTable(BaseTable):
    date = tables.DateColumn(format="Y-m-d", linkify=True)
    sig = tables.Column(verbose_name="SIG", accessor="sig__slug")
    cancelled = tables.BooleanColumn(yesno="cancelled,—")
    item_count = tables.Column(verbose_name="Agenda items")
    open_prs = tables.Column(verbose_name="Open PRs")
    prs_created = tables.Column(verbose_name="PRs created")
    prs_merged = tables.Column(verbose_name="PRs merged")
    prs_closed = tables.Column(verbose_name="PRs closed")
    matches = tables.Column(accessor="pk", verbose_name="Matching agenda items", orderable=False, empty_values=())

    class Meta(BaseTable.Meta):
        model = Meeting
        fields = (
            "date",
            "sig",
            "title",
            "cancelled",
            "item_count",
            "open_prs",
            "prs_created",
            "prs_merged",
            "prs_closed",
            "matches",
        )
        template_name = "meetings/tables/meetings.html"
        empty_text = "No meetings match. Clear the search or filters, or import a SIG's meeting notes."

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # "Matching agenda items" only means something on search results; the view excludes it otherwise.
        self.show_matches = "matches" not in (self.exclude or ())

    def value_matches(self, record):
        return "; ".join(item.title for item in getattr(record, "matches", []))
