"""The public page cache: a hit while nothing changed, a fresh page after any write, by any path."""

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import override_settings

from keps.models import Kep
from releases.models import Release, TrackedEnhancement
from sigtracker import page_cache
from sigtracker.page_cache import current_generation, watched_tables
from tests.factories import KepFactory, PersonFactory, ReleaseFactory, TrackedEnhancementFactory

pytestmark = pytest.mark.django_db

CACHE_ON = override_settings(SIGTRACKER_PAGE_CACHE_SECONDS=300, SIGTRACKER_PAGE_CACHE_RECHECK=0)


@pytest.fixture(autouse=True)
def empty_cache():
    caches["pages"].clear()
    page_cache._memo.update(value=None, read_at=0.0)
    yield
    caches["pages"].clear()


def test_every_write_path_bumps_the_generation():
    start = current_generation()
    kep = KepFactory()  # INSERT via save()
    assert current_generation() > start
    steps = [
        lambda: Kep.objects.filter(pk=kep.pk).update(title="renamed"),  # UPDATE
        lambda: kep.authors.add(PersonFactory()),  # many-to-many table
        lambda: Release.objects.bulk_create([Release(version="1.99", major=1, minor=99)]),  # bulk INSERT
        lambda: TrackedEnhancementFactory(kep=kep),
        lambda: TrackedEnhancement.objects.all().delete(),  # DELETE
    ]
    for step in steps:
        before = current_generation()
        step()
        assert current_generation() > before, step


def test_every_table_the_pages_read_has_a_trigger():
    tables = watched_tables()
    assert "keps_kep" in tables and "keps_kep_authors" in tables and "releases_releasestats" in tables
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT DISTINCT event_object_table FROM information_schema.triggers")
        else:
            cursor.execute("SELECT DISTINCT tbl_name FROM sqlite_master WHERE type = 'trigger'")
        triggered = {row[0] for row in cursor.fetchall()}
    # A table added by a later migration without its trigger would serve stale pages: fail here instead.
    assert set(tables) <= triggered, sorted(set(tables) - triggered)


@CACHE_ON
def test_second_request_is_a_hit_and_a_write_makes_it_fresh(client):
    ReleaseFactory(version="1.24", name="Stargazer")
    first = client.get("/releases/")
    assert first.status_code == 200 and first["X-Page-Cache"] == "miss"
    second = client.get("/releases/")
    assert second["X-Page-Cache"] == "hit"
    assert second.content == first.content

    Release.objects.filter(version="1.24").update(name="Renamed in the admin")
    third = client.get("/releases/")
    assert third["X-Page-Cache"] == "miss"
    assert b"Renamed in the admin" in third.content


@CACHE_ON
def test_query_strings_are_cached_apart(client):
    ReleaseFactory(version="1.24")
    assert client.get("/keps/?stage=beta")["X-Page-Cache"] == "miss"
    assert client.get("/keps/?stage=alpha")["X-Page-Cache"] == "miss"
    assert client.get("/keps/?stage=beta")["X-Page-Cache"] == "hit"


@CACHE_ON
def test_logged_in_users_and_the_admin_are_never_cached(admin_client, client):
    assert "X-Page-Cache" not in admin_client.get("/releases/")
    assert "X-Page-Cache" not in client.get("/healthz")
    assert "X-Page-Cache" not in client.get("/admin/login/")


@CACHE_ON
def test_errors_are_not_cached(client):
    assert client.get("/releases/9.99/").status_code == 404
    ReleaseFactory(version="9.99")
    assert client.get("/releases/9.99/").status_code == 200


@CACHE_ON
def test_the_minute_is_part_of_the_key(client, monkeypatch):
    ReleaseFactory(version="1.24")
    assert client.get("/")["X-Page-Cache"] == "miss"
    assert client.get("/")["X-Page-Cache"] == "hit"
    real_time = page_cache.time.time
    monkeypatch.setattr(page_cache.time, "time", lambda: real_time() + 61)
    assert client.get("/")["X-Page-Cache"] == "miss"
