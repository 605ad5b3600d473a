from django.urls import path

from . import views

app_name = "planning"

urlpatterns = [
    path("releases/<str:version>/plan/", views.plan_index, name="plan_index"),
    path("releases/<str:version>/plan/<slug:sig>/", views.sig_plan, name="sig_plan"),
    path("releases/<str:version>/plan/<slug:sig>/plan.csv", views.sig_plan_csv, name="sig_plan_csv"),
    path("releases/<str:version>/plan/<slug:sig>/decide/", views.decide, name="decide"),
    path("releases/<str:version>/plan/<slug:sig>/propose/", views.propose, name="propose"),
    path("sigs/<slug:slug>/plans/", views.sig_plans, name="sig_plans"),
]
