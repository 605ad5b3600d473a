"""A KEP owner in headless Chromium: signs in with GitHub (a local stand-in of GitHub's OAuth pages and API),
sees what they owe by when, and leaves a reminder list with the one-click unsubscribe page."""

import datetime

import pytest
from django.utils import timezone

from community.models import Person
from releases.choices import EnhancementStatus, MilestoneKind, ReleaseState
from reminders.models import Unsubscription
from reminders.unsubscribe import unsubscribe_url
from tests.factories import KepFactory, MilestoneFactory, PersonFactory, ReleaseFactory, SigFactory
from tests.factories import TrackedEnhancementFactory as Tracked

pytestmark = [pytest.mark.browser]


def test_kep_owner_signs_in_with_github_and_sees_what_they_owe(page, live_server, github_oauth):
    node = SigFactory(slug="sig-node")
    today = timezone.now().date()
    release = ReleaseFactory(
        version="1.33",
        state=ReleaseState.ACTIVE,
        cycle_start=today - datetime.timedelta(days=30),
        planned_release_date=today + datetime.timedelta(days=60),
    )
    MilestoneFactory(
        release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=timezone.now() + datetime.timedelta(days=4)
    )
    owner = PersonFactory(github="mrunalp", email="")
    kep = KepFactory(number=2727, title="gRPC container probes", owning_sig=node)
    kep.authors.add(owner)
    Tracked(release=release, kep=kep, status=EnhancementStatus.AT_RISK_ENHANCEMENTS)
    github_oauth.add_user(
        "MrunalP", uid=4242, name="Mrunal", emails=[{"email": "mrunal@example.com", "primary": True, "verified": True}]
    )
    github_oauth.signed_in = "MrunalP"

    page.goto(live_server.url + "/me/")
    assert "/accounts/login/" in page.url
    page.click("#github-sign-in")
    page.wait_for_url(github_oauth.url + "/login/oauth/authorize*")
    page.click("#authorize")
    page.wait_for_url(live_server.url + "/me/")
    row = page.locator("#my-keps tr[data-kep='2727']")
    assert "gRPC container probes" in row.inner_text() and "author" in row.inner_text()
    assert "lead-opted-in" in row.inner_text()  # what the enhancements freeze still asks, from the rules
    assert Person.objects.get(github__iexact="mrunalp").email == "mrunal@example.com"
    # No admin for a sign-in without a role.
    page.goto(live_server.url + "/admin/")
    assert "/admin/login/" in page.url
    assert page.errors == []


def test_unsubscribe_in_the_browser(page, live_server, settings):
    settings.SIGTRACKER_BASE_URL = live_server.url
    page.goto(unsubscribe_url(address="carol@example.com", kind="personal"))
    assert "carol@example.com" in page.inner_text("main")
    assert not Unsubscription.objects.exists()
    page.click("#unsubscribe")
    page.wait_for_selector("#unsubscribed")
    assert Unsubscription.objects.filter(address="carol@example.com", kind="personal").count() == 1
    assert page.errors == []
