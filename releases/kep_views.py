"""The KEP pages whose data the release team's tracking owns: perma-betas (counted against the current release),
the feature-gate ledger (stages reached on a board), review load per approver (in a release) and slips (planned
and tracked). They live above `keps`, under the `keps` URL names (sigtracker/urls.py adds `urlpatterns` below to
the `keps` namespace), and render the `keps/` templates; the meeting mentions of perma-beta rows come through
core/panels.py.

Views parse the request, call one selector and render; the selectors hold the queries.
"""

from django.urls import path

from core.panels import panel_functions
from core.views import PublicListView
from keps import selectors, selectors_history
from keps.filtersets import ApproverFilterSet, FeatureGateFilterSet, PermaBetaFilterSet, SlipFilterSet
from keps.tables import ApproverTable, FeatureGateTable, PermaBetaTable, SlipTable, kep_list_url

from . import selectors as release_selectors
from . import selectors_approvers, selectors_feature_gates, selectors_perma_beta
from . import selectors_plans as release_plans

PAGE_SIZE = 50


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
        for panel in panel_functions("keps:perma_beta"):
            panel(rows=rows)
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


#: Added to the `keps` URL namespace by sigtracker/urls.py (the names and paths these pages always had).
urlpatterns = [
    path("keps/slips/", SlipListView.as_view(), name="slip_list"),
    path("keps/perma-beta/", PermaBetaView.as_view(), name="perma_beta"),
    path("keps/feature-gates/", FeatureGateListView.as_view(), name="feature_gate_list"),
    path("keps/approvers/", ApproverListView.as_view(), name="approver_list"),
]
