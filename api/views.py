"""The read API: one viewset per table the pages show, each on the page's selector and FilterSet.

Lists are cursor-paginated in a stable order (`ordering`: first field nearly unique, the rest break ties) and cost
the same number of queries whatever their length (tests/api/test_queries.py). Every answer carries an ETag and
answers 304 to a matching If-None-Match before any query runs (api/caching.py).
"""

from django.db.models import F, Prefetch, Value
from django.db.models.functions import Coalesce
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework import mixins, routers, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.settings import api_settings

from community.models import Sig
from core.text import bound_search_text
from keps import selectors as kep_selectors
from keps.filtersets import DesignGroupFilterSet, FeatureGateFilterSet, KepFilterSet
from keps.models import Kep
from meetings import selectors as meeting_selectors
from meetings.filtersets import MeetingFilterSet
from meetings.models import AgendaItem
from releases import selectors as release_selectors
from releases import selectors_feature_gates, selectors_plans, selectors_published
from releases.filtersets import ExceptionRequestFilterSet, ReleaseFilterSet
from releases.models import (
    EnhancementStatusChange,
    Milestone,
    Release,
    ReleaseStats,
    ReleaseTeamMember,
    TrackedEnhancement,
)
from retros.choices import RetroCategory
from retros.models import RetroItem, Retrospective
from retros.services.board import retro_ensure_if_collecting
from upstream.selectors import upstream_source_list

from . import retro_views, serializers
from .caching import ConditionalGetMixin
from .filtersets import (
    ActionItemFilterSet,
    AgendaItemFilterSet,
    RetrospectiveFilterSet,
    SigFilterSet,
    StatusChangeFilterSet,
    StrictFilterBackend,
    TrackedEnhancementApiFilterSet,
)
from .permissions import PublicReadOnly


def _version_order(prefix: str = ""):
    """A sortable number for a release's version (1.9 before 1.10), for cursor pagination."""
    return F(f"{prefix}major") * 1000 + F(f"{prefix}minor")


class ReadOnlyViewSet(ConditionalGetMixin, viewsets.ReadOnlyModelViewSet):
    """A list and one row by its key. An unknown filter is refused, not ignored (`StrictFilterBackend`)."""

    filter_backends = [StrictFilterBackend]


