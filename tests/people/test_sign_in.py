"""Sign in with GitHub against the local stand-in (real HTTP between sigtracker and the stand-in), driven with
Django's test client; the browser test drives the same flow in Chromium."""

from urllib.parse import urlparse

import httpx
import pytest
from django.contrib.auth.models import User

from community.models import Person
from people.models import PreferenceChange, Profile
from tests.factories import PersonFactory

pytestmark = pytest.mark.django_db


def sign_in(client, standin, login, *, next_url=""):
    """The browser's part of the dance: POST the sign-in button, follow GitHub's consent, land on the callback."""
    standin.signed_in = login
    started = client.post("/accounts/github/login/" + (f"?next={next_url}" if next_url else ""))
    assert started.status_code == 302, started.content[:300]
    consent = httpx.get(started["Location"])
    assert consent.status_code == 200
    callback = consent.text.split("href='", 1)[1].split("'", 1)[0]
    parsed = urlparse(callback)
    return client.get(f"{parsed.path}?{parsed.query}")


def test_first_sign_in_creates_the_person_with_the_verified_primary_email(client, github_oauth):
    github_oauth.add_user(
        "NewAuthor",
        uid=501,
        name="New Author",
        emails=[
            {"email": "old@example.com", "primary": False, "verified": True, "visibility": None},
            {"email": "new@example.com", "primary": True, "verified": True, "visibility": "private"},
        ],
    )
    response = sign_in(client, github_oauth, "NewAuthor")
    assert response.status_code == 302 and response["Location"] == "/me/"
    person = Person.objects.get(github="NewAuthor")
    assert person.email == "new@example.com" and person.name == "New Author"
    user = Profile.objects.get(person=person).user
    assert user.email == "new@example.com"
    assert not user.is_staff and not user.is_superuser and not user.groups.exists()
    assert client.get("/me/").status_code == 200
    # Signing in grants nothing in the admin.
    assert client.get("/admin/").status_code == 302


def test_sign_in_links_the_existing_person_case_insensitively_and_keeps_their_address(client, github_oauth):
    person = PersonFactory(github="SergeyKanzhelev", email="curated@example.com")
    github_oauth.add_user(
        "sergeykanzhelev", uid=77, emails=[{"email": "gh@example.com", "primary": True, "verified": True}]
    )
    sign_in(client, github_oauth, "sergeykanzhelev")
    assert Person.objects.count() == 1
    person.refresh_from_db()
    assert person.email == "curated@example.com"
    assert Profile.objects.get(person=person).user.email == "gh@example.com"
    # A second sign-in (an existing account) links the same person and makes no second user.
    client.logout()
    sign_in(client, github_oauth, "sergeykanzhelev")
    assert User.objects.filter(person_profile__person=person).count() == 1
    assert client.get("/me/").status_code == 200


def test_an_unverified_primary_email_is_not_taken(client, github_oauth):
    github_oauth.add_user("unverified", uid=8, emails=[{"email": "x@example.com", "primary": True, "verified": False}])
    sign_in(client, github_oauth, "unverified")
    assert Person.objects.get(github="unverified").email == ""
    assert not PreferenceChange.objects.filter(field="email").exists()


def test_private_mode_org_gate(client, github_oauth, settings):
    settings.SIGTRACKER_REQUIRE_LOGIN = True
    settings.SIGTRACKER_GITHUB_ORG = "acme"
    github_oauth.add_user("outsider", uid=1, emails=[{"email": "o@example.com", "primary": True, "verified": True}])
    github_oauth.add_user("insider", uid=2, orgs=["acme"])
    # The sign-in page itself is reachable without a login in private mode.
    assert client.get("/accounts/login/").status_code == 200
    refused = sign_in(client, github_oauth, "outsider")
    assert refused.status_code == 403 and b"acme" in refused.content
    assert not Person.objects.filter(github="outsider").exists()
    assert client.get("/releases/").status_code == 302
    assert sign_in(client, github_oauth, "insider").status_code == 302
    assert client.get("/releases/").status_code == 200


