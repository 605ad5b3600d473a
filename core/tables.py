"""Base class for every django-tables2 table of the site."""

import django_tables2 as tables

#: What a spreadsheet reads as the start of a formula (OWASP "CSV Injection"): `=HYPERLINK("http://evil",…)`
#: in a KEP title (from the admin, the ORM or a kep.yaml) would run when a curator opens the export (issue 17 E).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_formula(value):
    """A cell value a spreadsheet shows as typed: text starting with a formula trigger gets a leading `'`, as
    OWASP recommends; numbers, dates and other text are returned unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


class BaseTable(tables.Table):
    """Shared look and behaviour: the site's table template, an empty state that says something, and exports whose
    cells cannot be formulas."""

    class Meta:
        template_name = "django_tables2/table.html"
        attrs = {"class": "data-table"}
        empty_text = "Nothing matches these filters."

    def as_values(self, exclude_columns=None):
        # Every export (`?_export=csv` of every list page) reads its cells here, so this is the one place that
        # neutralises them; the rendered HTML page is left alone (templates escape it, and nothing evaluates it).
        for row in super().as_values(exclude_columns=exclude_columns):
            yield [neutralise_formula(value) for value in row]
