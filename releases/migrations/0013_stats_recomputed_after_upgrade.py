"""Stats stored before this migration were computed by earlier definitions of their figures (a merge rate over
the KEPs with history rather than the retro's tally, final figures for a release still in its cycle, funnel counts
for freezes still ahead). Marking them as computed at the epoch makes the next hourly state refresh
(`releases.services.release_state`) recompute every release that has a milestone, so no page keeps showing them
after the upgrade; `manage.py compute_stats` does it at once."""

import datetime

from django.db import migrations

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def mark_stale(apps, schema_editor):
    apps.get_model("releases", "ReleaseStats").objects.update(computed_at=EPOCH)


class Migration(migrations.Migration):
    dependencies = [("releases", "0012_reminderdelivery_to_reminders")]

    operations = [migrations.RunPython(mark_stale, migrations.RunPython.noop)]
