"""Create the data generation and heartbeat tables where they are missing (see 0001: a database from before the
move to core already has them)."""

from django.db import migrations


def create_missing_tables(apps, schema_editor):
    existing = set(schema_editor.connection.introspection.table_names())
    for name in ("DataGeneration", "Heartbeat"):
        model = apps.get_model("core", name)
        if model._meta.db_table not in existing:
            schema_editor.create_model(model)


def drop_tables(apps, schema_editor):
    for name in ("Heartbeat", "DataGeneration"):
        schema_editor.delete_model(apps.get_model("core", name))


class Migration(migrations.Migration):
    dependencies = [("core", "0001_initial")]

    operations = [migrations.RunPython(create_missing_tables, drop_tables)]
