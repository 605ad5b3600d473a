"""The role groups survive history: keps/migrations/0003_role_groups.py replays with the grants of its
day whatever community.roles.GROUP_GRANTS says today, and the post_migrate handler brings the groups up to
today's grants, idempotently.
"""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management.sql import emit_post_migrate_signal
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from community import roles
from tests.factories import MeetingFactory, SigFactory

# Migrations run DDL: the test needs real transactions (and its teardown flush re-runs post_migrate).
pytestmark = pytest.mark.django_db(transaction=True)

ROLE_GROUPS = ("SIG lead", "Release liaison", "Viewer")


def _group_permissions():
    return {
        name: set(
            Group.objects.get(name=name).permissions.values_list("content_type__app_label", "codename").order_by()
        )
        for name in ROLE_GROUPS
    }


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)


def test_role_groups_replay_from_an_old_state_and_still_apply(postgres_only, client, monkeypatch):
    today = _group_permissions()
    # A later release grants a model that keps 0003's point of history does not have yet.
    later_grants = {**roles.GROUP_GRANTS, "Viewer": [*roles.GROUP_GRANTS["Viewer"], ("view", {"keps": ["notyet"]})]}
    monkeypatch.setattr(roles, "GROUP_GRANTS", later_grants)

    _migrate([("keps", "0002_sigmembership")])
    assert not Group.objects.filter(name__in=ROLE_GROUPS).exists()
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
    assert set(Group.objects.filter(name__in=ROLE_GROUPS).values_list("name", flat=True)) == set(ROLE_GROUPS)
    monkeypatch.undo()

    # A grant the migration did not know (simulated by taking one away) arrives with the next migrate...
    Group.objects.get(name="Release liaison").permissions.remove(Permission.objects.get(codename="change_meeting"))
    emit_post_migrate_signal(verbosity=0, interactive=False, db=connection.alias)
    assert _group_permissions() == today
    # ...and migrating again changes nothing.
    emit_post_migrate_signal(verbosity=0, interactive=False, db=connection.alias)
    assert _group_permissions() == today

    # The roles still apply through the admin.
    sig = SigFactory(slug="sig-node")
    meeting = MeetingFactory(sig=sig)
    for role, expected in (("liaison", 302), ("viewer", 403)):
        user = get_user_model().objects.create_user(role, password="x" * 12)
        roles.sig_membership_grant(user=user, sig=sig, role=role)
        client.force_login(user)
        response = client.post(
            reverse("admin:meetings_meeting_change", args=[meeting.pk]),
            {
                "sig": sig.pk,
                "date": meeting.date.isoformat(),
                "title": f"renamed by {role}",
                "agenda_items-TOTAL_FORMS": "0",
                "agenda_items-INITIAL_FORMS": "0",
            },
        )
        assert response.status_code == expected, role
    meeting.refresh_from_db()
    assert meeting.title == "renamed by liaison"


def test_role_groups_follow_grants_after_flush(postgres_only):
    # A flushed database (as after any transactional test) gets its role groups back from post_migrate.
    Group.objects.all().delete()
    emit_post_migrate_signal(verbosity=0, interactive=False, db=connection.alias)
    assert set(Group.objects.values_list("name", flat=True)) >= set(ROLE_GROUPS)
    assert not Group.objects.get(name="Viewer").permissions.filter(codename__startswith="change_").exists()
