"""One write path for status: every screen that changes a tracked enhancement's status leaves exactly one
history row (from, to, instant, author, source, reason) and fresh stats; history and stats are read-only."""

import pytest
from django.contrib.admin.models import DELETION, LogEntry
from django.contrib.auth import get_user_model
from django.urls import reverse

from community.choices import SigRole
from community.roles import sig_membership_grant
from releases.models import EnhancementStatusChange, ReleaseStats, TrackedEnhancement
from tests.factories import KepFactory, ReleaseFactory, SigFactory, TrackedEnhancementFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def row():
    return TrackedEnhancementFactory(status="at_risk_code")


def _change_form_data(row, **overrides):
    data = {
        "release": row.release_id,
        "kep": row.kep_id,
        "sig": row.sig_id,
        "type": row.type,
        "target_stage": row.target_stage,
        "status": row.status,
        "enhancements_contact": "",
        "assignee": "",
        "notes": row.notes,
        "reason": "",
        "history-TOTAL_FORMS": "0",
        "history-INITIAL_FORMS": "0",
        "history-MIN_NUM_FORMS": "0",
        "history-MAX_NUM_FORMS": "1000",
        "prr_status": row.prr_status,
        "docs_status": row.docs_status,
        "exceptions-TOTAL_FORMS": "0",
        "exceptions-INITIAL_FORMS": "0",
    }
    data.update(overrides)
    return data


def _stats_done(release) -> int:
    stats = ReleaseStats.objects.filter(release=release, sig__isnull=True).first()
    return stats.done if stats else 0


