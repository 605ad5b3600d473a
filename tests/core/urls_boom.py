"""The project's URLs plus one view that fails, for the 500 page and error-tracking tests."""

from django.urls import path

from sigtracker.urls import handler500, urlpatterns  # noqa: F401 - handler500 is read from this module


def boom(request):
    raise RuntimeError(f"boom for {request.GET.get('email', 'nobody')}")


urlpatterns = [path("boom/", boom, name="boom"), *urlpatterns]
