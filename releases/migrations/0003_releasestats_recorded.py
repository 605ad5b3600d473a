"""ReleaseStats keeps a retro's recorded tally beside the figures computed from tracked rows."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("releases", "0002_github_sync"),
    ]

    operations = [
        migrations.AddField(
            model_name="releasestats",
            name="recorded_tracked",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="The retro's recorded tally of tracked KEPs, kept beside computed figures.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="releasestats",
            name="recorded_done",
            field=models.PositiveIntegerField(
                blank=True, help_text="The retro's recorded tally of merged KEPs.", null=True
            ),
        ),
    ]
