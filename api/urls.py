from django.urls import include, path
from rest_framework import routers

from . import plans, retro_views, views

app_name = "api"


class Router(routers.DefaultRouter):
    APIRootView = views.ApiRootView
    include_format_suffixes = False


router = Router()
router.register("releases", views.ReleaseViewSet, basename="release")
router.register("tracked-enhancements", views.TrackedEnhancementViewSet, basename="trackedenhancement")
router.register("exception-requests", views.ExceptionRequestViewSet, basename="exceptionrequest")
router.register("status-changes", views.StatusChangeViewSet, basename="statuschange")
router.register("keps", views.KepViewSet, basename="kep")
router.register("feature-gates", views.FeatureGateViewSet, basename="featuregate")
router.register("design-groups", views.DesignGroupViewSet, basename="designgroup")
router.register("meetings", views.MeetingViewSet, basename="meeting")
router.register("agenda-items", views.AgendaItemViewSet, basename="agendaitem")
router.register("retrospectives", views.RetrospectiveViewSet, basename="retrospective")
router.register("action-items", views.ActionItemViewSet, basename="actionitem")
router.register("retro-items", retro_views.RetroItemViewSet, basename="retroitem")
router.register("sigs", views.SigViewSet, basename="sig")
router.register("upstream", views.UpstreamSourceViewSet, basename="upstream")

urlpatterns = [
    path("schema/", views.SchemaView.as_view(), name="schema"),
    path("docs/", views.DocsView.as_view(url_name="api:schema"), name="docs"),
    path("plans/<str:version>/<slug:sig>/", plans.PlanView.as_view(), name="plan"),
    path("plans/<str:version>/<slug:sig>/decisions/", plans.PlanDecisionsView.as_view(), name="plan_decisions"),
    path("", include(router.urls)),
]
