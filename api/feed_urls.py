from django.urls import path

from . import feeds

app_name = "feeds"

urlpatterns = [
    path("releases/<str:version>/status.atom", feeds.ReleaseStatusFeed(), name="release_status"),
    path("sigs/<slug:slug>/status.atom", feeds.SigStatusFeed(), name="sig_status"),
    path("sigs/<slug:slug>/meetings.atom", feeds.SigMeetingsFeed(), name="sig_meetings"),
    path("keps/<str:number>/status.atom", feeds.KepStatusFeed(), name="kep_status"),
    path("action-items.atom", feeds.ActionItemFeed(), name="action_items"),
]
