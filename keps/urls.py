from django.urls import path

from . import views

app_name = "keps"

# The KEP pages whose data the releases own (perma-beta, feature gates, approvers, slips) join this namespace from
# releases/kep_views.py: sigtracker/urls.py puts both lists under "keps".

urlpatterns = [
    path("keps/", views.KepListView.as_view(), name="kep_list"),
    path("keps/<int:number>/", views.KepDetailView.as_view(), name="kep_detail"),
    path("design-groups/", views.DesignGroupListView.as_view(), name="designgroup_list"),
    path("design-groups/<slug:slug>/", views.DesignGroupDetailView.as_view(), name="designgroup_detail"),
    path("sigs/<slug:slug>/meetings.ics", views.sig_meetings_calendar, name="sig_meetings_calendar"),
]
