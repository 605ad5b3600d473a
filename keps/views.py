"""Public read-only pages: KEPs, feature gates, perma-betas, review load and design groups.

Views parse the request, call one selector and render; the selectors hold the queries.
"""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.views.decorators.http import require_safe
from django.views.generic import DetailView

from community.models import Sig
from core.views import PublicListView
from meetings import selectors as meeting_selectors
from releases import selectors as release_selectors
from releases import selectors_approvers, selectors_feature_gates, selectors_kep_timeline, selectors_perma_beta
from releases import selectors_plans as release_plans
from releases import selectors_published as release_published

from . import ical, selectors, selectors_history
from .filtersets import (
    ApproverFilterSet,
    DesignGroupFilterSet,
    FeatureGateFilterSet,
    KepFilterSet,
    PermaBetaFilterSet,
    SlipFilterSet,
)
from .models import DesignGroup
from .tables import (
    ApproverTable,
    DesignGroupTable,
    FeatureGateTable,
    KepTable,
    PermaBetaTable,
    SlipTable,
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
        mentions, mention_total = meeting_selectors.kep_mentions(kep=kep)
        timeline = selectors_kep_timeline.kep_timeline(kep=kep)
        plan_history = selectors_history.kep_plan_history(number=kep.number, imported=kep.plan_history_imported)
        release_plans.timeline_with_plans(timeline=timeline, history=plan_history)
        context.update(
            timeline=timeline,
            plan_history=plan_history,
            mentions=mentions,
            mention_total=mention_total,
            mentions_url=f"/meetings/?kep={kep.number}",
        )
        # The board's other columns and the enhancements team's checklist comment, for the latest release.
        requests = release_published.kep_exception_requests(kep=kep)
        board = release_selectors.kep_latest_board_row(kep=kep)
        context.update(
            exception_requests=requests,
            board_exceptions=[r for r in requests if board and r.tracked_enhancement_id == board.pk],
        )
        context.update(
            board=board,
            checklist=release_selectors.tracked_enhancement_checklist_due(tracked_enhancement=board, now=timezone.now())
            if board
            else "",
        )
        return context


class PermaBetaView(PublicListView):
    """The "no perma betas" list. `min_releases` defaults to 3 and is shown filled in."""

    filterset_class = PermaBetaFilterSet
    table_class = PermaBetaTable
    template_name = "keps/perma_beta.html"
    export_name = "perma-betas"
    paginate_by = PAGE_SIZE
    extra_context = {"nav": "perma-beta"}

    def get_queryset(self):
        return selectors.Kep.objects.none()

    def get_filterset_kwargs(self, filterset_class):
        kwargs = super().get_filterset_kwargs(filterset_class)
        data = self.request.GET.copy()
        if not data.get("min_releases"):
            data["min_releases"] = str(selectors_perma_beta.PERMA_BETA_DEFAULT_RELEASES)
        kwargs["data"] = data
        return kwargs

    def get_table_data(self):
        # Computed once per request: an export builds the table a second time.
        if not hasattr(self, "result"):
            valid = self.filterset.is_valid()
            self.result = selectors_perma_beta.perma_beta_list(filters=self.filterset.data) if valid else None
        return self.result.rows if self.result else []

    def get_table(self, **kwargs):
        table = super().get_table(**kwargs)
        # Authors, gates and latest mentions only for the rows shown (every row when exporting).
        exporting = self.request.GET.get(self.export_trigger_param) in self.export_formats
        rows = table.data if exporting else [row.record for row in table.paginated_rows]
        meeting_selectors.perma_beta_enrich(rows=[row for row in rows if not hasattr(row.kep, "last_mention_date")])
        return table

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["result"] = self.result
        return context


class SlipListView(PublicListView):
    """KEPs and SIGs ranked by slips: planned (kep.yaml history on master) beside tracked (the boards)."""

    filterset_class = SlipFilterSet
    table_class = SlipTable
    template_name = "keps/slip_list.html"
    export_name = "slips"
    paginate_by = PAGE_SIZE
    extra_context = {"nav": "keps"}

    def _range(self) -> tuple[str, str]:
        return self.request.GET.get("since", "").strip(), self.request.GET.get("until", "").strip()

    def get_queryset(self):
        since, until = self._range()
        return release_plans.slip_list(since=since, until=until)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        since, until = self._range()
        context["ranking"] = selectors_history.slip_ranking(keps=self.object_list, since=since, until=until)
        context["history_imported"] = selectors_history.plan_history_imported()
        return context


class FeatureGateListView(PublicListView):
    filterset_class = FeatureGateFilterSet
    table_class = FeatureGateTable
    template_name = "keps/featuregate_list.html"
    export_name = "feature-gates"
    paginate_by = PAGE_SIZE
    extra_context = {"nav": "feature-gates"}

    def get_queryset(self):
        return selectors_feature_gates.feature_gate_list()


class ApproverListView(PublicListView):
    """Review load: the KEPs each approver and PRR approver holds in one release (default: the current one)."""

    filterset_class = ApproverFilterSet
    table_class = ApproverTable
    template_name = "keps/approver_list.html"
    export_name = "approvers"
    paginate_by = PAGE_SIZE
    extra_context = {"nav": "approvers"}

    def get_queryset(self):
        return selectors.Kep.objects.none()

    def selection(self) -> tuple[object, object]:
        """(release, SIG or None) the request asks for; no release when the filters are invalid."""
        if not hasattr(self, "_selection"):
            if not self.filterset.is_bound:
                self._selection = (release_selectors.release_current(), None)
            elif self.filterset.is_valid():
                data = self.filterset.form.cleaned_data
                self._selection = (data.get("release") or release_selectors.release_current(), data.get("sig"))
            else:
                self._selection = (None, None)
        return self._selection

    def get_table_data(self):
        release, sig = self.selection()
        return selectors_approvers.approver_load(
            release=release, sig=sig, release_over=bool(release) and release_selectors.release_is_over(release=release)
        )

    def get_table_kwargs(self):
        release, _ = self.selection()
        return {"release_version": release.version if release else ""}

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        release, _ = self.selection()
        context["release"] = release
        context["release_over"] = bool(release) and release_selectors.release_is_over(release=release)
        context["release_keps_url"] = kep_list_url(release=release.version) if release else ""
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
