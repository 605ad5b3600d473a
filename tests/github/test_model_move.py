"""The GitHub sync's ETag cache moved from releases to github_sync with its table: a database migrated before the
move keeps every cached page, readable through the new model, and the model's permissions and admin log entries
follow it (its content type is relabelled, not made anew); rolled back, the content type goes home."""

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

# Run in the database as it stood before the move: a row written through the historical model of that state, a
# permission of the model granted to a group, and an admin log entry.
WRITE_BEFORE = """
import json

from django.db import connection
from django.db.migrations.executor import MigrationExecutor

loader = MigrationExecutor(connection).loader
apps = loader.project_state(sorted(loader.applied_migrations)).apps
ContentType, Permission = apps.get_model("contenttypes", "ContentType"), apps.get_model("auth", "Permission")
Group, User = apps.get_model("auth", "Group"), apps.get_model("auth", "User")
LogEntry = apps.get_model("admin", "LogEntry")

page = apps.get_model("releases", "GitHubCachedResponse").objects.create(
    url="https://api.github.com/repos/kubernetes/enhancements/issues?page=1",
    resource="/repos/kubernetes/enhancements/issues", etag='W/"abc"', body=[{"number": 4033}],
)
content_type = ContentType.objects.get(app_label="releases", model="githubcachedresponse")
permission = Permission.objects.get(content_type=content_type, codename="view_githubcachedresponse")
Group.objects.create(name="Move test").permissions.add(permission)
LogEntry.objects.create(
    user=User.objects.create(username="curator"), content_type_id=content_type.pk, object_id=str(page.pk),
    object_repr="page", action_flag=2, change_message="Looked.",
)
print("IDS", json.dumps([content_type.pk, permission.pk, page.pk]))
"""

# Run after migrating forward: everything read back through the project's model.
READ_AFTER = """
import json
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from github_sync.models import GitHubCachedResponse

page = GitHubCachedResponse.objects.get()
entry = LogEntry.objects.get()
print("READ", json.dumps({
    "page": [page.pk, page.resource, page.etag, page.body],
    "content_type": ContentType.objects.get_for_model(GitHubCachedResponse).pk,
    "left_behind": ContentType.objects.filter(app_label="releases", model="githubcachedresponse").count(),
    "grants": sorted(Group.objects.get(name="Move test").permissions.values_list("content_type__app_label", "pk")),
    "log_entry": [entry.content_type.app_label, entry.get_edited_object().pk == page.pk],
}))
"""

# Run after rolling the move back: where the content type is, and the rows, read by table.
READ_BACK = """
import json
from django.contrib.contenttypes.models import ContentType
from django.db import connection

labels = sorted(ContentType.objects.filter(model="githubcachedresponse").values_list("app_label", flat=True))
with connection.cursor() as cursor:
    cursor.execute("SELECT count(*) FROM releases_githubcachedresponse")
    rows = cursor.fetchone()[0]
print("BACK", json.dumps({"labels": labels, "rows": rows}))
"""


def _steps(database_url: str, *steps: tuple[str, ...]) -> str:
    return manage_steps(database_url, "sigtracker.settings.test", *steps)


def _printed(output: str, tag: str):
    return json.loads(next(line for line in output.splitlines() if line.startswith(tag)).split(" ", 1)[1])


@pytest.fixture
def scratch_database_url():
    """An empty PostgreSQL database beside the test database, dropped afterwards; named apart from the other
    migration tests' scratch databases, so they may run side by side."""
    if connection.vendor != "postgresql":
        pytest.skip("the move is checked on PostgreSQL, where production data lives")
    with postgresql_scratch_database("_github_sync_move") as url:
        yield url


def test_cached_pages_permissions_and_log_entries_survive_the_move_to_github_sync_and_back(scratch_database_url):
    # The database as the releases app left it, before the move...
    migrate_before = [("migrate", app_label, migration, "--noinput", "-v0") for app_label, migration in BEFORE]
    content_type, permission, page = _printed(
        _steps(scratch_database_url, *migrate_before, ("shell", "-c", WRITE_BEFORE)), "IDS"
    )
    # ...then the deploy that moves the model migrates forward, in a process of its own as it would be.
    after = _printed(_steps(scratch_database_url, ("migrate", "--noinput", "-v0"), ("shell", "-c", READ_AFTER)), "READ")

    assert after["page"] == [page, "/repos/kubernetes/enhancements/issues", 'W/"abc"', [{"number": 4033}]]
    # The same content type row, relabelled: no second one was made, none is left under releases.
    assert after["content_type"] == content_type
    assert after["left_behind"] == 0
    assert after["grants"] == [["github_sync", permission]]
    assert after["log_entry"] == ["github_sync", True]
    # The model as it is and the migrations agree; rolled back, the content type goes home and the row stays where
    # it always was.
    back = _steps(
        scratch_database_url,
        ("makemigrations", "--check", "--dry-run"),
        ("migrate", "github_sync", "zero", "--noinput", "-v0"),
        ("shell", "-c", READ_BACK),
    )
    assert _printed(back, "BACK") == {"labels": ["releases"], "rows": 1}
