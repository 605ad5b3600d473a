"""The reminders' models moved from releases and people with their tables: a database migrated before the move
keeps every delivery, unsubscribe and Slack webhook, readable through the new models, and the permissions and admin
log entries of those models follow them (their content types are relabelled, not made anew)."""

import json

import pytest
from django.db import connection

from tests.scratch_db import manage_steps, postgresql_scratch_database

pytestmark = [pytest.mark.services, pytest.mark.django_db]

#: The last migrations of the apps the models came from, before the move (and the admin's, for its log).
BEFORE = [
    ("releases", "0009_tracking_board"),
    ("people", "0003_profile_github_id"),
    ("admin", "0003_logentry_add_action_flag_choices"),
]

# Run in the database as it stood before the move: rows written through the historical models of that state (the
# project's models have moved on), a permission of each moved model granted to a group, and an admin log entry.
WRITE_BEFORE = """
import datetime, json
from django.db import connection

from django.db.migrations.executor import MigrationExecutor
from reminders.webhook_urls import encrypt_url

loader = MigrationExecutor(connection).loader
state = loader.project_state(sorted(loader.applied_migrations))
apps = state.apps
Sig, Person = apps.get_model("keps", "Sig"), apps.get_model("keps", "Person")
Release, Milestone = apps.get_model("releases", "Release"), apps.get_model("releases", "Milestone")
ContentType, Permission = apps.get_model("contenttypes", "ContentType"), apps.get_model("auth", "Permission")
Group, User = apps.get_model("auth", "Group"), apps.get_model("auth", "User")
LogEntry = apps.get_model("admin", "LogEntry")

at = datetime.datetime(2026, 3, 1, 12, tzinfo=datetime.UTC)
sig = Sig.objects.create(slug="sig-node", name="Node", mailing_list="sig-node@kubernetes.io")
person = Person.objects.create(github="alice", email="alice@example.com")
release = Release.objects.create(version="1.36", major=1, minor=36)
milestone = Milestone.objects.create(release=release, kind="enhancements_freeze", at=at)
delivery = apps.get_model("releases", "ReminderDelivery").objects.create(
    milestone=milestone, offset_hours=168, kind="personal", recipient="alice@example.com", person=person,
    state="sent", due_at=at - datetime.timedelta(days=7), sent_at=at, message_id="<reminder-1@sigtracker>",
)
apps.get_model("people", "Unsubscription").objects.create(address="bob@example.com", kind="digest", at=at)
apps.get_model("people", "SlackWebhook").objects.create(
    sig=sig, url_encrypted=encrypt_url("https://hooks.slack.com/services/T0/B0/abcd"), url_hint="hooks.slack.com/…abcd"
)
group = Group.objects.create(name="Move test")
ids = {}
for app_label, model in (("releases", "reminderdelivery"), ("people", "unsubscription"), ("people", "slackwebhook")):
    content_type = ContentType.objects.get(app_label=app_label, model=model)
    permission = Permission.objects.get(content_type=content_type, codename=f"change_{model}")
    group.permissions.add(permission)
    ids[model] = [content_type.pk, permission.pk]
user = User.objects.create(username="curator")
LogEntry.objects.create(
    user=user, content_type_id=ids["reminderdelivery"][0], object_id=str(delivery.pk), object_repr="delivery",
    action_flag=2, change_message="Retry now (bulk action).",
)
print("IDS", json.dumps(ids))
"""

