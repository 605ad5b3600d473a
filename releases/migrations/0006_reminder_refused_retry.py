from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0005_reminder_exception_deadline_anchor"),
    ]

    operations = [
        migrations.AddField(
            model_name="reminderdelivery",
            name="retry_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="reminderdelivery",
            name="refusals",
            field=models.PositiveIntegerField(default=0),
        ),
    ]
