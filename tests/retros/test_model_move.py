"""Retrospectives moved from releases to the retros app with their tables: a database migrated before the move
keeps every retro and item, readable through the new models, and the permissions, role grants and admin log
entries of those models follow them (their content types are relabelled, not made anew)."""

import json

import pytest
from django.db import connection

from tests.scratch_db import manage_steps, postgresql_scratch_database

pytestmark = [pytest.mark.services, pytest.mark.django_db]

#: The last migrations before the move (and the admin's, for its log).
BEFORE = [
    ("releases", "0015_stats_without_enhancements_freeze_recomputed"),
    ("admin", "0003_logentry_add_action_flag_choices"),
]

# Rows written through the historical models of the state before the move.
WRITE_BEFORE = """
import datetime, json
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

loader = MigrationExecutor(connection).loader
apps = loader.project_state(sorted(loader.applied_migrations)).apps
Sig, Person = apps.get_model("community", "Sig"), apps.get_model("community", "Person")
Release = apps.get_model("releases", "Release")
ContentType, Permission = apps.get_model("contenttypes", "ContentType"), apps.get_model("auth", "Permission")
Group, User = apps.get_model("auth", "Group"), apps.get_model("auth", "User")
LogEntry = apps.get_model("admin", "LogEntry")

sig = Sig.objects.create(slug="sig-node", name="Node")
person = Person.objects.create(github="alice")
r24, r25 = (Release.objects.create(version=f"1.{m}", major=1, minor=m) for m in (24, 25))
retro = apps.get_model("releases", "Retrospective").objects.create(
    release=r24, sig=sig, date=datetime.date(2022, 4, 26), recorded_tracked=23, recorded_merged=6
)
item = apps.get_model("releases", "RetroItem").objects.create(
    retrospective=retro, category="action_item", text="Write the KEP checklist", owner=person, status="open",
    due_release=r25,
)
group = Group.objects.create(name="Move test")
ids = {}
for model in ("retrospective", "retroitem"):
    content_type = ContentType.objects.get(app_label="releases", model=model)
    group.permissions.add(Permission.objects.get(content_type=content_type, codename=f"change_{model}"))
    ids[model] = content_type.pk
LogEntry.objects.create(
    user=User.objects.create(username="curator"), content_type_id=ids["retroitem"], object_id=str(item.pk),
    object_repr="item", action_flag=2, change_message="Status → done (bulk action).",
)
print("IDS", json.dumps(ids))
"""

READ_AFTER = """
import json
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from retros.models import RetroItem, Retrospective

retro = Retrospective.objects.select_related("release", "sig").get()
item = RetroItem.objects.select_related("owner", "due_release").get()
entry = LogEntry.objects.get()
print("READ", json.dumps({
    "retro": [retro.release.version, retro.sig.slug, str(retro.date), retro.recorded_tracked, retro.recorded_merged],
    "item": [item.retrospective_id == retro.pk, item.text, item.owner.github, item.status, item.due_release.version],
    "content_types": {m: ContentType.objects.get_for_model(c).pk for m, c in (("retrospective", Retrospective),
                                                                              ("retroitem", RetroItem))},
    "left_behind": ContentType.objects.filter(app_label="releases", model__in=["retrospective", "retroitem"]).count(),
    "group_grants": sorted(Group.objects.get(name="Move test").permissions.values_list("content_type__app_label",
                                                                                       "codename")),
    "lead_grants": sorted(set(Group.objects.get(name="SIG lead").permissions.filter(
        codename__endswith="retroitem").values_list("content_type__app_label", flat=True))),
    "log_entry": [entry.content_type.app_label, entry.get_edited_object().pk == item.pk],
}))
"""


def _steps(database_url: str, *steps: tuple[str, ...]) -> str:
    return manage_steps(database_url, "sigtracker.settings.test", *steps)


def _printed(output: str, tag: str):
    return json.loads(next(line for line in output.splitlines() if line.startswith(tag)).split(" ", 1)[1])


@pytest.fixture
def scratch_database_url():
    """An empty PostgreSQL database beside the test database, dropped afterwards."""
    if connection.vendor != "postgresql":
        pytest.skip("the move is checked on PostgreSQL, where production data lives")
    with postgresql_scratch_database("_retros_move") as url:
        yield url


def test_retros_rows_permissions_and_log_entries_survive_the_move_to_the_retros_app(scratch_database_url):
    migrate_before = [("migrate", app_label, migration, "--noinput", "-v0") for app_label, migration in BEFORE]
    before = _printed(_steps(scratch_database_url, *migrate_before, ("shell", "-c", WRITE_BEFORE)), "IDS")
    after = _printed(_steps(scratch_database_url, ("migrate", "--noinput", "-v0"), ("shell", "-c", READ_AFTER)), "READ")

    assert after["retro"] == ["1.24", "sig-node", "2022-04-26", 23, 6]
    assert after["item"] == [True, "Write the KEP checklist", "alice", "open", "1.25"]
    assert after["content_types"] == before  # the same rows, relabelled
    assert after["left_behind"] == 0
    assert after["group_grants"] == [["retros", "change_retroitem"], ["retros", "change_retrospective"]]
    assert after["lead_grants"] == ["retros"]
    assert after["log_entry"] == ["retros", True]
    _steps(scratch_database_url, ("makemigrations", "--check", "--dry-run"))