# Run after migrating forward: everything read back through the project's models.
READ_AFTER = """
import json
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from reminders.models import ReminderDelivery, SlackWebhook, Unsubscription

delivery = ReminderDelivery.objects.select_related("milestone__release", "person").get()
webhook = SlackWebhook.objects.select_related("sig").get()
unsubscribed = Unsubscription.objects.get()
group = Group.objects.get(name="Move test")
entry = LogEntry.objects.get()
print("READ", json.dumps({
    "delivery": [delivery.milestone.release.version, delivery.recipient, delivery.person.github, delivery.state,
                 delivery.message_id],
    "webhook": [webhook.sig.slug, webhook.url, webhook.enabled],
    "unsubscribed": [unsubscribed.address, unsubscribed.kind],
    "content_types": {
        model: ContentType.objects.get_for_model(cls).pk
        for model, cls in (("reminderdelivery", ReminderDelivery), ("unsubscription", Unsubscription),
                           ("slackwebhook", SlackWebhook))
    },
    "left_behind": ContentType.objects.filter(
        app_label__in=["releases", "people"], model__in=["reminderdelivery", "unsubscription", "slackwebhook"]
    ).count(),
    "group_grants": sorted(group.permissions.values_list("content_type__app_label", "codename")),
    "log_entry": [entry.content_type.app_label, entry.get_edited_object().pk == delivery.pk],
}))
"""


# Run after rolling the move back: where the content types are, and the rows, read by table.
READ_BACK = """
import json
from django.contrib.contenttypes.models import ContentType
from django.db import connection


labels = sorted(
    ContentType.objects.filter(model__in=["reminderdelivery", "unsubscription", "slackwebhook"]).values_list(
        "app_label", flat=True
    )
)
with connection.cursor() as cursor:
    rows = []
    for table in ("releases_reminderdelivery", "people_unsubscription", "people_slackwebhook"):
        cursor.execute(f"SELECT count(*) FROM {table}")
        rows.append(cursor.fetchone()[0])
print("BACK", json.dumps({"labels": labels, "rows": rows}))
"""


def _steps(database_url: str, *steps: tuple[str, ...]) -> str:
    return manage_steps(database_url, "sigtracker.settings.test", *steps)


def _printed(output: str, tag: str):
    return json.loads(next(line for line in output.splitlines() if line.startswith(tag)).split(" ", 1)[1])


@pytest.fixture
def scratch_database_url():
    """An empty PostgreSQL database beside the test database, dropped afterwards; named apart from
    `tests.scratch_db`'s, so the two migration tests may run side by side."""
    if connection.vendor != "postgresql":
        pytest.skip("the move is checked on PostgreSQL, where production data lives")
    with postgresql_scratch_database("_reminders_move") as url:
        yield url


def test_rows_permissions_and_log_entries_survive_the_move_to_the_reminders_app_and_back(scratch_database_url):
    # The database as the releases and people apps left it, before the move...
    migrate_before = [("migrate", app_label, migration, "--noinput", "-v0") for app_label, migration in BEFORE]
    before = _printed(_steps(scratch_database_url, *migrate_before, ("shell", "-c", WRITE_BEFORE)), "IDS")
    # ...then the deploy that moves the models migrates forward, in a process of its own as it would be.
    after = _printed(_steps(scratch_database_url, ("migrate", "--noinput", "-v0"), ("shell", "-c", READ_AFTER)), "READ")

    assert after["delivery"] == ["1.36", "alice@example.com", "alice", "sent", "<reminder-1@sigtracker>"]
    assert after["webhook"] == ["sig-node", "https://hooks.slack.com/services/T0/B0/abcd", True]
    assert after["unsubscribed"] == ["bob@example.com", "digest"]
    # The same content type rows, relabelled: no second one was made, none is left under the old apps.
    assert after["content_types"] == {model: ids[0] for model, ids in before.items()}
    assert after["left_behind"] == 0
    assert after["group_grants"] == [
        ["reminders", "change_reminderdelivery"],
        ["reminders", "change_slackwebhook"],
        ["reminders", "change_unsubscription"],
    ]
    assert after["log_entry"] == ["reminders", True]
    # The models as they are and the migrations agree; rolled back, the content types go home and the rows stay
    # where they always were.
    back = _steps(
        scratch_database_url,
        ("makemigrations", "--check", "--dry-run"),
        ("migrate", "reminders", "zero", "--noinput", "-v0"),
        ("shell", "-c", READ_BACK),
    )
    assert _printed(back, "BACK") == {"labels": ["people", "people", "releases"], "rows": [1, 1, 1]}
