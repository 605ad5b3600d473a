"""The data generation and the heartbeat, moved from the config package's app ("sigtracker") to core.

The tables keep their names, so no data moves. This migration only records the models in core's state; 0002
creates their tables where they do not exist yet. A database migrated before the move already has them (its
`sigtracker` migrations created them) and keeps them as they are; a new database gets them from 0002.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="DataGeneration",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("value", models.BigIntegerField(default=0)),
                    ],
                    options={"verbose_name": "data generation", "db_table": "sigtracker_datageneration"},
                ),
                migrations.CreateModel(
                    name="Heartbeat",
                    fields=[
                        ("name", models.CharField(max_length=50, primary_key=True, serialize=False)),
                        ("at", models.DateTimeField()),
                    ],
                    options={"ordering": ["name"], "db_table": "sigtracker_heartbeat"},
                ),
            ],
            # The tables are made (where missing) by 0002, which sees these models in its state.
            database_operations=[],
        ),
    ]
