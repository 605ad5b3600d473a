"""The three role groups and their model permissions. SIG scoping is applied on top by the admin."""

from django.db import migrations

VIEW_MODELS = {
    "keps": ["sig", "person", "kep", "featuregate", "prrapproval", "designgroup", "sigmembership"],
    "releases": [
        "release",
        "milestone",
        "trackedenhancement",
        "enhancementstatuschange",
        "retrospective",
        "retroitem",
        "releasestats",
        "reminderdelivery",
    ],
    "meetings": ["meeting", "agendaitem"],
}
# A wrangler edits their SIG's board, meetings and retros (and the people and KEPs those rows refer to).
LIAISON_EDITS = {
    "releases": ["trackedenhancement", "retrospective", "retroitem"],
    "meetings": ["meeting", "agendaitem"],
    "keps": ["person", "kep", "featuregate"],
}
# A lead also runs the release calendar and reminders.
LEAD_EDITS = {
    "releases": ["release", "milestone", "reminderdelivery"],
    "keps": ["prrapproval", "designgroup"],
}
GROUPS = {
    "Viewer": [("view", VIEW_MODELS)],
    "Release liaison": [("view", VIEW_MODELS), ("add change delete", LIAISON_EDITS)],
    "SIG lead": [("view", VIEW_MODELS), ("add change delete", LIAISON_EDITS), ("add change delete", LEAD_EDITS)],
}


def create_groups(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    # Permissions are normally created after migrate; make sure they exist now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, verbosity=0, apps=apps)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, grants in GROUPS.items():
        group, _ = Group.objects.get_or_create(name=name)
        codenames = {
            (app, f"{action}_{model}")
            for actions, models_by_app in grants
            for action in actions.split()
            for app, models in models_by_app.items()
            for model in models
        }
        perms = [Permission.objects.get(content_type__app_label=app, codename=codename) for app, codename in codenames]
        group.permissions.set(perms)


def drop_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=GROUPS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("keps", "0002_sigmembership"),
        ("releases", "0001_initial"),
        ("meetings", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, drop_groups)]
