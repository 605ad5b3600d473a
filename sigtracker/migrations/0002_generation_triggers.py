"""Triggers that bump DataGeneration on every write to a table the public pages read.

Statement-level on PostgreSQL (one bump per INSERT/UPDATE/DELETE/TRUNCATE/COPY, however many rows), row-level on
SQLite. The counter row is updated inside the writing transaction, so a new value becomes visible together with
the data it stands for. Reminder deliveries are left out: no page shows them, and reminder workers write them
concurrently.
"""

from django.db import migrations

from sigtracker.page_cache import generation_triggers_install, generation_triggers_remove


def install(apps, schema_editor):
    generation_triggers_install(schema_editor.connection)


def remove(apps, schema_editor):
    generation_triggers_remove(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("sigtracker", "0001_datageneration"),
        ("keps", "0003_role_groups"),
        ("releases", "0001_initial"),
        ("meetings", "0002_agendaitem_search_index"),
    ]

    operations = [migrations.RunPython(install, remove)]