def test_change_form_keeps_one_history_row_with_the_reason_and_refreshes_stats(
    admin_client, row, django_capture_on_commit_callbacks
):
    url = reverse("admin:releases_trackedenhancement_change", args=[row.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url, _change_form_data(row, status="removed_from_milestone", reason="missed CF"))
    assert response.status_code == 302, response.content.decode()[:2000]
    (change,) = EnhancementStatusChange.objects.filter(tracked_enhancement=row)
    assert (change.from_status, change.to_status, change.note, change.source, change.author) == (
        "at_risk_code",
        "removed_from_milestone",
        "missed CF",
        "admin",
        "admin",
    )
    assert ReleaseStats.objects.get(release=row.release, sig__isnull=True).removed == 1


def test_add_form_starts_the_history_and_defaults_sig_and_stage_from_the_kep(admin_client):
    release, sig = ReleaseFactory(version="1.36"), SigFactory(slug="sig-node")
    kep = KepFactory(owning_sig=sig, stage="beta")
    data = _change_form_data(
        TrackedEnhancement(release=release, kep=kep, sig=sig, status="tracked_enhancements"),
        sig="",
        target_stage="",
    )
    response = admin_client.post(reverse("admin:releases_trackedenhancement_add"), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    row = TrackedEnhancement.objects.get()
    assert (row.sig, row.target_stage, row.status) == (sig, "beta", "tracked_enhancements")
    assert [(c.from_status, c.to_status, c.source) for c in row.history.all()] == [
        ("", "tracked_enhancements", "admin")
    ]


def test_list_editable_status_column_keeps_history_and_refreshes_stats(
    admin_client, row, django_capture_on_commit_callbacks
):
    url = reverse("admin:releases_trackedenhancement_changelist")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            url,
            {
                "form-TOTAL_FORMS": "1",
                "form-INITIAL_FORMS": "1",
                "form-MIN_NUM_FORMS": "0",
                "form-MAX_NUM_FORMS": "1000",
                "form-0-id": str(row.pk),
                "form-0-status": "done",
                "_save": "Save",
            },
        )
    assert response.status_code == 302
    assert TrackedEnhancement.objects.get().status == "done"
    assert list(row.history.values_list("from_status", "to_status", "source")) == [("at_risk_code", "done", "admin")]
    assert _stats_done(row.release) == 1


def test_release_page_lists_tracked_rows_read_only(admin_client, row):
    page = admin_client.get(reverse("admin:releases_release_change", args=[row.release_id])).content.decode()
    assert 'name="tracked_enhancements-0-status"' not in page
    assert reverse("admin:releases_trackedenhancement_change", args=[row.pk]) in page


def test_every_status_has_a_bulk_action(admin_client, row):
    from releases.choices import EnhancementStatus

    page = admin_client.get(reverse("admin:releases_trackedenhancement_changelist"), follow=True).content.decode()
    for status in EnhancementStatus:
        assert f'value="mark_{status.value}"' in page


def test_synced_rows_keep_github_owned_fields_read_only(admin_client, row):
    TrackedEnhancement.objects.filter(pk=row.pk).update(
        github_issue_number=row.kep.number, github_issue_url="https://github.com/kubernetes/enhancements/issues/1"
    )
    page = admin_client.get(reverse("admin:releases_trackedenhancement_change", args=[row.pk])).content.decode()
    assert 'name="status"' not in page and 'name="notes"' in page
    assert "https://github.com/kubernetes/enhancements/issues/1" in page
    admin_client.post(
        reverse("admin:releases_trackedenhancement_change", args=[row.pk]),
        _change_form_data(row, status="done", notes="local note"),
    )
    row.refresh_from_db()
    assert (row.status, row.notes) == ("at_risk_code", "local note")
    assert not row.history.exists()


@pytest.mark.parametrize("role", ["superuser", SigRole.LEAD])
def test_history_and_stats_cannot_be_added_or_changed_by_anyone(client, row, role):
    change = EnhancementStatusChange.objects.create(tracked_enhancement=row, to_status="at_risk_code")
    stats = ReleaseStats.objects.create(release=row.release, tracked=1, done=0)
    if role == "superuser":
        user = get_user_model().objects.create_superuser("root", password="x" * 12)
    else:
        user = get_user_model().objects.create_user("lead", password="x" * 12)
        sig_membership_grant(user=user, sig=row.sig, role=role)
    client.force_login(user)
    for obj in (change, stats):
        label = f"admin:releases_{obj._meta.model_name}"
        assert client.get(reverse(f"{label}_add")).status_code == 403
        response = client.post(reverse(f"{label}_change", args=[obj.pk]), {"to_status": "done", "tracked": 9})
        assert response.status_code == 403
    change.refresh_from_db()
    stats.refresh_from_db()
    assert (change.to_status, stats.tracked) == ("at_risk_code", 1)


def test_a_superuser_deletes_history_only_with_a_logged_reason(admin_client, row):
    change = EnhancementStatusChange.objects.create(tracked_enhancement=row, to_status="at_risk_code")
    url = reverse("admin:releases_enhancementstatuschange_delete", args=[change.pk])
    response = admin_client.post(url, {"post": "yes"})
    assert response.status_code == 200 and "Say why" in response.content.decode()
    assert EnhancementStatusChange.objects.filter(pk=change.pk).exists()
    admin_client.post(url, {"post": "yes", "reason": "typed in by mistake"})
    assert not EnhancementStatusChange.objects.filter(pk=change.pk).exists()
    entry = LogEntry.objects.get(action_flag=DELETION)
    assert "typed in by mistake" in entry.change_message


def test_list_opens_on_the_current_release_and_add_keeps_its_filter(admin_client, row):
    url = reverse("admin:releases_trackedenhancement_changelist")
    response = admin_client.get(url)
    assert response.status_code == 302 and response["Location"] == f"{url}?release__id__exact={row.release_id}"
    # Every release, chosen on purpose, stays every release.
    assert admin_client.get(url, {"release__isnull": "False"}).status_code == 200
    add = reverse("admin:releases_trackedenhancement_add")
    form = admin_client.get(add, {"_changelist_filters": f"release__id__exact={row.release_id}"}).context["adminform"]
    assert form.form.initial["release"] == str(row.release_id)


def test_exception_request_action_records_a_pending_request_and_the_status(admin_client, row):
    from releases.models import EnhancementException

    url = reverse("admin:releases_trackedenhancement_changelist")
    response = admin_client.post(url, {"action": "request_exception", "_selected_action": [row.pk]})
    assert response.status_code == 302 and response["Location"].endswith(f"/{row.pk}/change/#exceptions-group")
    request = EnhancementException.objects.get(tracked_enhancement=row)
    assert (request.freeze, request.decision) == ("code", "pending")
    assert list(row.history.values_list("from_status", "to_status", "source")) == [
        ("at_risk_code", "exception_pending", "admin")
    ]
    # Asked twice for the same freeze: one request, and the curator is told.
    response = admin_client.post(url, {"action": "request_exception", "_selected_action": [row.pk]}, follow=True)
    assert "already asked for an exception to that freeze" in str(list(response.context["messages"]))
    assert EnhancementException.objects.count() == 1
