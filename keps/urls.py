from django.urls import path

from . import views

app_name = "keps"

urlpatterns = [
    path("keps/", views.KepListView.as_view(), name="kep_list"),
    path("keps/slips/", views.SlipListView.as_view(), name="slip_list"),
    path("keps/perma-beta/", views.PermaBetaView.as_view(), name="perma_beta"),
    path("keps/feature-gates/", views.FeatureGateListView.as_view(), name="feature_gate_list"),
    path("keps/approvers/", views.ApproverListView.as_view(), name="approver_list"),
    path("keps/<int:number>/", views.KepDetailView.as_view(), name="kep_detail"),
    path("design-groups/", views.DesignGroupListView.as_view(), name="designgroup_list"),
    path("design-groups/<slug:slug>/", views.DesignGroupDetailView.as_view(), name="designgroup_detail"),
    path("sigs/<slug:slug>/meetings.ics", views.sig_meetings_calendar, name="sig_meetings_calendar"),
]
