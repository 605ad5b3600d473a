from django.contrib import admin
from django.urls import include, path

admin.site.site_header = "sigtracker administration"
admin.site.site_title = "sigtracker"
admin.site.index_title = "Curate releases, KEPs and meetings"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("releases.urls")),
    path("", include("keps.urls")),
    path("", include("meetings.urls")),
]
