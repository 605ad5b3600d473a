"""GitHubCachedResponse moved to the github_sync app with its table (github_sync/migrations/0001_move_from_releases.py):
taken out of this app's state only; the table and its rows stay."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0017_retros_moved_out"),
        ("github_sync", "0001_move_from_releases"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="GitHubCachedResponse")],
            database_operations=[],
        ),
    ]
