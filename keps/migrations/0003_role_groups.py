"""The three role groups with the model permissions they had when this migration was written. SIG scoping is
applied on top by the admin.

The grants are literals, not `keps.roles.GROUP_GRANTS`: a migration replays history with the
models of its time, and today's grants may name a model added later, which this state does not have. Grants
added since are applied after every migrate by the post_migrate handler in keps/apps.py.
"""

from django.db import migrations

_VIEW_MODELS = {
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
_LIAISON_EDITS = {
    "releases": ["trackedenhancement", "retrospective", "retroitem"],
    "meetings": ["meeting", "agendaitem"],
    "keps": ["person", "kep", "featuregate"],
}
_LEAD_EDITS = {
    "releases": ["release", "milestone", "reminderdelivery"],
    "keps": ["prrapproval", "designgroup"],
}
GROUP_GRANTS = {
    "Viewer": [("view", _VIEW_MODELS)],
    "Release liaison": [("view", _VIEW_MODELS), ("add change delete", _LIAISON_EDITS)],
    "SIG lead": [("view", _VIEW_MODELS), ("add change delete", _LIAISON_EDITS), ("add change delete", _LEAD_EDITS)],
}


def create_groups(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    using = schema_editor.connection.alias
    # Django creates permissions after the whole migrate run (post_migrate); the groups need them now.
    for app_label in ("keps", "releases", "meetings"):
        app_config = apps.get_app_config(app_label)
        # create_permissions skips app configs without models_module, which historical stubs lack.
        app_config.models_module = True
        try:
            create_permissions(app_config, verbosity=0, using=using, apps=apps)
        finally:
            app_config.models_module = None
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    for name, grants in GROUP_GRANTS.items():
        wanted = {
            (app, f"{action}_{model}")
            for actions, models_by_app in grants
            for action in actions.split()
            for app, models in models_by_app.items()
            for model in models
        }
        group, _ = group_model.objects.using(using).get_or_create(name=name)
        group.permissions.add(
            *[
                permission_model.objects.using(using).get(content_type__app_label=app, codename=codename)
                for app, codename in sorted(wanted)
            ]
        )


def drop_groups(apps, schema_editor):
    using = schema_editor.connection.alias
    apps.get_model("auth", "Group").objects.using(using).filter(name__in=GROUP_GRANTS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("keps", "0002_sigmembership"),
        ("releases", "0001_initial"),
        ("meetings", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, drop_groups)]