class ListOnlyViewSet(ConditionalGetMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """A list only: rows are addressed by filters, not by id. An unknown filter is refused, not ignored."""

    filter_backends = [StrictFilterBackend]


class ReleaseViewSet(ReadOnlyViewSet):
    """Releases, oldest first, with their milestones and stats (all SIGs and per SIG), as `/releases/` shows."""

    serializer_class = serializers.ReleaseSerializer
    filterset_class = ReleaseFilterSet
    lookup_field = "version"
    lookup_value_regex = r"v?[0-9]{1,4}\.[0-9]{1,4}"
    ordering = ("version_order",)

    def get_queryset(self):
        return (
            release_selectors.release_list()
            .annotate(version_order=_version_order())
            .prefetch_related(
                Prefetch("milestones", queryset=Milestone.objects.select_related("sig").order_by("at", "kind", "pk")),
                Prefetch("stats", queryset=ReleaseStats.objects.select_related("sig").order_by("sig__slug", "pk")),
                Prefetch(
                    "team_members", queryset=ReleaseTeamMember.objects.select_related("person").order_by("order", "pk")
                ),
            )
        )

    def get_object(self):
        return get_object_or_404(self.get_queryset(), version=self.kwargs["version"].removeprefix("v"))

    @extend_schema(responses=serializers.CurrentReleaseSerializer)
    @action(detail=False, filter_backends=[], pagination_class=None)
    def current(self, request):
        """The current release by its dates (`releases.rules.current_release`): the one in its cycle, else the
        latest released one, with `in_cycle`, the sentence the dashboard shows and the next release if known."""
        cycle = Release.objects.current_cycle()
        if cycle is None:
            raise Http404("No release.")
        release = get_object_or_404(self.get_queryset(), pk=cycle.release.pk)
        data = self.get_serializer(release).data
        data["state"] = cycle.state
        following = cycle.next_release
        return Response(
            {
                "in_cycle": cycle.in_cycle,
                "summary": cycle.summary,
                "next_release": following.version if following else None,
                "release": data,
            }
        )


#: The cursor position of a KEP-less feature: past every KEP number (a PositiveIntegerField's largest value).
KEPLESS_CURSOR_POSITION = 2**31 - 1


class TrackedEnhancementViewSet(ListOnlyViewSet):
    """A release's tracked enhancements with the enhancement list page's filters (`?release=1.27` required), in
    KEP-number order, KEP-less features last by name, with slips counted as the page does."""

    serializer_class = serializers.TrackedEnhancementSerializer
    filterset_class = TrackedEnhancementApiFilterSet
    # The cursor's position is a number: KEP-less features share one past every KEP (ties are the cursor's offset).
    ordering = ("kep_number", "feature_name", "id")

    def get_queryset(self):
        version = self.request.query_params.get("release", "")
        release = Release.objects.filter(version=version).first() if version else None
        if release is None:  # the FilterSet answers 400 for a missing or unknown release
            return TrackedEnhancement.objects.none()
        return release_selectors.tracked_enhancement_list(release=release).annotate(
            kep_number=Coalesce(F("kep__number"), Value(KEPLESS_CURSOR_POSITION))
        )


class ExceptionRequestViewSet(ListOnlyViewSet):
    """Exception requests of every release (exceptions.yaml, the board, the admin), filtered by `release`, `kep`,
    `freeze`, `decision` and `source` as the release and KEP pages' sections are."""

    serializer_class = serializers.ExceptionRequestSerializer
    filterset_class = ExceptionRequestFilterSet
    ordering = ("requested_at", "pk")

    def get_queryset(self):
        return selectors_published.exception_request_list()


class StatusChangeViewSet(ListOnlyViewSet):
    """Every status change of tracked enhancements, newest first (the history behind each board)."""

    serializer_class = serializers.StatusChangeSerializer
    filterset_class = StatusChangeFilterSet
    ordering = ("-changed_at", "-pk")

    def get_queryset(self):
        return EnhancementStatusChange.objects.select_related(
            "tracked_enhancement__release", "tracked_enhancement__kep", "tracked_enhancement__sig"
        )


class KepViewSet(ReadOnlyViewSet):
    """KEPs with the KEP list's kepctl-like filters; one KEP (by number) with people, gates and PRR approvals."""

    filterset_class = KepFilterSet
    lookup_field = "number"
    lookup_value_regex = r"[0-9]{1,9}"
    ordering = ("number",)

    def get_serializer_class(self):
        return serializers.KepDetailSerializer if self.action == "retrieve" else serializers.KepSerializer

    def get_queryset(self):
        if self.action == "retrieve":
            return selectors_plans.with_slip_counts(kep_selectors.kep_detail_queryset())
        return kep_selectors.kep_list()


class FeatureGateViewSet(ListOnlyViewSet):
    """The feature-gate ledger: each gate with its KEP and the releases it shipped alpha, beta, stable in."""

    serializer_class = serializers.FeatureGateSerializer
    filterset_class = FeatureGateFilterSet
    ordering = ("name", "pk")

    def get_queryset(self):
        return selectors_feature_gates.feature_gate_list()


class DesignGroupViewSet(ReadOnlyViewSet):
    serializer_class = serializers.DesignGroupSerializer
    filterset_class = DesignGroupFilterSet
    lookup_field = "slug"
    ordering = ("name", "pk")

    def get_queryset(self):
        return kep_selectors.design_group_list().prefetch_related(
            Prefetch("keps", queryset=Kep.objects.only("pk", "number").order_by("number"))
        )


class MeetingViewSet(ReadOnlyViewSet):
    """Meetings newest first with the meetings page's filters, `?q=` searching agenda items in full text; one
    meeting (by id) with its agenda."""

    filterset_class = MeetingFilterSet

    @property
    def ordering(self):
        # A search lists the best match first, then the newest (`meetings.search`); the cursor follows that order.
        if _searching(self):
            return ("-search_rank", "-date", "sig_slug", "pk")
        return ("-date", "sig_slug")

    def get_serializer_class(self):
        return serializers.MeetingDetailSerializer if self.action == "retrieve" else serializers.MeetingSerializer

    def get_queryset(self):
        queryset = meeting_selectors.meeting_list().annotate(sig_slug=F("sig__slug"))
        if self.action == "retrieve":
            queryset = queryset.prefetch_related(Prefetch("agenda_items", queryset=_agenda_items().order_by("order")))
        return queryset


def _searching(view) -> bool:
    """Whether a list request searches (`?q=` with something searchable, as the FilterSets' own test)."""
    request = getattr(view, "request", None)
    return (
        request is not None
        and getattr(view, "action", None) == "list"
        and bool(bound_search_text(request.query_params.get("q", "")))
    )


def _agenda_items():
    return (
        AgendaItem.objects.select_related("meeting__sig", "related_release")
        .prefetch_related("presenters", Prefetch("keps", queryset=Kep.objects.only("pk", "number")))
        .annotate(meeting_date=F("meeting__date"))
    )


class AgendaItemViewSet(ListOnlyViewSet):
    """Agenda items, newest meeting first; `?q=` is the meetings page's full-text search."""

    serializer_class = serializers.AgendaItemSerializer
    filterset_class = AgendaItemFilterSet

    @property
    def ordering(self):
        # A search lists the best match first, then the newest meeting's (`meetings.search`).
        if _searching(self):
            return ("-rank", "-meeting_date", "-meeting_id", "order")
        return ("-meeting_date", "-meeting_id", "order")

    def get_queryset(self):
        return _agenda_items()


class RetrospectiveViewSet(ReadOnlyViewSet):
    """Retros, newest release first, each with what went well, what to improve and its action items."""

    serializer_class = serializers.RetrospectiveSerializer
    filterset_class = RetrospectiveFilterSet
    ordering = ("-release_order", "sig_slug")

    def list(self, request, *args, **kwargs):
        # A retro exists for a release in its cycle as soon as its board opens: asked for one SIG's, it is made.
        release, sig = request.query_params.get("release"), request.query_params.get("sig")
        if release and sig and "\x00" not in release + sig:
            retro_ensure_if_collecting(version=release[:20], sig_slug=sig[:100])
        return super().list(request, *args, **kwargs)

    def paginate_queryset(self, queryset):
        # The page's retros, handed to the serializer so their summaries are read in one go.
        page = super().paginate_queryset(queryset)
        self._retro_page = list(page) if page is not None else None
        return self._retro_page

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "retro_page": getattr(self, "_retro_page", None)}

    def get_queryset(self):
        items = (
            RetroItem.objects.filter(hidden_at__isnull=True)
            .select_related("owner", "due_release")
            .order_by("category", "order", "pk")
        )
        return (
            Retrospective.objects.select_related("release", "sig")
            .prefetch_related(Prefetch("items", queryset=items))
            .annotate(release_order=_version_order("release__"), sig_slug=F("sig__slug"))
        )


