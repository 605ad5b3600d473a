"""Writes of the people app: linking a GitHub sign-in to its Person, a person's own preferences, one-click
unsubscribes and calendar-secret resets. Every change to someone's reminder settings is logged (PreferenceChange)."""

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Q

from community.models import Person
from reminders.models import Unsubscription

from .choices import ChangeSource
from .models import PreferenceChange, Profile, new_calendar_secret


@dataclass(frozen=True)
class GitHubEmail:
    email: str
    primary: bool
    verified: bool


def verified_primary_email(emails: list[GitHubEmail]) -> str:
    """GitHub's primary address if it is verified, else "" (an unverified address never receives reminders)."""
    return next((e.email for e in emails if e.primary and e.verified), "")


def _log(*, person, user, source, field, old, new, address="") -> PreferenceChange:
    return PreferenceChange.objects.create(
        person=person, user=user, source=source, field=field, old=str(old), new=str(new), address=address
    )


class SignInRefused(Exception):
    """A GitHub account may not sign in as this person: the message says why, for the person and the curators."""


def _bound_github_id(profile: Profile) -> str:
    """The GitHub account id `profile` belongs to: its own record, or (for a profile linked before ids were kept)
    the id of the GitHub account its user signed in with; "" when none."""
    if profile.github_id:
        return profile.github_id
    if profile.user_id is None:
        return ""
    from allauth.socialaccount.models import SocialAccount

    return (
        SocialAccount.objects.filter(user_id=profile.user_id, provider="github").values_list("uid", flat=True).first()
        or ""
    )


def person_sign_in_refusal(*, github_id: str, login: str) -> str:
    """Why GitHub account `github_id`, now called `login`, may not sign in as the person with that handle ("" if
    it may): the person's profile is bound to another account id. GitHub logins are case-insensitive and are
    freed by a rename, so a second account can hold a handle the first one had; it gets none of that person."""
    profile = Profile.objects.filter(person__github__iexact=login).select_related("person").first()
    if profile is None:
        return ""
    bound = _bound_github_id(profile)
    if bound and bound != str(github_id):
        return (
            f"The GitHub handle {login} belongs here to another GitHub account (id {bound}), not to this one "
            f"(id {github_id}). If the handle is now yours, ask a curator to move the person {profile.person.github} "
            "to your account."
        )
    return ""


@transaction.atomic
def person_sign_in(*, user, github_id: str, login: str, name: str = "", emails: list[GitHubEmail]) -> Person:
    """Link `user` (just signed in with GitHub account `github_id`, now called `login`) to the Person with that
    handle, made if new; raises SignInRefused when that person's profile is bound to another account id.

    The profile is bound to the account id; any change of the account it is linked to (a first link, a renamed
    account coming back, a curator's move) gives it a new calendar secret, so an old calendar URL stops working.
    The verified primary email becomes the account's address, and the person's when they have none yet (an
    address a curator or the person set is kept). Grants nothing: roles come only from SIG memberships."""
    github_id = str(github_id)
    refusal = person_sign_in_refusal(github_id=github_id, login=login)
    if refusal:
        raise SignInRefused(refusal)
    person = Person.objects.filter(github__iexact=login).first()
    if person is None:
        person = Person.objects.create(github=login, name=name or "")
    profile, _ = Profile.objects.select_for_update().get_or_create(person=person)
    if profile.user_id != user.pk or profile.github_id != github_id:
        # A GitHub account renamed since its last sign-in: its old handle's profile lets go of it (and of its id).
        Profile.objects.filter(Q(user=user) | Q(github_id=github_id)).exclude(pk=profile.pk).update(
            user=None, github_id=None
        )
        _log(
            person=person, user=user, source=ChangeSource.SIGN_IN, field="user", old=profile.user_id or "", new=user.pk
        )
        _log(person=person, user=user, source=ChangeSource.SIGN_IN, field="calendar_secret", old="(old)", new="(new)")
        profile.user, profile.github_id, profile.calendar_secret = user, github_id, new_calendar_secret()
        profile.save(update_fields=["user", "github_id", "calendar_secret"])
    email = verified_primary_email(emails)
    if email and user.email != email:
        user.email = email
        user.save(update_fields=["email"])
    if email and not person.email:
        _log(person=person, user=user, source=ChangeSource.SIGN_IN, field="email", old="", new=email)
        person.email = email
        person.save(update_fields=["email"])
    return person


def profile_for(*, person: Person) -> Profile:
    profile, _ = Profile.objects.get_or_create(person=person)
    return profile


#: Person fields and Profile fields a person sets on their preferences page.
PERSON_FIELDS = ("email", "reminders_opt_out")
PROFILE_FIELDS = ("email_reminders", "slack_dm", "reminder_offsets", "time_zone")


@transaction.atomic
def preferences_update(*, person: Person, user, source: str = ChangeSource.PREFERENCES, **values) -> int:
    """Set the person's own reminder settings (any of PERSON_FIELDS and PROFILE_FIELDS); each change is logged.
    Returns how many fields changed."""
    unknown = set(values) - set(PERSON_FIELDS) - set(PROFILE_FIELDS)
    if unknown:
        raise TypeError(f"not a preference: {', '.join(sorted(unknown))}")
    profile = profile_for(person=person)
    changed = 0
    for obj, fields in ((person, PERSON_FIELDS), (profile, PROFILE_FIELDS)):
        dirty = []
        for name in fields:
            if name in values and getattr(obj, name) != values[name]:
                _log(person=person, user=user, source=source, field=name, old=getattr(obj, name), new=values[name])
                setattr(obj, name, values[name])
                dirty.append(name)
        if dirty:
            obj.full_clean()
            obj.save(update_fields=dirty)
            changed += len(dirty)
    return changed


def reminders_unsubscribe(*, address: str, kind: str) -> bool:
    """Stop reminders of `kind` to `address` (from a one-click link). False if it already was; logged once."""
    address = address.strip().lower()
    try:
        with transaction.atomic():
            Unsubscription.objects.create(address=address, kind=kind)
    except IntegrityError:
        return False
    people = list(Person.objects.filter(email__iexact=address)) or [None]
    for person in people:
        _log(
            person=person,
            user=None,
            source=ChangeSource.UNSUBSCRIBE,
            field=f"unsubscribed:{kind}",
            old="",
            new="yes",
            address=address,
        )
    return True


def reminders_resubscribe(*, person: Person, user, kind: str) -> bool:
    """Undo a one-click unsubscribe of the person's address from `kind` (from their preferences page)."""
    deleted, _ = Unsubscription.objects.filter(address__iexact=person.email, kind=kind).delete()
    if deleted:
        _log(
            person=person,
            user=user,
            source=ChangeSource.PREFERENCES,
            field=f"unsubscribed:{kind}",
            old="yes",
            new="",
            address=person.email.lower(),
        )
    return bool(deleted)


def calendar_secret_reset(*, person: Person, user) -> Profile:
    """A new secret for the person's calendar URL: the old URL stops working at once."""
    profile = profile_for(person=person)
    profile.calendar_secret = new_calendar_secret()
    profile.save(update_fields=["calendar_secret"])
    _log(person=person, user=user, source=ChangeSource.CALENDAR, field="calendar_secret", old="(old)", new="(new)")
    return profile
