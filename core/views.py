"""Site-level views."""

from django.http import HttpResponseServerError, JsonResponse
from django.template import loader
from django.views.decorators.cache import never_cache
from django_filters.views import FilterView
from django_tables2 import SingleTableMixin
from django_tables2.data import TableQuerysetData
from django_tables2.export.views import ExportMixin

from .health import site_health
from .logs import current_request_id


@never_cache
def healthz(request):
    """The state of the database, the broker and beat; 503 only when the database is down (core/health.py)."""
    status, body = site_health()
    return JsonResponse(body, status=status)


def server_error(request):
    """The 500 page, with the request's id (also in the X-Request-ID header and on the request's log lines) for the
    user to quote. Rendered without context processors: they may need what just failed."""
    body = loader.get_template("500.html").render({"request_id": current_request_id()})
    return HttpResponseServerError(body)


class SafeSingleTableMixin(SingleTableMixin):
    """SingleTableMixin whose `page`, `per_page` and `sort` query parameters cannot break the page.

    django-tables2 passes `?per_page=` straight to the paginator, where 0 or a negative number raises; here junk
    falls back to the default, and sizes are clamped to 1..MAX_PER_PAGE (a huge page would be a slow page). A
    `?sort=` part naming no column of the table is dropped: django-tables2 would parse it as an accessor path
    first (and warns about a '.' in it) only to ignore it.
    """

    MAX_PER_PAGE = 200

    def get_table(self, **kwargs):
        query = self.request.GET
        fixed = query.copy()
        for name in ("per_page", "page"):
            if name not in query:
                continue
            try:
                value = int(query[name])
            except ValueError:
                del fixed[name]
                continue
            upper = self.MAX_PER_PAGE if name == "per_page" else 10**6
            fixed[name] = str(min(max(value, 1), upper))
        sort = self.get_table_class()._meta.order_by_field
        if sort in query:
            columns = self.get_table_class().base_columns
            known = [part for part in query[sort].split(",") if part.strip().removeprefix("-") in columns]
            if known:
                fixed[sort] = ",".join(known)
            else:
                del fixed[sort]
        if fixed != query:
            self.request.GET = fixed
        return super().get_table(**kwargs)


class CsvExportMixin(ExportMixin):
    """`?_export=csv` downloads the filtered table. CSV only: ExportMixin would accept any tablib format, and some
    (xlsx, ods) need packages that are not installed; any other value just shows the page."""

    export_formats = ("csv",)

    def render_to_response(self, context, **kwargs):
        export_format = self.request.GET.get(self.export_trigger_param)
        if export_format in self.export_formats:
            return self.create_export(export_format)
        return super(ExportMixin, self).render_to_response(context, **kwargs)


class PublicListView(CsvExportMixin, SafeSingleTableMixin, FilterView):
    """Base of every public list page: a django-filter FilterSet, a django-tables2 table with safe paging,
    and CSV export of the filtered rows."""

    def paginate_queryset(self, queryset, page_size):
        paginated = super().paginate_queryset(queryset, page_size)
        # The table pages the same rows again with a paginator of its own: it is given this count (below) instead
        # of asking the database a second time (a COUNT(*) of the filtered rows, 5-8 ms on search and the KEP list).
        self._counted = (queryset, paginated[0].count)
        return paginated

    def get_table_data(self):
        data = super().get_table_data()
        self._table_source = data
        return data

    def get_table_pagination(self, table):
        counted = getattr(self, "_counted", None)
        same_rows = counted is not None and counted[0] is getattr(self, "_table_source", None)
        if same_rows and isinstance(table.data, TableQuerysetData):
            table.data._length = counted[1]
        return super().get_table_pagination(table)
