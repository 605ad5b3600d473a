"""Who may do what on a retro board: the one place views, the API and templates ask.

Each answer is None when allowed, else the refusal to show, naming what is missing ("not a lead of sig-node").
Curators (superusers) may do everything a SIG's leads may.
"""

from __future__ import annotations

from community.choices import SigRole
from community.models import Sig, SigMembership


def is_moderator(user, sig: Sig) -> bool:
    """A lead of the SIG, or a curator."""
    if not (user and user.is_authenticated):
        return False
    if user.is_superuser:
        return True
    return SigMembership.objects.filter(user=user, sig=sig, role=SigRole.LEAD).exists()


def refusal_to_moderate(user, sig: Sig) -> str | None:
    """Why `user` may not hide, merge or make action items on `sig`'s board, or None."""
    if not (user and user.is_authenticated):
        return "sign in as a lead of " + sig.slug
    if is_moderator(user, sig):
        return None
    return f"not a lead of {sig.slug} or a curator"


def refusal_to_post(user) -> str | None:
    """Why `user` may not add items or vote, or None: any signed-in person may."""
    if not (user and user.is_authenticated):
        return "sign in to add items or vote"
    return None


def is_owner(user, item) -> bool:
    """Whether `user` signed in as the action item's owner (their GitHub handle's person)."""
    if not (user and user.is_authenticated and item.owner_id):
        return False
    # The profile that binds an account to a person belongs to the people app above this one: read by relation.
    profile = getattr(user, "person_profile", None)
    return profile is not None and profile.person_id == item.owner_id


def refusal_to_set_status(user, item) -> str | None:
    """Why `user` may not set the status of action item `item`, or None: its owner or the SIG's leads and curators
    may, unless a GitHub issue is linked (then the issue's state decides, through the sync)."""
    if item.issue_url:
        return "linked to a GitHub issue: its status follows the issue"
    if is_owner(user, item):
        return None
    refusal = refusal_to_moderate(user, item.retrospective.sig)
    return None if refusal is None else f"not its owner, {refusal}"
