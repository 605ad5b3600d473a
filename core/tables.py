"""Base class for every django-tables2 table of the site, and the fast writer of its rows."""

import django_tables2 as tables
from django.urls import reverse
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import template_localtime
from django_tables2.utils import AttributeDict, signature

#: What a spreadsheet reads as the start of a formula (OWASP "CSV Injection"): `=HYPERLINK("http://evil",…)`
#: in a KEP title (from the admin, the ORM or a kep.yaml) would run when a curator opens the export.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_formula(value):
    """A cell value a spreadsheet shows as typed: text starting with a formula trigger gets a leading `'`, as
    OWASP recommends; numbers, dates and other text are returned unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


class BaseTable(tables.Table):
    """Shared look and behaviour: the site's table template, an empty state that says something, and exports whose
    cells cannot be formulas.

    Cells come from the table's declarations as django-tables2 defines them (accessor, `get_FOO_display`, empty
    values and `default`, `render_<column>` methods, `linkify`, column `attrs["td"]`); `tbody_html` only writes them
    out faster than the stock template (see `_CellWriter`), so no page needs a hand-written copy of its cells.
    """

    class Meta:
        template_name = "core/tables/table.html"
        attrs = {"class": "data-table"}
        empty_text = "Nothing matches these filters."

    def reverse_once(self, viewname: str) -> str:
        """`reverse(viewname)`, worked out once per table: a link per row built on it (`/keps/` + `127/`) costs no
        URL resolution per row."""
        cache = self.__dict__.setdefault("_reversed", {})
        if viewname not in cache:
            cache[viewname] = reverse(viewname)
        return cache[viewname]

    def tbody_html(self) -> SafeString:
        """`<tbody>` with a `<tr>` per row of the page and a `<td>` per visible column, or the empty text."""
        writers = [_CellWriter(column) for column in self.columns]
        html = ["<tbody>\n"]
        for row in self.paginated_rows:
            html.append("<tr>")
            for writer in writers:
                html += (writer.td, writer.cell(row), "</td>")
            html.append("</tr>\n")
        if len(html) == 1 and self.empty_text:
            html.append(f'<tr><td colspan="{len(writers)}">{conditional_escape(self.empty_text)}</td></tr>\n')
        html.append("</tbody>")
        return mark_safe("".join(html))  # noqa: S308 - every cell and attribute is escaped above or by format_html

    def as_values(self, exclude_columns=None):
        # Every export (`?_export=csv` of every list page) reads its cells here, so this is the one place that
        # neutralises them; the rendered HTML page is left alone (templates escape it, and nothing evaluates it).
        for row in super().as_values(exclude_columns=exclude_columns):
            yield [neutralise_formula(value) for value in row]


class _CellWriter:
    """One column's cells, as django-tables2's `BoundRow.get_cell` and its stock `<td {{ column.attrs.td.as_html }}>
    {{ cell }}</td>` give them, with what is the same on every row worked out once per page.

    django-tables2 recomputes per cell the column's `<td>` attributes, the arguments its render method and link
    take (`inspect.signature`) and the link's attributes: about three quarters of a 50-row page's render time. The
    value lookup (`BoundRow._get_and_render_with`: accessor, `get_FOO_display`, empty values, `default`) is
    django-tables2's own. Column `attrs["td"]` and link `attrs` must therefore be plain values, not callables per
    record (none of the site's tables uses those).
    """

    _CELL_ARGUMENTS = ("value", "record", "column", "bound_column", "bound_row", "table")

    def __init__(self, bound_column):
        self.bound_column = bound_column
        attrs = bound_column.attrs["td"].as_html()
        self.td = f"<td {attrs}>" if attrs else "<td>"
        self.render, self.render_arguments = bound_column.render, self._arguments(bound_column.render)
        self.link = bound_column.link
        if self.link is not None:
            if self.link.attrs and any(callable(v) for v in self.link.attrs.values()):
                raise ValueError(f"column {bound_column.name}: link attrs computed per record are not supported")
            self.link_attrs = AttributeDict(self.link.attrs or {}).as_html()
            url = self.link.url
            self.url, self.url_arguments = (url, self._arguments(url)) if url and callable(url) else (None, None)
        self.localize = bound_column.column.localize

    @classmethod
    def _arguments(cls, function) -> tuple[str, ...] | None:
        """The cell arguments `function` takes (None: all of them, it has **kwargs); django-tables2's
        `call_with_appropriate` rule, decided once."""
        names, catch_all = signature(function)
        if catch_all:
            return None
        return tuple(name for name in names if name in cls._CELL_ARGUMENTS)

    def cell(self, row) -> str:
        def render(bound_column, value=None):
            return self._render(row, bound_column, value)

        return self._text(row._get_and_render_with(self.bound_column, render, self.bound_column.default))

    def _render(self, row, bound_column, value):
        kwargs = {
            "value": value,
            "record": row.record,
            "column": bound_column.column,
            "bound_column": bound_column,
            "bound_row": row,
            "table": bound_column._table,
        }
        content = self._call(self.render, self.render_arguments, kwargs)
        if self.link is None:
            return content
        href = self._call(self.url, self.url_arguments, kwargs) if self.url else self.link.compose_url(**kwargs)
        if href is None:
            return content
        # As django-tables2's LinkTransform writes it: the link's attributes, then href; the content escaped.
        attrs = f"{self.link_attrs} " if self.link_attrs else ""
        return mark_safe(f'<a {attrs}href="{conditional_escape(href)}">{conditional_escape(content)}</a>')  # noqa: S308

    def _text(self, value):
        """A cell value as `{{ cell }}` (with the column's `localize`) prints it: local time, localised, escaped."""
        if isinstance(value, str):
            return conditional_escape(value)
        value = template_localtime(value)
        if self.localize is None:
            return conditional_escape(localize(value))
        return conditional_escape(localize(value, use_l10n=self.localize))

    @staticmethod
    def _call(function, arguments, kwargs):
        if arguments is None:
            return function(**kwargs)
        return function(**{name: kwargs[name] for name in arguments})
