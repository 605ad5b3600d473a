"""Who may decide a SIG's plan: "may this user decide this SIG's plan?", answered once for the page, the admin,
the API's permission class and the templates.

Deciding is for the SIG's leads (the per-SIG `lead` role, `community.roles`) and curators (superusers: they edit
everything in the admin; staff alone is not enough, as every role holder is staff). Proposing a candidate is for
any signed-in person.
"""

from dataclasses import dataclass

from community.choices import SigRole
from community.models import Sig
from community.roles import user_editable_sig_ids


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str = ""  # what is missing, when not allowed ("not a lead of sig-node")

    def __bool__(self) -> bool:
        return self.allowed


def can_decide_plan(user, sig: Sig) -> Verdict:
    """Whether `user` may mark `sig`'s candidates commit / maybe / not this release, and if not, what is missing."""
    if user is None or not user.is_authenticated:
        return Verdict(False, f"not signed in: deciding needs a lead of {sig.slug} or a curator")
    if not user.is_active:
        return Verdict(False, "account inactive")
    sig_ids = user_editable_sig_ids(user, roles=(SigRole.LEAD,))
    if sig_ids is None or sig.pk in sig_ids:
        return Verdict(True)
    return Verdict(False, f"not a lead of {sig.slug}")


def can_propose(user) -> Verdict:
    """Whether `user` may propose a candidate for a plan: any signed-in, active person."""
    if user is None or not user.is_authenticated:
        return Verdict(False, "not signed in: sign in to propose a KEP")
    if not user.is_active:
        return Verdict(False, "account inactive")
    return Verdict(True)
