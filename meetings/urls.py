from django.urls import path, register_converter

from . import views


class IsoDateConverter:
    """`2022-03-01` in the URL; the view turns it into a date (and 404s on an impossible one like 2022-02-30)."""

    regex = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value if isinstance(value, str) else value.isoformat()


register_converter(IsoDateConverter, "isodate")

app_name = "meetings"

urlpatterns = [
    path("meetings/", views.MeetingListView.as_view(), name="meeting_list"),
    path("meetings/<slug:sig>/<isodate:date>/", views.MeetingDetailView.as_view(), name="meeting_detail"),
]
