"""The three role groups and their model permissions (defined in sigtracker/roles.py). SIG scoping is applied
on top by the admin."""

from django.db import migrations


def create_groups(apps, schema_editor):
    from sigtracker.roles import role_groups_ensure

    role_groups_ensure(apps=apps)


def drop_groups(apps, schema_editor):
    from sigtracker.roles import GROUP_GRANTS

    apps.get_model("auth", "Group").objects.filter(name__in=GROUP_GRANTS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("keps", "0002_sigmembership"),
        ("releases", "0001_initial"),
        ("meetings", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, drop_groups)]
