"""Per-SIG roles: who may change which SIG's rows in the admin.

Model permissions come from the three groups made by keps/migrations/0003_role_groups.py; this module adds
the SIG scope on top: a lead or liaison of sig-node changes sig-node's rows and nothing of sig-scheduling's.
"""

from django.contrib.auth.models import Group
from django.db import transaction

from keps.choices import SigRole
from keps.models import Sig, SigMembership

ROLE_GROUPS = {SigRole.LEAD: "SIG lead", SigRole.LIAISON: "Release liaison", SigRole.VIEWER: "Viewer"}
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
    user.groups.add(Group.objects.get(name=ROLE_GROUPS[role]))
    return membership


def user_editable_sig_ids(user) -> set[int] | None:
    """The SIGs whose rows `user` may change; None means every SIG (superusers)."""
    if user.is_superuser:
        return None
    cached = getattr(user, "_editable_sig_ids", None)
    if cached is None:
        cached = set(SigMembership.objects.filter(user=user, role__in=EDITING_ROLES).values_list("sig_id", flat=True))
        user._editable_sig_ids = cached
    return cached


def user_visible_sig_ids(user) -> set[int] | None:
    """The SIGs whose rows `user` may see in the admin; None means every SIG."""
    if user.is_superuser:
        return None
    return set(SigMembership.objects.filter(user=user).values_list("sig_id", flat=True))
