"""Per-SIG roles: who may change which SIG's rows in the admin.

Model permissions come from the three role groups (`GROUP_GRANTS`: made by keps/migrations/0003_role_groups.py,
kept in sync after every migrate by `role_groups_ensure`); this module adds the SIG scope on top: a lead or
liaison of sig-node changes sig-node's rows and nothing of sig-scheduling's.
"""

from django.contrib.auth.models import Group
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from community.choices import SigRole
from community.models import Sig, SigMembership

ROLE_GROUPS = {SigRole.LEAD: "SIG lead", SigRole.LIAISON: "Release liaison", SigRole.VIEWER: "Viewer"}

_VIEW_MODELS = {
    "community": ["sig", "person", "sigmembership", "sigleadership", "sigmeeting", "sigalias"],
    "keps": ["kep", "featuregate", "prrapproval", "designgroup"],
    "releases": [
        "release",
        "milestone",
        "trackedenhancement",
        "enhancementexception",
        "enhancementstatuschange",
        "releasestats",
        "releaseteammember",
        "featuresheetrow",
    ],
    "retros": ["retrospective", "retroitem"],
    "meetings": ["meeting", "agendaitem"],
    "reminders": ["reminderdelivery"],
    "planning": ["plancandidate", "plandecision"],
}
# A wrangler edits their SIG's board, meetings and retros (and the people and KEPs those rows refer to).
_LIAISON_EDITS = {
    "releases": ["trackedenhancement", "enhancementexception"],
    "retros": ["retrospective", "retroitem"],
    "meetings": ["meeting", "agendaitem"],
    "community": ["person"],
    "keps": ["kep", "featuregate"],
}
# A lead also runs the release calendar and reminders.
_LEAD_EDITS = {
    "releases": ["release", "milestone", "releaseteammember", "featuresheetrow"],
    # A SIG's Slack channel for the digest: its leads set it (the URL is a credential, so no view for others).
    "reminders": ["reminderdelivery", "slackwebhook"],
    "keps": ["prrapproval", "designgroup"],
    # A SIG's plan: its leads decide (append-only; the admin offers no change) and remove stray proposals.
    "planning": ["plandecision", "plancandidate"],
}
#: Group name -> [(actions, {app: [model, ...]}), ...]
GROUP_GRANTS = {
    "Viewer": [("view", _VIEW_MODELS)],
    "Release liaison": [("view", _VIEW_MODELS), ("add change delete", _LIAISON_EDITS)],
    "SIG lead": [
        ("view", _VIEW_MODELS),
        ("add change delete", _LIAISON_EDITS),
        ("add change delete view", _LEAD_EDITS),
    ],
}


def role_groups_ensure(*, apps=None, using: str = DEFAULT_DB_ALIAS) -> None:
    """Bring the three role groups in line with `GROUP_GRANTS`: create a missing group, add missing permissions,
    remove permissions no grant names. Idempotent.

    keps/migrations/0003_role_groups.py made the groups with the grants of its day (as literals: a migration
    cannot know later models); this runs after every migrate and flush (the post_migrate handler in
    keps/apps.py), so a grant on a model added later applies on fresh and existing databases alike. `apps` is
    the registry post_migrate passes (default: the live one).
    """
    from django.apps import apps as live_apps
    from django.contrib.auth.management import create_permissions

    registry = apps or live_apps
    group_model = registry.get_model("auth", "Group")
    permission_model = registry.get_model("auth", "Permission")
    tables = set(connections[using].introspection.table_names())
    if not {group_model._meta.db_table, permission_model._meta.db_table} <= tables:
        return  # auth is not migrated (yet) on this database
    # Django creates each app's permissions in its own post_migrate handler, possibly after this one.
    for app_config in live_apps.get_app_configs():
        create_permissions(app_config, verbosity=0, using=using, apps=registry)

    def migrated(app: str, model: str) -> bool:
        # A migrate to an earlier target (or a model whose migration has not run yet) leaves the model out of
        # this database's state: its grant applies after the migrate that creates it. A name in no app's
        # models at all is a mistake in GROUP_GRANTS and fails below.
        try:
            registry.get_model(app, model)
        except LookupError:
            return not _known_model(app, model)
        return True

    for name, grants in GROUP_GRANTS.items():
        wanted = {
            (app, f"{action}_{model}")
            for actions, models_by_app in grants
            for action in actions.split()
            for app, models in models_by_app.items()
            for model in models
            if migrated(app, model)
        }
        found = {
            (permission.content_type.app_label, permission.codename): permission
            for permission in permission_model.objects.using(using)
            .filter(content_type__app_label__in={app for app, _ in wanted}, codename__in={c for _, c in wanted})
            .select_related("content_type")
        }
        missing = wanted - found.keys()
        if missing:
            raise LookupError(f"GROUP_GRANTS[{name!r}] names unknown permissions: {sorted(missing)}")
        group, _ = group_model.objects.using(using).get_or_create(name=name)
        group.permissions.set([found[key] for key in sorted(wanted)])


def _known_model(app: str, model: str) -> bool:
    from django.apps import apps as live_apps

    try:
        live_apps.get_model(app, model)
    except LookupError:
        return False
    return True


#: Roles that may change rows of their SIG.
EDITING_ROLES = (SigRole.LEAD, SigRole.LIAISON)


@transaction.atomic
def sig_membership_grant(*, user, sig: Sig, role: str) -> SigMembership:
    """Make `user` a `role` of `sig`: staff access, the role's group, and the membership row."""
    if role not in SigRole.values:
        raise ValueError(f"role: unknown value {role!r}")
    membership, _ = SigMembership.objects.update_or_create(user=user, sig=sig, defaults={"role": role})
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    group = Group.objects.filter(name=ROLE_GROUPS[role]).first()
    if group is None:
        role_groups_ensure()
        group = Group.objects.get(name=ROLE_GROUPS[role])
    user.groups.add(group)
    return membership


def user_editable_sig_ids(user, roles=EDITING_ROLES) -> set[int] | None:
    """The SIGs whose rows `user` may change holding one of `roles`; None means every SIG (superusers).

    Leads and liaisons change their SIG's board, meetings, retros and KEPs; calendar and reminder rows
    (milestones, deliveries) and people ask for `roles=(SigRole.LEAD,)`.
    """
    if user.is_superuser:
        return None
    cache = user.__dict__.setdefault("_editable_sig_ids", {})
    key = tuple(sorted(roles))
    if key not in cache:
        cache[key] = set(SigMembership.objects.filter(user=user, role__in=roles).values_list("sig_id", flat=True))
    return cache[key]


def user_visible_sig_ids(user) -> set[int] | None:
    """The SIGs whose rows `user` may see in the admin; None means every SIG."""
    if user.is_superuser:
        return None
    return set(SigMembership.objects.filter(user=user).values_list("sig_id", flat=True))
