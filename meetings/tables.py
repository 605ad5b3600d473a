"""Table of the meetings list."""

import django_tables2 as tables
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe

from core.markdown_inline import render_inline_markdown
from core.tables import BaseTable

from .models import Meeting

CANCELLED = mark_safe('<span class="badge bad">cancelled</span>')  # noqa: S308 - constants
LINE_BREAK = mark_safe("<br>")  # noqa: S308


def _meeting_href(record, table) -> str:
    """The meeting's page, as `Meeting.get_absolute_url()` gives it, without a URL resolution per row."""
    return f"{table.reverse_once('meetings:meeting_list')}{record.sig.slug}/{record.date.isoformat()}/"


class MeetingTable(BaseTable):
    # A plain column with a render_ method: DateColumn compiles a template for every cell.
    date = tables.Column(linkify=_meeting_href, attrs={"td": {"class": "nowrap"}})
    sig = tables.Column(verbose_name="SIG", accessor="sig__slug", attrs={"td": {"class": "nowrap"}})
    cancelled = tables.Column()
    item_count = tables.Column(verbose_name="Agenda items")
    open_prs = tables.Column(verbose_name="Open PRs")
    prs_created = tables.Column(verbose_name="PRs created")
    prs_merged = tables.Column(verbose_name="PRs merged")
    prs_closed = tables.Column(verbose_name="PRs closed")
    # "Matching agenda items" only means something on search results; the view excludes it otherwise.
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
        empty_text = "No meetings match. Clear the search or filters, or import a SIG's meeting notes."

    def render_date(self, value):
        return value.isoformat()

    def render_cancelled(self, value):
        return CANCELLED if value else "—"

    def render_matches(self, record):
        url = _meeting_href(record, self)
        return format_html_join(
            LINE_BREAK,
            '<a href="{}#item-{}">{}</a>',
            (
                (url, item.order, render_inline_markdown(item.title, links=False))
                for item in getattr(record, "matches", [])
            ),
        )

    def value_date(self, value):
        return value.isoformat()

    def value_cancelled(self, value):
        return str(bool(value))  # as the BooleanColumn this was exported it: "True" / "False"

    def value_matches(self, record):
        return "; ".join(item.title for item in getattr(record, "matches", []))
