"""The public page cache: a hit while nothing changed, a fresh page after any write, by any path (at once after an
edit through the web; after a job's write, one stale copy while the page is rendered again)."""

import time

import pytest
from django.core.cache import caches
from django.db import OperationalError, connection, connections
from django.test import override_settings

from core import page_cache
from core.page_cache import current_generation, watched_tables
from keps.models import Kep
from releases.models import Release, TrackedEnhancement
from tests.factories import (
    KepFactory,
    MeetingFactory,
    MilestoneFactory,
    PersonFactory,
    ReleaseFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db

CACHE_ON = override_settings(SIGTRACKER_PAGE_CACHE_SECONDS=300, SIGTRACKER_PAGE_CACHE_RECHECK=0)


@pytest.fixture(autouse=True)
def empty_cache():
    caches["pages"].clear()
    page_cache._memo.update(value=None, edited=None, read_at=0.0)
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
    page_cache.record_edit()  # as the middleware does after the admin's POST
    third = client.get("/releases/")
    assert third["X-Page-Cache"] == "miss"
    assert b"Renamed in the admin" in third.content


@CACHE_ON
def test_after_an_import_or_stats_write_nobody_waits_for_the_re_render(client):
    ReleaseFactory(version="1.24", name="Before")
    assert client.get("/releases/")["X-Page-Cache"] == "miss"
    # Written by a job (no edit through the web recorded): the copy goes out at once, the page is rendered after it.
    Release.objects.filter(version="1.24").update(name="Imported")
    during = client.get("/releases/")
    assert during["X-Page-Cache"] == "stale" and b"Before" in during.content
    after = client.get("/releases/")
    assert after["X-Page-Cache"] == "hit" and b"Imported" in after.content
    assert not caches["pages"].get(_rendering_lock("/releases/"))


@CACHE_ON
def test_one_re_render_after_an_answer_at_a_time_per_process(client):
    ReleaseFactory(version="1.24", name="Before")
    assert client.get("/releases/")["X-Page-Cache"] == "miss"
    Release.objects.filter(version="1.24").update(name="Imported")
    assert page_cache._background_render.acquire(blocking=False)  # another page is being re-rendered
    try:
        assert client.get("/releases/")["X-Page-Cache"] == "stale"
        assert not caches["pages"].get(_rendering_lock("/releases/"))
        assert client.get("/releases/")["X-Page-Cache"] == "stale"  # not re-rendered meanwhile
    finally:
        page_cache._background_render.release()
    assert client.get("/releases/")["X-Page-Cache"] == "stale"
    after = client.get("/releases/")
    assert after["X-Page-Cache"] == "hit" and b"Imported" in after.content


@CACHE_ON
def test_an_edit_through_the_web_is_recorded_so_its_author_never_gets_a_stale_copy(admin_client, client):
    ReleaseFactory(version="1.24", name="Before")
    assert client.get("/releases/")["X-Page-Cache"] == "miss"
    Release.objects.filter(version="1.24").update(name="After")
    assert admin_client.post("/admin/logout/").status_code < 400
    assert page_cache._read_generation()[1] == current_generation()
    after = client.get("/releases/")
    assert after["X-Page-Cache"] == "miss" and b"After" in after.content


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
def test_the_paths_never_cached_are_the_settings_not_cores(client):
    # core knows no domain app: which of their paths stay out of the cache is configuration.
    ReleaseFactory(version="1.24")
    client.get("/releases/")
    assert client.get("/releases/")["X-Page-Cache"] == "hit"
    with override_settings(SIGTRACKER_PAGE_CACHE_SKIPPED_PREFIXES=["/admin/", "/releases/"]):
        assert "X-Page-Cache" not in client.get("/releases/")


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
    # The data is the same: last minute's copy goes out at once, and the page is rendered after that answer.
    assert client.get("/")["X-Page-Cache"] == "stale"
    assert client.get("/")["X-Page-Cache"] == "hit"
    assert not caches["pages"].get(_rendering_lock("/"))


@CACHE_ON
def test_an_injected_clock_decides_the_minute_and_the_age_of_a_copy(client):
    ReleaseFactory(version="1.24")
    now = [600.0]
    previous = page_cache.set_clock(lambda: now[0])
    try:
        assert client.get("/")["X-Page-Cache"] == "miss"
        now[0] = 659.0  # the same minute by the injected clock, whatever the wall clock says
        assert client.get("/")["X-Page-Cache"] == "hit"
        now[0] = 660.0
        assert client.get("/")["X-Page-Cache"] == "stale"
        now[0] = 660.0 + 10 * 86400  # far older than any stale copy may be: rendered again while the reader waits
        assert client.get("/")["X-Page-Cache"] == "miss"
    finally:
        assert page_cache.set_clock(previous)() == now[0]


@CACHE_ON
def test_a_foreign_host_header_does_not_poison_the_calendar(client):
    # Calendar links are absolute, built from the request's host: the cached copy must be that host's only.
    MilestoneFactory(release=ReleaseFactory(version="1.24"))
    poisoned = client.get("/calendar.ics", HTTP_HOST="127.0.0.1:6666")
    assert poisoned.status_code == 200 and b"127.0.0.1:6666" in poisoned.content
    honest = client.get("/calendar.ics", HTTP_HOST="127.0.0.1")
    assert honest.status_code == 200
    assert b"6666" not in honest.content
    assert client.get("/calendar.ics", HTTP_HOST="127.0.0.1")["X-Page-Cache"] == "hit"


@CACHE_ON
def test_a_script_name_does_not_make_health_checks_cacheable(client):
    # The skipped prefixes apply to the routed path (path_info), not to a path behind a client-chosen SCRIPT_NAME:
    # a cached /healthz would report yesterday's outage, or hide today's.
    for _ in range(2):
        response = client.get("/healthz", SCRIPT_NAME="/x")
        assert response.status_code == 200
        assert "X-Page-Cache" not in response


def _open_transaction(sql: str, params=()):
    """A second connection to the test database with an open transaction that ran `sql`."""
    other = connections.create_connection("default")
    other.set_autocommit(False)
    with other.cursor() as cursor:
        cursor.execute(sql, params)
    return other


@pytest.mark.django_db(transaction=True)
def test_writers_of_unrelated_tables_do_not_wait_for_each_other(postgres_only):
    kep = KepFactory()
    meeting = MeetingFactory()
    # An import holding a transaction open on keps_kep...
    importer = _open_transaction("UPDATE keps_kep SET title = 'import in progress' WHERE id = %s", [kep.pk])
    editor = connections.create_connection("default")
    try:
        editor.set_autocommit(False)
        with editor.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '3s'")
            started = time.monotonic()
            try:
                # ...while an admin edits a meeting: no lock of the importer's may stand in the way.
                cursor.execute("UPDATE meetings_meeting SET recording_url = 'https://example.org/x' WHERE id = %s",
                               [meeting.pk])  # fmt: skip
            except OperationalError as exc:
                pytest.fail(f"the meeting update waited for the KEP import's lock: {exc}")
            waited = time.monotonic() - started
        editor.commit()
        assert waited < 1.0
    finally:
        importer.rollback()
        importer.close()
        editor.close()


@CACHE_ON
@pytest.mark.django_db(transaction=True)
def test_a_page_rendered_while_a_write_is_in_flight_is_not_cached(client, postgres_only):
    # On PostgreSQL the generation moves when the write happens, before its commit: a page rendered in between
    # shows the old data and must not be kept under the new generation.
    ReleaseFactory(version="1.24", name="Before")
    writer = _open_transaction("UPDATE releases_release SET name = 'After' WHERE version = '1.24'")
    try:
        during = client.get("/releases/")
        assert b"Before" in during.content
        assert during["X-Page-Cache"] == "skip"
        writer.commit()
    finally:
        writer.close()
    # A job's write: the copy of what was committed during the render goes out once more, and is rendered again.
    assert client.get("/releases/")["X-Page-Cache"] == "stale"
    after = client.get("/releases/")
    assert after["X-Page-Cache"] == "hit" and b"After" in after.content and b"Before" not in after.content


def _rendering_lock(path: str) -> str:
    from django.test import RequestFactory

    return f"{page_cache._key(RequestFactory().get(path))}:rendering"


@CACHE_ON
def test_while_one_request_re_renders_a_stale_page_the_others_get_the_stale_copy(client):
    ReleaseFactory(version="1.24", name="Before")
    assert client.get("/releases/")["X-Page-Cache"] == "miss"
    Release.objects.filter(version="1.24").update(name="After")
    page_cache.record_edit()
    # Another request holds the page's re-render lock: this one is served the copy it replaces, at once.
    assert caches["pages"].add(_rendering_lock("/releases/"), 1, 30)
    during = client.get("/releases/")
    assert during["X-Page-Cache"] == "stale" and b"Before" in during.content
    # Its render done (lock gone), the next request renders afresh and keeps that.
    caches["pages"].delete(_rendering_lock("/releases/"))
    after = client.get("/releases/")
    assert after["X-Page-Cache"] == "miss" and b"After" in after.content and b"Before" not in after.content
    assert client.get("/releases/")["X-Page-Cache"] == "hit"
    assert not caches["pages"].get(_rendering_lock("/releases/"))


# override_settings, not pytest-django's `settings`: that fixture undoes its change after CACHE_ON has been undone,
# restoring the settings as they were under CACHE_ON and so leaving the page cache on for every later test.
@CACHE_ON
@override_settings(SIGTRACKER_PAGE_CACHE_STALE_SECONDS=60)
def test_a_stale_copy_too_old_is_never_served(client, monkeypatch):
    ReleaseFactory(version="1.24", name="Before")
    assert client.get("/releases/")["X-Page-Cache"] == "miss"
    Release.objects.filter(version="1.24").update(name="After")
    caches["pages"].add(_rendering_lock("/releases/"), 1, 300)
    real_time = page_cache.time.time
    monkeypatch.setattr(page_cache.time, "time", lambda: real_time() + 61)
    response = client.get("/releases/")
    assert response["X-Page-Cache"] == "miss" and b"After" in response.content


@CACHE_ON
@pytest.mark.django_db(transaction=True)
def test_during_a_long_write_readers_get_the_committed_page_without_queueing(client, postgres_only):
    ReleaseFactory(version="1.24", name="Before")
    writer = _open_transaction("UPDATE releases_release SET name = 'After' WHERE version = '1.24'")
    try:
        # Rendered while the write is in flight: not fresh, but a copy of what is committed for others meanwhile.
        assert client.get("/releases/")["X-Page-Cache"] == "skip"
        caches["pages"].add(_rendering_lock("/releases/"), 1, 30)
        during = client.get("/releases/")
        assert during["X-Page-Cache"] == "stale" and b"Before" in during.content
        caches["pages"].delete(_rendering_lock("/releases/"))
        writer.commit()
    finally:
        writer.close()
    # The provisional copy is never a hit: the first request after the commit has it re-rendered.
    assert client.get("/releases/")["X-Page-Cache"] == "stale"
    after = client.get("/releases/")
    assert after["X-Page-Cache"] == "hit" and b"After" in after.content


@CACHE_ON
@pytest.mark.django_db(transaction=True)
def test_an_edit_in_flight_during_a_render_is_not_served_stale_to_its_author(client, postgres_only):
    ReleaseFactory(version="1.24", name="Before")
    writer = _open_transaction("UPDATE releases_release SET name = 'After' WHERE version = '1.24'")
    try:
        assert client.get("/releases/")["X-Page-Cache"] == "skip"
        writer.commit()
    finally:
        writer.close()
    # The write was an edit through the web, recorded after its commit at the generation the render read.
    page_cache.record_edit()
    after = client.get("/releases/")
    assert after["X-Page-Cache"] == "miss" and b"After" in after.content


@CACHE_ON
@pytest.mark.django_db(transaction=True)
def test_while_a_writer_is_in_flight_this_minutes_copy_is_served_without_re_rendering(client, postgres_only):
    ReleaseFactory(version="1.24", name="Before")
    assert client.get("/releases/")["X-Page-Cache"] == "miss"
    writer = _open_transaction("UPDATE releases_release SET name = 'After' WHERE version = '1.24'")
    try:
        # Nobody holds the re-render lock: still no render, the import's readers see the committed page.
        for _ in range(3):
            during = client.get("/releases/")
            assert during["X-Page-Cache"] == "stale" and b"Before" in during.content
        writer.commit()
    finally:
        writer.close()
    assert client.get("/releases/")["X-Page-Cache"] == "stale"
    after = client.get("/releases/")
    assert after["X-Page-Cache"] == "hit" and b"After" in after.content
