"""Every admin changelist and add page: 200 for staff, a redirect to the login for anonymous users."""

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.factories import (
    AgendaItemFactory,
    FeatureGateFactory,
    MilestoneFactory,
    PrrApprovalFactory,
    RetroItemFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db

MODELS = [
    model
    for model in admin.site._registry
    if model._meta.app_label in {"community", "keps", "releases", "github_sync", "meetings"}
]


@pytest.fixture
def some_rows():
    TrackedEnhancementFactory()
    MilestoneFactory()
    RetroItemFactory(category="action_item", status="open")
    AgendaItemFactory()
    FeatureGateFactory()
    PrrApprovalFactory()


#: Records the application computes or keeps as history: nobody adds or changes them in the admin.
READ_ONLY = {"releases.EnhancementStatusChange", "releases.ReleaseStats", "keps.KepPlanChange"}
#: Internal tables with no admin: the GitHub sync's ETag cache, where the plan-history import stopped.
INTERNAL = {"github_sync.GitHubCachedResponse", "keps.KepHistoryCursor"}


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m._meta.label)
@pytest.mark.parametrize("page", ["changelist", "add"])
def test_admin_pages_answer_staff(admin_client, some_rows, model, page):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{page}")
    expected = 403 if page == "add" and model._meta.label in READ_ONLY else 200
    # follow: the freeze-day list redirects to its current release's filter.
    assert admin_client.get(url, follow=True).status_code == expected


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m._meta.label)
@pytest.mark.parametrize("page", ["changelist", "add"])
def test_admin_pages_redirect_anonymous(client, model, page):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{page}")
    response = client.get(url)
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_every_domain_model_has_an_admin():
    from django.apps import apps

    domain = [
        m
        for app in ("community", "keps", "releases", "github_sync", "meetings")
        for m in apps.get_app_config(app).get_models()
    ]
    assert {m for m in domain if m._meta.label not in INTERNAL} == set(MODELS)


def test_bulk_action_removes_from_milestone_and_keeps_history(admin_client):
    from releases.models import EnhancementStatusChange, TrackedEnhancement

    rows = [TrackedEnhancementFactory(), TrackedEnhancementFactory()]
    response = admin_client.post(
        reverse("admin:releases_trackedenhancement_changelist"),
        {"action": "mark_removed_from_milestone", "_selected_action": [r.pk for r in rows]},
        follow=True,
    )
    assert response.status_code == 200
    assert set(TrackedEnhancement.objects.values_list("status", flat=True)) == {"removed_from_milestone"}
    assert EnhancementStatusChange.objects.filter(to_status="removed_from_milestone").count() == 2
