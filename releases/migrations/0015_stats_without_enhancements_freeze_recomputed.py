"""A release past its release day whose schedule dates no enhancements freeze (v1.3 and v1.4, whose 2016 READMEs
give a coding start and a release day only) was given a merge rate over its rows as they stand: 28 shipped of the 28
its features sheet lists made "100 %". Such a release now has no tracked-at-freeze figure and no merge rate, as one
with no date at all; its stored stats are marked stale so that the next state refresh (or `manage.py
compute_stats`) recomputes them."""

import datetime

from django.db import migrations

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def mark_stale(apps, schema_editor):
    # The releases that have a release-wide enhancements freeze, as one subquery: `exclude()` with two conditions on
    # the milestones would not ask that both hold for the same milestone.
    Milestone = apps.get_model("releases", "Milestone")
    with_freeze = Milestone.objects.filter(kind="enhancements_freeze", sig__isnull=True).values("release_id")
    stats = apps.get_model("releases", "ReleaseStats").objects.exclude(release_id__in=with_freeze)
    stats.update(computed_at=EPOCH)


class Migration(migrations.Migration):
    dependencies = [("releases", "0014_exception_file_opt_ins_assumed")]

    operations = [migrations.RunPython(mark_stale, migrations.RunPython.noop)]
