"""Public, read-only release pages: dashboard, release list and detail, tracked enhancements, calendars.

Views only parse the request, call selectors and render; stats are read from ReleaseStats, never computed here.
"""

import datetime

from django.http import Http404, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_safe
from django.views.generic import TemplateView
from django_tables2 import RequestConfig

from community.meeting_schedule import sig_next_meetings
from community.models import Sig
from core.charts import Series, line_bar_chart
from core.panels import panel_context
from core.views import PublicListView

from . import selectors, selectors_plans, selectors_published
from .choices import EnhancementStatus, ReleaseState, StatsSource
from .filtersets import ReleaseFilterSet, TrackedEnhancementFilterSet
from .ical import milestones_calendar
from .models import Release
from .rules import release_state_label, scope_label
from .services.board import weekly_update_markdown
from .tables import ReleaseTable, TrackedEnhancementTable


def _release_or_404(version: str) -> Release:
    # `<str:version>` lets `%00` through, and PostgreSQL refuses a NUL in a query: no release has one.
    if "\x00" in version:
        raise Http404("No such release.")
    try:
        return selectors.release_get(version=version)
    except Release.DoesNotExist:
        raise Http404(f"No release {version!r}.") from None


class DashboardView(TemplateView):
    """The current release, a countdown to its next freeze, what is at risk for it, open actions, latest meeting."""

    template_name = "releases/dashboard.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        now = timezone.now()
        cycle = Release.objects.current_cycle(now=now)
        release = cycle.release if cycle else None
        sig = None
        sig_slug = self.request.GET.get("sig", "").strip()
        sigs = list(Sig.objects.listed().order_by("slug"))
        if sig_slug:
            sig = next((s for s in sigs if s.slug == sig_slug), None)
        context.update(nav="releases", now=now, release=release, cycle=cycle, sigs=sigs, sig=sig, sig_slug=sig_slug)
        # Shown with or without a release: the SIGs' own meetings (sigs.yaml) do not depend on the cycle.
        context["next_meetings"] = sig_next_meetings(now=now)
        if release is None:
            return context
        freeze = selectors.next_freeze(release=release, now=now)
        at_risk, at_risk_total, at_risk_statuses = selectors.at_risk_for_milestone(
            release=release, milestone=freeze, sig=sig, limit=25
        )
        context.update(
            freeze=freeze,
            freeze_entry=selectors.ScheduleEntry(milestone=freeze, is_past=False) if freeze else None,
            countdown=_countdown(freeze.at - now) if freeze else None,
            at_risk=at_risk,
            at_risk_total=at_risk_total,
            at_risk_status_labels=[EnhancementStatus(s).label for s in at_risk_statuses],
            at_risk_query=at_risk_statuses[0] if len(at_risk_statuses) == 1 else "",
            stats=selectors.release_stats_get(release=release),
        )
        context.update(panel_context("releases:home", now=now, release=release))  # the latest meeting
        return context


class ReleaseListView(PublicListView):
    """Every release with its freezes and merge rate, and a chart of merge rate and tracked vs done."""

    table_class = ReleaseTable
    filterset_class = ReleaseFilterSet
    template_name = "releases/release_list.html"
    export_name = "releases"
    table_pagination = False

    def get_queryset(self):
        return selectors.release_list()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        releases = list(self.object_list)
        chart_data = selectors.release_chart_data(releases=releases)
        has_stats = any(value is not None for value in chart_data.tracked)
        chart = ""
        if has_stats:
            chart = line_bar_chart(
                title="Merge rate and tracked vs done enhancements per release",
                labels=[f"v{label}" for label in chart_data.labels],
                series=[
                    Series(name="Tracked", values=chart_data.tracked, kind="bar"),
                    Series(name="Done", values=chart_data.done, kind="bar"),
                    # Where a retro recorded its own tally too, both show, not one hiding the other.
                    *(
                        [
                            Series(name="Tracked (retro tally)", values=chart_data.recorded_tracked, kind="bar"),
                            Series(name="Done (retro tally)", values=chart_data.recorded_done, kind="bar"),
                        ]
                        if any(value is not None for value in chart_data.recorded_tracked)
                        else []
                    ),
                    Series(name="Merge rate", values=chart_data.merge_rate, kind="line", percent=True),
                ],
            )
        context.update(
            nav="releases",
            chart=chart,
            has_stats=has_stats,
            missing_stats=[
                r.version
                for r in releases
                if r.tracked is None and r.done is None and r.release_wide_known is not False
            ],
            # `rules.figures`: figures recorded for some SIGs only give no release-wide figure (not a zero).
            sigs_only=[
                (r.version, scope_label(sig=None, sigs_recorded=r.sigs_recorded, known=False))
                for r in releases
                if r.release_wide_known is False
            ],
            # Over with no freeze dated, or a history not saying where some stood then: what shipped is counted,
            # what was tracked at the freeze is not known.
            freezes_undated=[r.version for r in releases if r.freezes_undated and r.done is not None],
            standing_not_recorded=[
                r.version for r in releases if r.tracked is None and r.done is not None and not r.freezes_undated
            ],
        )
        return context


