"""The moved models' content types follow them to `community`, so their permissions (and the role groups
holding them) and the admin's history of their rows stay attached. A database that never had them (a new one:
content types are made after migrating) has nothing to move; where both labels exist, the old row is left."""

from django.db import migrations

MOVED = ["sig", "person", "sigmembership", "sigleadership", "sigmeeting", "sigalias"]


def _relabel(apps, schema_editor, *, old, new):
    content_type = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    taken = set(content_type.objects.using(db).filter(app_label=new, model__in=MOVED).values_list("model", flat=True))
    content_type.objects.using(db).filter(app_label=old, model__in=set(MOVED) - taken).update(app_label=new)


def forwards(apps, schema_editor):
    _relabel(apps, schema_editor, old="keps", new="community")


def backwards(apps, schema_editor):
    _relabel(apps, schema_editor, old="community", new="keps")


class Migration(migrations.Migration):
    dependencies = [
        ("community", "0001_move_to_community"),
        ("keps", "0007_move_to_community"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
