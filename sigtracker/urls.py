from django.contrib import admin
from django.urls import include, path

from . import views

admin.site.site_header = "sigtracker administration"
admin.site.site_title = "sigtracker"
admin.site.index_title = "Curate releases, KEPs and meetings"

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("api.urls")),
    path("feeds/", include("api.feed_urls")),
    path("", include("releases.urls")),
    path("", include("keps.urls")),
    path("", include("meetings.urls")),
]
