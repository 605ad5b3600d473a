from django.urls import path

from . import views

app_name = "releases"

urlpatterns = [
    path("", views.DashboardView.as_view(), name="dashboard"),
    path("calendar.ics", views.calendar_all, name="calendar"),
    path("releases/", views.ReleaseListView.as_view(), name="release_list"),
    path("releases/<str:version>/", views.ReleaseDetailView.as_view(), name="release_detail"),
    path("releases/<str:version>/enhancements/", views.TrackedEnhancementListView.as_view(), name="enhancement_list"),
    path("releases/<str:version>/board-vs-labels/", views.BoardVsLabelsView.as_view(), name="board_vs_labels"),
    path("releases/<str:version>/calendar.ics", views.calendar_release, name="release_calendar"),
]
