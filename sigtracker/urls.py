from django.contrib import admin
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path

from core import views as core_views
from keps import urls as keps_urls
from releases import kep_views

# The 500 page shows the request id (core/logs.py).
handler500 = "core.views.server_error"

admin.site.site_header = "sigtracker administration"
admin.site.site_title = "sigtracker"
admin.site.index_title = "Curate releases, KEPs and meetings"

urlpatterns = [
    path("healthz", core_views.healthz, name="healthz"),
    # Browsers ask for /favicon.ico whatever the page links; answer instead of logging a 404 on every first visit.
    # static() per request: the production manifest is read after collectstatic, not when URLs are imported.
    path("favicon.ico", lambda request: HttpResponsePermanentRedirect(static("sigtracker/favicon.svg"))),
    path("admin/", admin.site.urls),
    path("api/v1/", include("api.urls")),
    path("feeds/", include("api.feed_urls")),
    # Sign in with GitHub (django-allauth; people/github routes the provider's login and callback).
    path("accounts/", include("allauth.urls")),
    path("", include("people.urls")),
    path("", include("planning.urls")),
    path("", include("retros.urls")),
    path("", include("releases.urls")),
    # The KEP pages: those of keps, and those whose data the releases own (releases/kep_views.py), one namespace.
    path("", include((keps_urls.urlpatterns + kep_views.urlpatterns, keps_urls.app_name))),
    path("", include("meetings.urls")),
]
