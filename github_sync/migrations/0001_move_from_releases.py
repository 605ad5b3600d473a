"""The GitHub sync's model, moved from the releases app (GitHubCachedResponse) with its table, which keeps its name
(`db_table`), so no row moves.

The table was made by releases' own migrations, which every database has run before this one (the dependencies say
so): this migration records the model in the github_sync app's state only, and releases 0016 takes it out of that
app's state. The model's content type is renamed to the github_sync app, so its permissions (and the role groups
holding them) and the admin's log entries follow; on a database that has none yet (a new one) there is nothing to
rename.
"""

import django.utils.timezone
from django.db import migrations, models

#: (old app label, model) of each moved model; the new app label is "github_sync".
MOVED = [("releases", "githubcachedresponse")]


def _relabel(apps, *, to_old: bool) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    for old, model in MOVED:
        source, target = ("github_sync", old) if to_old else (old, "github_sync")
        if ContentType.objects.filter(app_label=target, model=model).exists():
            # Already there (made by a migrate that saw the new model): leave both as they are.
            continue
        ContentType.objects.filter(app_label=source, model=model).update(app_label=target)


def content_types_to_github_sync(apps, schema_editor):
    _relabel(apps, to_old=False)


def content_types_back(apps, schema_editor):
    _relabel(apps, to_old=True)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("releases", "0015_stats_without_enhancements_freeze_recomputed"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='GitHubCachedResponse',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('url', models.CharField(max_length=1000, unique=True)),
                        ('resource', models.CharField(db_index=True, help_text="The URL's path, shared by its pages.", max_length=300)),
                        ('etag', models.CharField(max_length=200)),
                        ('body', models.JSONField(default=list)),
                        ('next_url', models.CharField(blank=True, max_length=1000)),
                        ('fetched_at', models.DateTimeField(default=django.utils.timezone.now)),
                    ],
                    options={
                        'verbose_name': 'GitHub cached response',
                        'db_table': 'releases_githubcachedresponse',
                        'ordering': ['url'],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_types_to_github_sync, content_types_back),
    ]
