"""The plan history cursor's replay state stored compressed (`ReplayState.to_bytes`) instead of as JSON: the state
is written on every run, and a quarter of a MB of jsonb cost more than the rest of a small run's writes."""

import json
import zlib

from django.db import migrations, models


def pack(apps, schema_editor):
    Cursor = apps.get_model("keps", "KepHistoryCursor")
    for cursor in Cursor.objects.all():
        data = cursor.state_json or {}
        cursor.state = zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 1) if data else b""
        cursor.save(update_fields=["state"])


def unpack(apps, schema_editor):
    Cursor = apps.get_model("keps", "KepHistoryCursor")
    for cursor in Cursor.objects.all():
        cursor.state_json = json.loads(zlib.decompress(cursor.state)) if cursor.state else {}
        cursor.save(update_fields=["state_json"])


class Migration(migrations.Migration):
    dependencies = [("keps", "0008_plan_change_position")]

    operations = [
        migrations.RenameField("kephistorycursor", "state", "state_json"),
        migrations.AddField("kephistorycursor", "state", models.BinaryField(default=bytes)),
        migrations.RunPython(pack, unpack),
        migrations.RemoveField("kephistorycursor", "state_json"),
    ]
