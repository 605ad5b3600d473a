"""Admin bulk actions respect roles and SIG scope, and are logged.

Every custom action needs the change permission on each selected row, SIG scope included: otherwise the
whole request answers 403 and nothing changes. Each changed row gets one admin LogEntry.
"""

import pytest
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.urls import reverse

from community.models import Person
from community.roles import sig_membership_grant
from meetings.models import Meeting
from releases.models import EnhancementStatusChange, Milestone, TrackedEnhancement
from retros.models import RetroItem
from tests.factories import (
    KepFactory,
    MeetingFactory,
    MilestoneFactory,
    PersonFactory,
    ReleaseFactory,
    RetroItemFactory,
    RetrospectiveFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def node():
    return SigFactory(slug="sig-node")


@pytest.fixture
def scheduling():
    return SigFactory(slug="sig-scheduling")


def _login(client, name, *grants):
    user = get_user_model().objects.create_user(name, password="x" * 12)
    for sig, role in grants:
        sig_membership_grant(user=user, sig=sig, role=role)
    client.force_login(user)
    return user


def _act(client, model, action, rows):
    meta = model._meta
    return client.post(
        reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"),
        {"action": action, ACTION_CHECKBOX_NAME: [row.pk for row in rows], "index": 0},
    )


def _logged(model, rows):
    return LogEntry.objects.filter(
        content_type__app_label=model._meta.app_label,
        content_type__model=model._meta.model_name,
        object_id__in=[str(row.pk) for row in rows],
        action_flag=CHANGE,
    )


def test_viewer_cannot_mark_enhancements_done(client, node):
    row = TrackedEnhancementFactory(kep=KepFactory(owning_sig=node))
    _login(client, "viewer", (node, "viewer"))
    response = _act(client, TrackedEnhancement, "mark_done", [row])
    assert response.status_code == 403
    row.refresh_from_db()
    assert row.status == "tracked_enhancements"
    assert not EnhancementStatusChange.objects.filter(to_status="done").exists()


def test_viewer_cannot_mark_retro_items_or_cancel_meetings(client, node):
    item = RetroItemFactory(retrospective=RetrospectiveFactory(sig=node), category="action_item", status="open")
    meeting = MeetingFactory(sig=node)
    _login(client, "viewer", (node, "viewer"))
    assert _act(client, RetroItem, "mark_done", [item]).status_code == 403
    assert _act(client, Meeting, "mark_cancelled", [meeting]).status_code == 403
    item.refresh_from_db()
    meeting.refresh_from_db()
    assert item.status == "open" and not meeting.cancelled


def test_liaison_cannot_switch_off_reminders_or_opt_people_out(client, node, scheduling):
    milestones = [MilestoneFactory(), MilestoneFactory(sig=node)]
    people = [PersonFactory(), PersonFactory()]
    _login(client, "liaison", (scheduling, "liaison"))
    assert _act(client, Milestone, "disable_reminders", milestones).status_code == 403
    assert _act(client, Person, "opt_out_of_reminders", people).status_code == 403
    assert Milestone.objects.filter(sends_reminders=False).count() == 0
    assert Person.objects.filter(reminders_opt_out=True).count() == 0


def test_an_out_of_scope_row_refuses_the_whole_action(client, node, scheduling):
    own = TrackedEnhancementFactory(kep=KepFactory(owning_sig=node))
    foreign = TrackedEnhancementFactory(kep=KepFactory(owning_sig=scheduling))
    # A liaison of sig-node who only reads sig-scheduling: both rows are on their changelist.
    _login(client, "liaison", (node, "liaison"), (scheduling, "viewer"))
    response = _act(client, TrackedEnhancement, "mark_done", [own, foreign])
    assert response.status_code == 403
    assert set(TrackedEnhancement.objects.values_list("status", flat=True)) == {"tracked_enhancements"}
    assert not _logged(TrackedEnhancement, [own, foreign]).exists()


def test_selecting_all_rows_checks_every_row(client, node, scheduling):
    own = TrackedEnhancementFactory(kep=KepFactory(owning_sig=node))
    foreign = TrackedEnhancementFactory(kep=KepFactory(owning_sig=scheduling))
    _login(client, "liaison", (node, "liaison"), (scheduling, "viewer"))
    response = client.post(
        reverse("admin:releases_trackedenhancement_changelist"),
        {"action": "mark_done", ACTION_CHECKBOX_NAME: [own.pk], "select_across": "1", "index": 0},
    )
    assert response.status_code == 403
    assert set(TrackedEnhancement.objects.values_list("status", flat=True)) == {"tracked_enhancements"}
    assert foreign.history.count() == 0


def test_lead_cannot_switch_off_another_sigs_milestone_reminders(client, node, scheduling):
    release = ReleaseFactory(version="1.24")
    foreign = MilestoneFactory(release=release, sig=node, label="sig-node soft freeze")
    _login(client, "lead", (scheduling, "lead"))
    assert _act(client, Milestone, "disable_reminders", [foreign]).status_code == 403
    foreign.refresh_from_db()
    assert foreign.sends_reminders


def test_lead_switches_off_own_and_release_wide_reminders_logged(client, node, scheduling):
    release = ReleaseFactory(version="1.24")
    own = MilestoneFactory(release=release, sig=scheduling)
    release_wide = MilestoneFactory(release=release)
    already_off = MilestoneFactory(release=release, sends_reminders=False)
    user = _login(client, "lead", (scheduling, "lead"))
    response = _act(client, Milestone, "disable_reminders", [own, release_wide, already_off])
    assert response.status_code == 302
    assert Milestone.objects.filter(sends_reminders=True).count() == 0
    entries = _logged(Milestone, [own, release_wide, already_off])
    # One entry per changed row: the milestone that was already off did not change.
    assert sorted(int(e.object_id) for e in entries) == sorted([own.pk, release_wide.pk])
    assert {e.user_id for e in entries} == {user.pk}


def test_liaison_marks_own_rows_done_with_history_and_log(client, node):
    rows = [TrackedEnhancementFactory(kep=KepFactory(owning_sig=node)) for _ in range(2)]
    done_already = TrackedEnhancementFactory(kep=KepFactory(owning_sig=node), status="done")
    user = _login(client, "liaison", (node, "liaison"))
    response = _act(client, TrackedEnhancement, "mark_done", [*rows, done_already])
    assert response.status_code == 302
    assert set(TrackedEnhancement.objects.values_list("status", flat=True)) == {"done"}
    assert set(EnhancementStatusChange.objects.filter(to_status="done").values_list("author", flat=True)) == {"liaison"}
    entries = _logged(TrackedEnhancement, [*rows, done_already])
    assert sorted(int(e.object_id) for e in entries) == sorted(row.pk for row in rows)
    assert all(e.user_id == user.pk and "done" in e.get_change_message().lower() for e in entries)


def test_superuser_actions_are_logged(admin_client, admin_user, node):
    meetings = [MeetingFactory(sig=node), MeetingFactory(sig=node)]
    people = [PersonFactory()]
    assert _act(admin_client, Meeting, "mark_cancelled", meetings).status_code == 302
    assert _act(admin_client, Person, "opt_out_of_reminders", people).status_code == 302
    assert _logged(Meeting, meetings).filter(user=admin_user).count() == 2
    assert _logged(Person, people).filter(user=admin_user).count() == 1


def test_lead_opts_out_only_people_of_their_sig(client, node, scheduling):
    ours = PersonFactory()
    KepFactory(owning_sig=node).authors.add(ours)
    theirs = PersonFactory()
    KepFactory(owning_sig=scheduling).authors.add(theirs)
    _login(client, "lead", (node, "lead"))
    assert _act(client, Person, "opt_out_of_reminders", [theirs]).status_code == 403
    assert _act(client, Person, "opt_out_of_reminders", [ours]).status_code == 302
    assert list(Person.objects.filter(reminders_opt_out=True)) == [ours]


def _custom_actions():
    for model, model_admin in admin.site._registry.items():
        if model._meta.app_label not in {"keps", "releases", "meetings"}:
            continue
        for action in model_admin.actions or ():
            func = action if callable(action) else getattr(type(model_admin), action)
            yield pytest.param(func, id=f"{model._meta.label}.{getattr(func, '__name__', action)}")


@pytest.mark.parametrize("func", list(_custom_actions()))
def test_every_custom_action_declares_the_change_permission(func):
    assert tuple(getattr(func, "allowed_permissions", ())) == ("change",)
