"""Base class for every django-tables2 table of the site."""

import django_tables2 as tables


class BaseTable(tables.Table):
    """Shared look and behaviour: the site's table template, and an empty state that says something."""

    class Meta:
        template_name = "django_tables2/table.html"
        attrs = {"class": "data-table"}
        empty_text = "Nothing matches these filters."
