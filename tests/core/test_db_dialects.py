"""Each SQL-dialect module of core.db on the database the suite runs on (PostgreSQL in CI, SQLite in
`make test-fast`), and the PostgreSQL-only behaviour against a second session of the same database."""

import threading

import psycopg
import pytest
from django.db import connection

from core.db.bulk_insert import COPY_THRESHOLD, insert_values
from core.db.locks import LockTimeout, lock_key, session_lock, transaction_lock, try_lock_free
from core.db.text_search import StoredSearchVector
from core.db.upsert import upsert
from github_sync.models import GitHubCachedResponse
from meetings.models import AgendaItem, Meeting
from meetings.search import AGENDA_SEARCH
from tests.factories import AgendaItemFactory, MeetingFactory, SigFactory

pytestmark = pytest.mark.django_db


def _other_session():
    """A second PostgreSQL session on the test database (another process would hold locks the same way)."""
    db = connection.settings_dict
    params = dict(host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"])
    if db.get("PASSWORD"):
        params["password"] = db["PASSWORD"]
    return psycopg.connect(**params, autocommit=True)


def test_a_session_lock_excludes_a_second_holder_until_released():
    with session_lock(77, 1, timeout=1):
        taken = []
        if connection.vendor == "postgresql":
            with _other_session() as other:
                taken.append(other.execute("SELECT pg_try_advisory_lock(77, 1)").fetchone()[0])
        else:
            worker = threading.Thread(target=lambda: taken.append(_try_in_thread(77, 1)))
            worker.start()
            worker.join()
        assert taken == [False]
    with session_lock(77, 1, timeout=1):  # released: taken again at once
        pass


def _try_in_thread(namespace, key):
    try:
        with session_lock(namespace, key, timeout=0.2):
            return True
    except LockTimeout:
        return False


def test_a_session_lock_held_elsewhere_times_out(postgres_only):
    with _other_session() as other:
        other.execute("SELECT pg_advisory_lock(77, 2)")
        with pytest.raises(LockTimeout), session_lock(77, 2, timeout=0.3):
            pass
        other.execute("SELECT pg_advisory_unlock(77, 2)")
    with session_lock(77, 2, timeout=0.3):
        pass


def test_try_lock_free_sees_a_shared_holder_and_a_transaction_lock_holds_to_commit(postgres_only):
    key = lock_key("test-writer")
    assert try_lock_free(key)
    with _other_session() as other:
        other.execute("BEGIN")
        other.execute("SELECT pg_advisory_xact_lock_shared(%s)", [key])
        assert not try_lock_free(key)
        other.execute("COMMIT")
    assert try_lock_free(key)
    transaction_lock(key)  # ours until the test's transaction ends: another session cannot have it
    with _other_session() as other:
        assert other.execute("SELECT pg_try_advisory_lock(%s)", [key]).fetchone()[0] is False


def test_lock_keys_are_stable_signed_64_bit():
    assert lock_key("import:keps") == lock_key("import:keps") != lock_key("import:sigs")
    assert -(2**63) <= lock_key("import:keps") < 2**63


def test_upsert_inserts_new_keys_and_updates_existing_ones():
    page = dict(resource="/r", next_url="")
    upsert(
        GitHubCachedResponse,
        [GitHubCachedResponse(url="u1", etag="a", body=[{"n": 1}], **page)],
        unique_fields=["url"],
        update_fields=["etag", "body"],
    )
    upsert(
        GitHubCachedResponse,
        [
            GitHubCachedResponse(url="u1", etag="b", body={"n": "ü\u2028"}, **page),
            GitHubCachedResponse(url="u2", etag="c", body=[], **page),
        ],
        unique_fields=["url"],
        update_fields=["etag", "body"],
    )
    rows = {row.url: (row.etag, row.body) for row in GitHubCachedResponse.objects.all()}
    assert rows == {"u1": ("b", {"n": "ü\u2028"}), "u2": ("c", [])}


@pytest.mark.parametrize("count", [3, COPY_THRESHOLD])
def test_insert_values_returns_the_keys_in_order_below_and_above_the_copy_threshold(count):
    from community.models import Sig

    SigFactory(slug="sig-before")
    ids = insert_values(
        Sig,
        ["slug", "name", "mailing_list", "reminder_offsets", "kind", "label", "mission", "mailing_list_url",
         "slack_channel", "in_community"],
        [(f"sig-{n}", f"SIG {n}", "", [24, n], "sig", "", "", "", "", True) for n in range(count)],
        batch_size=500,
    )  # fmt: skip
    assert len(ids) == count and ids == sorted(ids)
    assert Sig.objects.get(pk=ids[-1]).reminder_offsets == [24, count - 1]
    assert Sig.objects.get(pk=ids[0]).slug == "sig-0"


@pytest.fixture
def agenda():
    first, second, third = MeetingFactory(), MeetingFactory(), MeetingFactory()
    items = {
        "restarts": AgendaItemFactory(meeting=first, title="Kubelet restarts", body="After an upgrade."),
        "twice": AgendaItemFactory(meeting=first, title="Kubelet, kubelet", body="The kubelet again"),
        "swap": AgendaItemFactory(meeting=second, title="Swap", body="kubelet SWAP metrics"),
        "presenter": AgendaItemFactory(meeting=second, title="Demo", body="", presenters_text="Kubelet Team"),
        "other": AgendaItemFactory(meeting=third, title="Scheduler", body="queueing hints"),
    }
    return {"meetings": (first, second, third), "items": items}


def test_text_search_finds_the_rows_holding_every_word_in_any_field(agenda):
    items = agenda["items"]

    def found(text):
        return {item.pk for item in AGENDA_SEARCH.matching(AgendaItem.objects.all(), text)}

    assert found("kubelet") == {items[name].pk for name in ("restarts", "twice", "swap", "presenter")}
    assert found("KUBELET swap") == {items["swap"].pk}  # every word, in any case, across title and notes
    assert found("kubelet ---- !!!") == found("kubelet")  # operator runs without a word are dropped, not an error
    assert found("no-such-word") == set()


def test_text_search_ranks_on_postgresql_only(agenda):
    ranks = [item.rank for item in AGENDA_SEARCH.matching(AgendaItem.objects.all(), "kubelet")]
    if connection.vendor == "postgresql":
        assert min(ranks) > 0
    else:
        assert set(ranks) == {0.0}


def test_text_search_ranks_each_row_once_by_its_best_related_match(agenda):
    first, second, _ = agenda["meetings"]
    ranked = AGENDA_SEARCH.ranked_by_related(Meeting.objects.order_by(), "agenda_items", "kubelet", rank="best")
    assert ranked.count() == 2  # `first` has three matching items: still one row
    best = {meeting.pk: meeting.best for meeting in ranked}
    assert set(best) == {first.pk, second.pk}
    matching = AGENDA_SEARCH.matching(AgendaItem.objects.all(), "kubelet").order_by("rank")
    item_ranks = {item.meeting_id: item.rank for item in matching}
    assert best == item_ranks  # the best of each meeting's items (the last one per meeting, by ascending rank)


def test_the_stored_vector_is_the_vector_of_the_searched_fields(postgres_only, agenda):
    stored, computed = zip(
        *AgendaItem.objects.annotate(stored=StoredSearchVector(), computed=AGENDA_SEARCH.vector()).values_list(
            "stored", "computed"
        ),
        strict=True,
    )
    assert stored == computed


def test_full_text_search_stems_and_reads_the_websearch_syntax(postgres_only, agenda):
    items = agenda["items"]

    def found(text):
        return {item.pk for item in AGENDA_SEARCH.matching(AgendaItem.objects.all(), text)}

    assert found("restarting upgrades") == {items["restarts"].pk}  # stems
    assert found('"swap metrics"') == {items["swap"].pk}  # a phrase
    assert found("kubelet -swap -team") == {items["restarts"].pk, items["twice"].pk}
    assert found("queueing or swap") == {items["swap"].pk, items["other"].pk}