def test_a_forged_callback_signs_nobody_in(client, github_oauth):
    github_oauth.add_user("someone", uid=3)
    client.post("/accounts/github/login/")
    response = client.get("/accounts/github/login/callback/?code=made-up&state=made-up")
    assert "_auth_user_id" not in client.session
    assert response.status_code in (400, 401)
    assert not User.objects.exists()


def test_break_glass_password_login_still_works_and_local_sign_up_is_closed(client, django_user_model):
    django_user_model.objects.create_superuser("admin", "admin@example.com", "break-glass-pw-123")
    response = client.post("/admin/login/?next=/admin/", {"username": "admin", "password": "break-glass-pw-123"})
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    client.logout()
    response = client.post(
        "/accounts/signup/", {"username": "mallory", "password1": "Xx-123456789", "password2": "Xx-123456789"}
    )
    assert not django_user_model.objects.filter(username="mallory").exists()


def test_a_second_github_account_with_the_same_login_in_any_case_gets_nothing_of_the_first(
    client, github_oauth, caplog
):
    """The replay: id 2001 `aojea` signs in; id 2002 `AOJEA` (a renamed or re-registered handle) must not get the
    same profile, /me/, calendar URL or the power to change the person's email."""
    github_oauth.add_user(
        "aojea", uid=2001, emails=[{"email": "victim@example.com", "primary": True, "verified": True}]
    )
    sign_in(client, github_oauth, "aojea")
    person = Person.objects.get(github="aojea")
    profile = Profile.objects.get(person=person)
    victim, secret = profile.user, profile.calendar_secret
    assert profile.github_id == "2001"
    client.logout()

    del github_oauth.users["aojea"]
    github_oauth.add_user(
        "AOJEA", uid=2002, emails=[{"email": "attacker@example.com", "primary": True, "verified": True}]
    )
    with caplog.at_level("WARNING", logger="people.adapters"):
        refused = sign_in(client, github_oauth, "AOJEA")
    assert refused.status_code == 403
    assert "another GitHub account (id 2001)" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    assert client.get("/me/").status_code == 302  # to the sign-in page
    assert "refused: account id 2002 as 'AOJEA'" in caplog.text  # for the curators
    profile.refresh_from_db()
    person.refresh_from_db()
    assert profile.user == victim and profile.github_id == "2001" and profile.calendar_secret == secret
    assert person.email == "victim@example.com"
    assert User.objects.count() == 1
    assert client.get(f"/me/calendar/{secret}.ics").status_code == 200  # still the victim's, unchanged


def test_a_renamed_account_keeps_its_id_and_a_relink_rotates_the_calendar_secret(client, github_oauth):
    github_oauth.add_user("oldname", uid=3001)
    sign_in(client, github_oauth, "oldname")
    old_profile = Profile.objects.get(person__github="oldname")
    client.logout()
    # The same account (id 3001), renamed: its new handle's person gets the profile binding; the old lets go.
    del github_oauth.users["oldname"]
    github_oauth.add_user("newname", uid=3001)
    assert sign_in(client, github_oauth, "newname").status_code == 302
    new_profile = Profile.objects.get(person__github="newname")
    old_profile.refresh_from_db()
    assert new_profile.github_id == "3001" and old_profile.github_id is None and old_profile.user is None
    # A curator's move of a person to another account is a re-link: the calendar secret changes with it.
    before = new_profile.calendar_secret
    client.logout()
    new_profile.github_id, new_profile.user = None, None
    new_profile.save()
    sign_in(client, github_oauth, "newname")
    new_profile.refresh_from_db()
    assert new_profile.github_id == "3001" and new_profile.calendar_secret != before
    assert client.get(f"/me/calendar/{before}.ics").status_code == 404
