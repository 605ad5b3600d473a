"""allauth adapters: only GitHub sign-ups (no local password sign-up), the optional org gate, and the link from
the account to the Person with the same handle (people.services.person_sign_in)."""

import logging

import httpx
from allauth.account.adapter import DefaultAccountAdapter
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from django.conf import settings
from django.shortcuts import render

from .github.views import github_api_url
from .services import GitHubEmail, person_sign_in, person_sign_in_refusal

logger = logging.getLogger(__name__)


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request):
        # Accounts come from GitHub sign-in (or a curator in the admin); nobody signs up with a password.
        return False


def is_org_member(*, token: str, org: str) -> bool:
    """Whether the token's user is an active member of `org` (GitHub "Get an organization membership for the
    authenticated user": 200 with state "active"; 404 or 403 otherwise). Needs the read:org scope."""
    try:
        response = httpx.get(
            f"{github_api_url()}/user/memberships/orgs/{org}",
            headers={"Authorization": f"token {token}", "Accept": "application/vnd.github+json"},
            timeout=10,
        )
    except httpx.HTTPError:
        logger.warning("GitHub org check for %s failed; sign-in refused", org, exc_info=True)
        return False
    return response.status_code == 200 and response.json().get("state") == "active"


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request, sociallogin):
        return sociallogin.account.provider == "github"

    def pre_social_login(self, request, sociallogin):
        org = settings.SIGTRACKER_GITHUB_ORG
        if settings.SIGTRACKER_REQUIRE_LOGIN and org:
            token = sociallogin.token.token if sociallogin.token else ""
            if not is_org_member(token=token, org=org):
                response = render(request, "people/sign_in_refused.html", {"org": org}, status=403)
                raise ImmediateHttpResponse(response)
        # Before any account is made or linked: a second GitHub account id under a login a person's profile
        # already belongs to (a renamed or re-registered handle, in any case) gets nothing of that person.
        login = sociallogin.account.extra_data.get("login", "")
        refusal = person_sign_in_refusal(github_id=sociallogin.account.uid, login=login)
        if refusal:
            self._refuse(request, sociallogin, refusal)
        if sociallogin.is_existing:
            self._link(sociallogin.user, sociallogin)

    @staticmethod
    def _refuse(request, sociallogin, refusal: str):
        # For the curators: the log says which account tried which handle.
        logger.warning(
            "GitHub sign-in refused: account id %s as %r: %s",
            sociallogin.account.uid,
            sociallogin.account.extra_data.get("login", ""),
            refusal,
        )
        response = render(request, "people/sign_in_refused.html", {"reason": refusal}, status=403)
        raise ImmediateHttpResponse(response)

    def save_user(self, request, sociallogin, form=None):
        user = super().save_user(request, sociallogin, form)
        self._link(user, sociallogin)
        return user

    @staticmethod
    def _link(user, sociallogin):
        data = sociallogin.account.extra_data
        emails = [GitHubEmail(a.email, bool(a.primary), bool(a.verified)) for a in sociallogin.email_addresses]
        person_sign_in(
            user=user,
            github_id=sociallogin.account.uid,
            login=data["login"],
            name=data.get("name") or "",
            emails=emails,
        )
