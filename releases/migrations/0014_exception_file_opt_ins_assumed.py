"""A tracked enhancement known only from an exception file (`releases.services.release_files`) was first recorded
at the day of its request, which says nothing of where the KEP stood at the freezes before it; imports before this
migration stored that first change as if its instant were the opt-in's, so the stats counted such KEPs as not
tracked at the enhancements freeze (v1.25: "0 tracked" of six). The history is append-only: each such first change
gets a correction that supersedes it, the same change marked assumed, and the stats of those releases are marked
stale so that the next state refresh (or `manage.py compute_stats`) recomputes them."""

import datetime

from django.db import migrations

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
OPT_IN_NOTE = "opted in by its exception request"


def mark_assumed(apps, schema_editor):
    Change = apps.get_model("releases", "EnhancementStatusChange")
    superseded = Change.objects.filter(supersedes__isnull=False).values("supersedes_id")
    first_changes = Change.objects.filter(
        source="exception_file", from_status="", note=OPT_IN_NOTE, assumed=False, withdrawn=False
    ).exclude(pk__in=superseded)
    releases = set()
    corrections = []
    for change in first_changes.select_related("tracked_enhancement"):
        releases.add(change.tracked_enhancement.release_id)
        # The same change, as a new row (no primary key) superseding the one it copies, its instant assumed.
        change.supersedes_id, change.pk, change.assumed = change.pk, None, True
        change._state.adding = True
        corrections.append(change)
    Change.objects.bulk_create(corrections)
    apps.get_model("releases", "ReleaseStats").objects.filter(release_id__in=releases).update(computed_at=EPOCH)


class Migration(migrations.Migration):
    dependencies = [("releases", "0013_stats_recomputed_after_upgrade")]

    operations = [migrations.RunPython(mark_assumed, migrations.RunPython.noop)]
