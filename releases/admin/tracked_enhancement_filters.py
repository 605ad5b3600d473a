"""The freeze-day board's own list filters: by exception request, and a release filter whose "All" stays all."""

from django.contrib import admin
from django.db.models import Exists, OuterRef

from ..choices import ExceptionDecision, Freeze
from ..models import EnhancementException


class ExceptionListFilter(admin.SimpleListFilter):
    """Rows with an exception request in a given state (or none at all)."""

    title = "exception request"
    parameter_name = "exception"

    def lookups(self, request, model_admin):
        by_freeze = [(f"freeze:{value}", f"For {label}") for value, label in Freeze.choices]
        return [("none", "None"), *ExceptionDecision.choices, *by_freeze]

    def queryset(self, request, queryset):
        value = self.value()
        if not value:
            return queryset
        requests = EnhancementException.objects.filter(tracked_enhancement=OuterRef("pk"))
        if value == "none":
            return queryset.filter(~Exists(requests))
        if value.startswith("freeze:"):
            return queryset.filter(Exists(requests.filter(freeze=value.removeprefix("freeze:"))))
        return queryset.filter(Exists(requests.filter(decision=value)))


class ReleaseListFilter(admin.RelatedFieldListFilter):
    """The release filter of the freeze-day list, which opens on the current release: its "All" keeps an explicit
    `release__isnull=False`, so choosing every release is not taken for "nothing chosen" and sent back there."""

    def choices(self, changelist):
        everything, *others = super().choices(changelist)
        everything["query_string"] = changelist.get_query_string(
            {self.lookup_kwarg_isnull: "False"}, [self.lookup_kwarg]
        )
        everything["selected"] = self.lookup_val is None
        return [everything, *others]


#: The changelist's query parameter of the release filter (Django's for `release` with an exact id).
RELEASE_PARAM = "release__id__exact"
