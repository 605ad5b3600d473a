from django.urls import path

from . import views

app_name = "people"

urlpatterns = [
    path("me/", views.me, name="me"),
    path("me/preferences/", views.preferences, name="preferences"),
    path("me/preferences/resubscribe/<str:kind>/", views.resubscribe, name="resubscribe"),
    path("me/calendar/reset/", views.calendar_reset, name="calendar_reset"),
    path("me/calendar/<str:secret>.ics", views.calendar, name="calendar"),
    path("unsubscribe/<str:kind>/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
