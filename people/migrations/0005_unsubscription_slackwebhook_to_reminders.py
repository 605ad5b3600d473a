"""Unsubscription and SlackWebhook moved to the reminders app with their tables
(reminders/migrations/0001_initial.py): taken out of this app's state only; the tables and their rows stay."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("people", "0004_move_to_community"),
        ("reminders", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="Unsubscription"),
                migrations.DeleteModel(name="SlackWebhook"),
            ],
            database_operations=[],
        ),
    ]