class ReleaseDetailView(TemplateView):
    """One release: schedule, funnel, tracked enhancements, retrospectives and the cycle's meetings."""

    template_name = "releases/release_detail.html"
    #: The detail page shows the first rows as an overview; the enhancements page has them all, with filters.
    enhancements_per_page = 15

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        release = _release_or_404(self.kwargs["version"])
        now = timezone.now()
        schedule = selectors.release_schedule(release=release, now=now)
        start, end = selectors.release_cycle_dates(release=release, schedule=schedule)
        stats, sig_stats = selectors.release_stats_all(release=release)
        board_counts = selectors.release_board_counts(release=release)
        table = self._enhancements_table(release, board_counts)
        context.update(
            nav="releases",
            release=release,
            now=now,
            schedule=schedule,
            cycle_start=start,
            cycle_end=end,
            stats=stats,
            sig_stats=sig_stats if stats else [],
            is_tally=bool(stats and stats.source == StatsSource.RECORDED_TALLY),
            **_funnel_context(stats),
            table=table,
            # The cycle's meetings (from the meetings app, above this one).
            **panel_context("releases:release_detail", release=release, start=start, end=end),
            is_active=release.state == ReleaseState.ACTIVE,
            freeze_plan=selectors_plans.planned_at_freeze(release=release),
        )
        exception_requests, exception_counts = selectors_published.release_exception_requests(release=release)
        context.update(
            state_label=release_state_label(
                state=release.state,
                release_day=release.release_date,
                has_dates=bool(release.cycle_start or schedule or exception_requests),
            ),
            exception_requests=exception_requests,
            exception_counts=exception_counts,
            release_team=selectors_published.release_team(release=release),
            feature_sheet=selectors_published.release_feature_sheet(release=release),
        )
        weekly = selectors.release_weekly_numbers(
            release=release, board_counts=board_counts, exception_requests=exception_requests
        )
        context.update(
            weekly=weekly,
            weekly_markdown=weekly_update_markdown(version=release.version, numbers=weekly, as_of=now.date()),
        )
        return context

    def _enhancements_table(self, release: Release, board_counts) -> TrackedEnhancementTable:
        """The first page of the release's tracked enhancements."""
        table = TrackedEnhancementTable(
            selectors.tracked_enhancement_list(release=release),
            prefix="te-",
            release_over=selectors.release_is_over(release=release),
        )
        # The board counts hold the number of rows: the table's paginator is told it rather than asking again.
        table.data._length = sum(count.count for count in board_counts)
        RequestConfig(self.request, paginate={"per_page": self.enhancements_per_page}).configure(table)
        return table


def _funnel_context(stats) -> dict:
    """The funnel's steps, each with its instant and its bar's width as a share of the widest step."""
    funnel = stats.funnel if stats else []
    funnel_max = max((step.get("count") or 0 for step in funnel), default=0)
    return {
        "funnel_unknown": any(step.get("unknown") for step in funnel),
        "funnel": [
            {
                **step,
                "at_dt": _parse_at(step.get("at")),
                "width": round(100 * (step.get("count") or 0) / funnel_max) if funnel_max else 0,
            }
            for step in funnel
        ],
    }


def _countdown(delta: datetime.timedelta) -> dict:
    """Days, hours and minutes left (rounded down), for the server-rendered countdown."""
    seconds = max(int(delta.total_seconds()), 0)
    return {"days": seconds // 86400, "hours": seconds % 86400 // 3600, "minutes": seconds % 3600 // 60}


def _parse_at(value: str | None) -> datetime.datetime | None:
    if not value:
        return None
    try:
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


class TrackedEnhancementListView(PublicListView):
    """The tracked enhancements of one release, filterable, sortable, paginated, exportable as CSV."""

    table_class = TrackedEnhancementTable
    filterset_class = TrackedEnhancementFilterSet
    template_name = "releases/enhancement_list.html"
    paginate_by = 25

    def dispatch(self, request, *args, **kwargs):
        self.release = _release_or_404(kwargs["version"])
        return super().dispatch(request, *args, **kwargs)

    @property
    def export_name(self):
        return f"enhancements-{self.release.version}"

    def get_queryset(self):
        return selectors.tracked_enhancement_list(release=self.release)

    def get_table_kwargs(self):
        return {**super().get_table_kwargs(), "release_over": selectors.release_is_over(release=self.release)}

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        stats = selectors.release_stats_get(release=self.release)
        tally = stats if stats and stats.source == StatsSource.RECORDED_TALLY else None
        context.update(nav="releases", release=self.release, tally=tally)
        return context


def _calendar_response(body: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


@require_safe
def calendar_all(request):
    """Every release's milestones, for a one-time calendar subscription."""
    body = milestones_calendar(
        milestones=selectors.milestone_list(),
        name="Kubernetes releases (sigtracker)",
        base_url=request.build_absolute_uri("/"),
    )
    return _calendar_response(body, "kubernetes-releases.ics")


@require_safe
def calendar_release(request, version):
    """One release's milestones."""
    release = _release_or_404(version)
    body = milestones_calendar(
        milestones=selectors.milestone_list(release=release),
        name=f"Kubernetes v{release.version} (sigtracker)",
        base_url=request.build_absolute_uri("/"),
    )
    return _calendar_response(body, f"kubernetes-{release.version}.ics")


class BoardVsLabelsView(TemplateView):
    """Where the tracking board and the issues' labels disagree, for the enhancements team to reconcile."""

    template_name = "releases/board_vs_labels.html"

    def get_context_data(self, **kwargs):
        from .selectors_board import board_label_disagreements

        context = super().get_context_data(**kwargs)
        release = _release_or_404(self.kwargs["version"])
        context.update(nav="releases", release=release, rows=board_label_disagreements(release=release))
        return context
