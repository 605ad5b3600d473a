from django.urls import path

from . import views

app_name = "retros"

urlpatterns = [
    path("releases/<str:version>/retro/", views.ReleaseBoardView.as_view(), name="release_board"),
    path("releases/<str:version>/retro/<slug:sig_slug>/", views.BoardView.as_view(), name="board"),
]
