"""Public read-only pages: KEPs and design groups, and a SIG's meetings calendar.

Views parse the request, call one selector and render; the selectors hold the queries. The KEP pages whose data
the release team's tracking owns (perma-betas, feature gates, review load, slips) are in releases/kep_views.py; what
the releases and meetings add to a KEP's own page comes through core/panels.py.
"""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_safe
from django.views.generic import DetailView

from community.models import Sig
from core.panels import panel_context
from core.views import PublicListView

from . import ical, selectors, selectors_history
from .filtersets import (
    DesignGroupFilterSet,
    KepFilterSet,
)
from .models import DesignGroup
from .tables import (
    DesignGroupTable,
    KepTable,
    kep_list_url,
)

PAGE_SIZE = 50


class KepListView(PublicListView):
    filterset_class = KepFilterSet
    table_class = KepTable
    template_name = "keps/kep_list.html"
    export_name = "keps"
    paginate_by = PAGE_SIZE
    extra_context = {"nav": "keps"}

    def get_queryset(self):
        return selectors.kep_list()


class KepDetailView(DetailView):
    template_name = "keps/kep_detail.html"
    context_object_name = "kep"
    extra_context = {"nav": "keps"}

    def get_object(self, queryset=None):
        queryset = selectors_history.with_history_flag(selectors.kep_detail_queryset())
        return get_object_or_404(queryset, number=self.kwargs["number"])

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        kep = self.object
        plan_history = selectors_history.kep_plan_history(number=kep.number, imported=kep.plan_history_imported)
        context["plan_history"] = plan_history
        # Its releases (timeline, board row, checklist, exception requests) and meeting mentions come from the apps
        # above this one, which register them for this page (core/panels.py, SIGTRACKER_PAGE_PANELS).
        context.update(panel_context("keps:kep_detail", kep=kep, plan_history=plan_history))
        return context


class DesignGroupListView(PublicListView):
    filterset_class = DesignGroupFilterSet
    table_class = DesignGroupTable
    template_name = "keps/designgroup_list.html"
    export_name = "design-groups"
    paginate_by = PAGE_SIZE
    extra_context = {"nav": "design-groups"}

    def get_queryset(self):
        return selectors.design_group_list()


class DesignGroupDetailView(DetailView):
    template_name = "keps/designgroup_detail.html"
    context_object_name = "group"
    extra_context = {"nav": "design-groups"}

    def get_object(self, queryset=None):
        return get_object_or_404(DesignGroup.objects.prefetch_related("sigs"), slug=self.kwargs["slug"])

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["detail"] = selectors.design_group_detail(group=self.object)
        context["split_at"] = selectors.DESIGN_GROUP_SPLIT_AT
        context["keps_url"] = kep_list_url(design_group=self.object.slug)
        return context


@require_safe
def sig_meetings_calendar(request, slug):
    """One SIG's recurring meetings from sigs.yaml, as iCalendar."""
    sig = get_object_or_404(Sig, slug=slug)
    body = ical.sig_meetings_calendar(sig=sig, meetings=sig.regular_meetings.order_by("position"))
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{sig.slug}-meetings.ics"'
    return response
