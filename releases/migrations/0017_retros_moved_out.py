"""Retrospective and RetroItem moved to the retros app with their tables (retros/migrations/0001): taken out of
this app's state only; the tables and their rows stay."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0016_figure_scope_and_source"),
        ("retros", "0001_move_from_releases"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(model_name="retrospective", name="release"),
                migrations.RemoveField(model_name="retrospective", name="sig"),
                migrations.DeleteModel(name="RetroItem"),
                migrations.DeleteModel(name="Retrospective"),
            ],
            database_operations=[],
        ),
    ]