class ActionItemViewSet(ListOnlyViewSet, mixins.RetrieveModelMixin):
    """Retro action items of every release (newest first), with owner, status and the release they are due in.
    `POST`: a SIG lead or curator adds one (`{release, sig, text, owner, due_release, issue_url, from_item}`)."""

    serializer_class = serializers.ActionItemSerializer
    filterset_class = ActionItemFilterSet
    ordering = ("-release_order", "retrospective_id", "order", "pk")

    def get_permissions(self):
        if self.request.method == "POST":
            return [retro_views.ReadsPublicWritesSignedIn()]
        return super().get_permissions()

    def get_parsers(self):
        if getattr(self, "request", None) is not None and self.request.method == "POST":
            return [JSONParser()]
        return super().get_parsers()

    @extend_schema(request=retro_views.ActionItemInput, responses={201: serializers.ActionItemSerializer})
    def create(self, request):
        item = retro_views.action_item_create_from_api(request)
        item = self.get_queryset().get(pk=item.pk)
        return Response(self.get_serializer(item).data, status=201)

    def get_queryset(self):
        return (
            RetroItem.objects.filter(category=RetroCategory.ACTION_ITEM, hidden_at__isnull=True)
            .select_related("owner", "due_release", "retrospective__release", "retrospective__sig")
            .annotate(release_order=_version_order("retrospective__release__"))
        )


class SigViewSet(ReadOnlyViewSet):
    serializer_class = serializers.SigSerializer
    filterset_class = SigFilterSet
    lookup_field = "slug"
    ordering = ("slug",)

    def get_queryset(self):
        return Sig.objects.all()


class UpstreamSourceViewSet(ConditionalGetMixin, viewsets.ViewSet):
    """The upstream repositories sigtracker refreshes itself from, each with the commit its data is as of."""

    @extend_schema(responses=serializers.UpstreamSourceSerializer(many=True))
    def list(self, request):
        return Response(serializers.UpstreamSourceSerializer(upstream_source_list(), many=True).data)


class ApiRootView(ConditionalGetMixin, routers.APIRootView):
    """sigtracker's read API. Schema: /api/v1/schema/ (OpenAPI 3), browsable docs: /api/v1/docs/."""


class SchemaView(ConditionalGetMixin, SpectacularAPIView):
    """The OpenAPI 3 schema; under the same access rules as the data (private mode needs a token)."""

    permission_classes = [PublicReadOnly]
    authentication_classes = api_settings.DEFAULT_AUTHENTICATION_CLASSES

    def _get_version_parameter(self, request):
        # The API has one version, named by its path (/api/v1/): drf-spectacular would take `?version=` as a
        # schema version and write it into the Content-Disposition header, where a newline is a server error.
        return None


class DocsView(ConditionalGetMixin, SpectacularSwaggerView):
    """Browsable documentation of the schema (Swagger UI, served from our static files)."""

    permission_classes = [PublicReadOnly]
    authentication_classes = api_settings.DEFAULT_AUTHENTICATION_CLASSES
