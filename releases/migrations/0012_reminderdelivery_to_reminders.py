"""ReminderDelivery moved to the reminders app with its table (reminders/migrations/0001_initial.py): taken out of
this app's state only; the table and its rows stay."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0011_kepless_tracked_enhancements"),
        ("reminders", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="ReminderDelivery")],
            database_operations=[],
        ),
    ]
