"""Release stats: counts, merge rate, funnel from the status history, slips, tallies, debounced requests."""

import datetime
import time
from io import StringIO

import pytest
from django.core.cache import caches
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from releases.choices import EnhancementStatus as S
from releases.choices import FigureScope, FigureSource, Freeze, MilestoneKind, StatsSource, TrackedSource
from releases.models import EnhancementException, EnhancementStatusChange, ReleaseStats
from releases.services import stats as stats_service
from releases.services.stats import release_stats_compute, release_stats_request
from releases.services.tracking import tracked_enhancement_bulk_set_status, tracked_enhancement_set_status
from tests.factories import (
    KepFactory,
    MilestoneFactory,
    ReleaseFactory,
    RetrospectiveFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db

UTC = datetime.UTC


def at(day: int, hour: int = 0) -> datetime.datetime:
    return datetime.datetime(2022, 2, day, hour, tzinfo=UTC)


def tracked(release, kep, history, **extra):
    """A tracked row whose status history is `history` [(instant, status), ...]; its status is the last one."""
    row = TrackedEnhancementFactory(release=release, kep=kep, status=history[-1][1], **extra)
    previous = ""
    for instant, status in history:
        EnhancementStatusChange.objects.create(
            tracked_enhancement=row, from_status=previous, to_status=status, changed_at=instant
        )
        previous = status
    return row


def stats_of(release, sig=None):
    return ReleaseStats.objects.get(release=release, sig=sig)


@pytest.fixture
def release():
    rel = ReleaseFactory(version="1.24")
    MilestoneFactory(release=rel, kind=MilestoneKind.PRR_FREEZE, at=at(3))
    MilestoneFactory(release=rel, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(10))
    MilestoneFactory(release=rel, kind=MilestoneKind.CODE_FREEZE, at=at(20))
    MilestoneFactory(release=rel, kind=MilestoneKind.RELEASE, at=at(27))
    return rel


def test_counts_merge_rate_and_deferred_apart_from_removed(release):
    node, storage = SigFactory(slug="sig-node"), SigFactory(slug="sig-storage")
    tracked(release, KepFactory(owning_sig=node), [(at(1), S.AT_RISK_ENHANCEMENTS), (at(25), S.DONE)])
    tracked(release, KepFactory(owning_sig=node), [(at(1), S.TRACKED_CODE), (at(25), S.DONE)], type="graduating")
    tracked(release, KepFactory(owning_sig=node), [(at(1), S.AT_RISK_ENHANCEMENTS), (at(11), S.REMOVED)])
    tracked(release, KepFactory(owning_sig=storage), [(at(1), S.TRACKED_ENHANCEMENTS), (at(15), S.DEFERRED)])

    release_stats_compute(release_ids=[release.pk])

    everything = stats_of(release)
    # Tracked = at the enhancements freeze (day 10): the row removed on day 11 was only at risk then,
    # so it never counted; the first row was at risk too but shipped, and done always counts.
    assert (everything.tracked, everything.done, everything.deferred, everything.removed) == (3, 2, 1, 1)
    assert everything.merge_rate == pytest.approx(2 / 3)
    assert everything.funnel[0]["count"] == 4  # every row opted in
    assert everything.source == StatsSource.TRACKED_ROWS
    assert everything.counts["status"] == {"deferred": 1, "done": 2, "removed_from_milestone": 1}
    assert everything.counts["type"] == {"graduating": 1, "net_new": 3}
    assert everything.counts["stage"] == {"alpha": 4}
    node_stats = stats_of(release, node)
    assert (node_stats.tracked, node_stats.done, node_stats.removed, node_stats.deferred) == (2, 2, 1, 0)
    assert node_stats.merge_rate == 1
    assert stats_of(release, storage).merge_rate == 0
    assert ReleaseStats.objects.filter(release=release).count() == 3


def test_funnel_reads_the_board_as_it_stood_at_each_freeze(release):
    node = SigFactory(slug="sig-node")
    # Opted in before PRR freeze, removed after enhancements freeze.
    tracked(release, KepFactory(owning_sig=node), [(at(1), S.AT_RISK_PRR), (at(11), S.REMOVED)])
    # Opted in after PRR freeze: not on the board at PRR freeze; shipped.
    tracked(release, KepFactory(owning_sig=node), [(at(5), S.TRACKED_ENHANCEMENTS), (at(26), S.DONE)])
    # Deferred by the SIG before code freeze.
    tracked(release, KepFactory(owning_sig=node), [(at(1), S.TRACKED_PRR), (at(15), S.DEFERRED)])
    # Removed exactly at the freeze instant: counts as out at that freeze (changed_at <= T).
    tracked(release, KepFactory(owning_sig=node), [(at(1), S.TRACKED_PRR), (at(3), S.REMOVED)])

    release_stats_compute(release_ids=[release.pk])

    funnel = stats_of(release).funnel
    steps = ["opted_in", "prr_freeze", "enhancements_freeze", "code_freeze", "shipped"]
    assert [step["step"] for step in funnel] == steps
    # The enhancements-freeze step is the headline's denominator (tracked at that instant), not "still in": the
    # first row was at risk for PRR then and the third only tracked for PRR, so neither counts.
    assert [step["count"] for step in funnel] == [4, 2, 1, 1, 1]
    assert funnel[2]["count"] == stats_of(release).tracked
    assert funnel[1]["at"] == "2022-02-03T00:00:00+00:00"
    assert funnel[4]["at"] == "2022-02-27T00:00:00+00:00"
    assert funnel[0]["at"] is None
    assert stats_of(release, node).funnel == funnel


def test_merge_rate_is_done_over_tracked_at_the_enhancements_freeze(release):
    # EF is day 10. Tracked then: counts, whatever came later.
    tracked(release, KepFactory(), [(at(1), S.AT_RISK_ENHANCEMENTS), (at(8), S.TRACKED_ENHANCEMENTS), (at(25), S.DONE)])
    tracked(release, KepFactory(), [(at(1), S.TRACKED_ENHANCEMENTS), (at(21), S.REMOVED)])
    tracked(release, KepFactory(), [(at(1), S.TRACKED_ENHANCEMENTS), (at(12), S.DEFERRED)])
    # At risk at the freeze instant, removed after it: missed the freeze, never tracked.
    tracked(release, KepFactory(), [(at(1), S.AT_RISK_ENHANCEMENTS), (at(10, 2), S.REMOVED)])
    # Opted in after the freeze, removed: not tracked at the freeze.
    tracked(release, KepFactory(), [(at(14), S.EXCEPTION_PENDING), (at(16), S.REMOVED)])
    # Opted in late with an exception, shipped: done counts, so the rate cannot exceed 1.
    tracked(release, KepFactory(), [(at(14), S.EXCEPTION_APPROVED), (at(26), S.DONE)])
    # No history at all (typed in by hand): counted as it stands today, tracked; its outcome was never recorded,
    # so the rate is not over it (unknown is no failure).
    TrackedEnhancementFactory(release=release, kep=KepFactory(), status=S.TRACKED_CODE)

    release_stats_compute(release_ids=[release.pk])

    stats = stats_of(release)
    assert (stats.tracked, stats.done) == (5, 2) and stats.merge_rate == pytest.approx(2 / 4)
    assert stats.rate_over == 4
    assert stats.funnel[0]["count"] == 7


def test_a_release_over_without_an_enhancements_freeze_counts_every_row_and_gives_no_merge_rate():
    # v1.3 and v1.4's READMEs give a coding start and a release day, never a freeze: nothing says what was
    # tracked at one, so the rows are counted as they stand ("listed") and no rate is made of them.
    rel = ReleaseFactory(version="1.30")
    tracked(rel, KepFactory(), [(at(1), S.AT_RISK_ENHANCEMENTS), (at(11), S.REMOVED)])
    tracked(rel, KepFactory(), [(at(1), S.TRACKED_ENHANCEMENTS), (at(25), S.DONE)])
    release_stats_compute(release_ids=[rel.pk])
    stats = stats_of(rel)
    assert (stats.tracked, stats.done, stats.merge_rate, stats.tracked_at_freeze) == (2, 1, None, None)
    assert stats.counts["freezes_undated"] is True
    # A retro's tally still stands for such a release: it says what the release tracked and merged.
    RetrospectiveFactory(release=rel, recorded_tracked=4, recorded_merged=1)
    release_stats_compute(release_ids=[rel.pk])
    assert stats_of(rel).merge_rate == pytest.approx(0.25)


def test_recorded_tally_is_kept_beside_synced_figures(release):
    node, storage = SigFactory(slug="sig-node"), SigFactory(slug="sig-storage")
    RetrospectiveFactory(release=release, sig=node, recorded_tracked=24, recorded_merged=13)
    tracked(release, KepFactory(owning_sig=node), [(at(1), S.TRACKED_ENHANCEMENTS), (at(25), S.DONE)])
    tracked(release, KepFactory(owning_sig=node), [(at(1), S.TRACKED_ENHANCEMENTS), (at(15), S.REMOVED)])
    release_stats_compute(release_ids=[release.pk])

    node_stats = stats_of(release, node)
    assert node_stats.source == StatsSource.TRACKED_ROWS
    # The history knows of 2 tracked KEPs, the retro of 24: the tally is the denominator, not a rate over 2.
    assert (node_stats.tracked, node_stats.done, node_stats.recorded_tracked, node_stats.recorded_done) == (
        24,
        13,
        24,
        13,
    )
    assert node_stats.tracked_source == StatsSource.RECORDED_TALLY
    assert node_stats.merge_rate == pytest.approx(13 / 24)
    assert (stats_of(release).recorded_tracked, stats_of(release).recorded_done) == (24, 13)

    # A SIG with rows but no tally: the all-SIG sum would compare unlike things, so it keeps none.
    tracked(release, KepFactory(owning_sig=storage), [(at(1), S.TRACKED_ENHANCEMENTS)])
    release_stats_compute(release_ids=[release.pk])
    assert stats_of(release, node).recorded_tracked == 24
    assert stats_of(release, storage).recorded_tracked is None
    assert stats_of(release).recorded_tracked is None and stats_of(release).tracked == 3


def test_before_release_day_figures_are_progress_and_freezes_ahead_have_no_count(release):
    # Two days before enhancements freeze (day 10): one KEP tracked for it, one still at risk, none done.
    tracked(release, KepFactory(), [(at(1), S.AT_RISK_ENHANCEMENTS), (at(6), S.TRACKED_ENHANCEMENTS)])
    tracked(release, KepFactory(), [(at(2), S.AT_RISK_ENHANCEMENTS)])
    release_stats_compute(release_ids=[release.pk], now=at(8))

    stats = stats_of(release)
    assert stats.in_cycle and stats.merge_rate is None and stats.merge_rate_change is None
    assert stats.done == 0
    counts = {step["step"]: step["count"] for step in stats.funnel}
    # PRR freeze (day 3) has passed; enhancements freeze, code freeze and release day are still ahead.
    assert counts == {"opted_in": 2, "prr_freeze": 2, "enhancements_freeze": None, "code_freeze": None, "shipped": None}
    assert all(step.get("ahead") for step in stats.funnel[2:])

    # After the release day the same rows give counts, but no merge rate: the tracked one was never marked done,
    # deferred or removed, and an unknown outcome is no failure (not 0 %).
    release_stats_compute(release_ids=[release.pk], now=at(28))
    stats = stats_of(release)
    assert not stats.in_cycle and (stats.tracked, stats.done, stats.merge_rate, stats.rate_over) == (1, 0, None, None)


def test_history_that_starts_after_the_freeze_gives_no_rate_over_the_keps_it_knows(release):
    # Imported from a retro table after the fact: where these stood at enhancements freeze was never recorded.
    for status in (S.DONE, S.REMOVED, S.REMOVED):
        row = TrackedEnhancementFactory(release=release, kep=KepFactory(), status=status)
        EnhancementStatusChange.objects.create(
            tracked_enhancement=row, from_status="", to_status=status, changed_at=at(26), assumed=True
        )
    release_stats_compute(release_ids=[release.pk], now=at(28))
    stats = stats_of(release)
    # The done one was tracked (or had an exception); the two removed ones are unknown, not "not tracked".
    assert (stats.tracked, stats.done, stats.not_recorded) == (1, 1, 2)
    assert stats.merge_rate is None and stats.tracked_source == StatsSource.TRACKED_ROWS
    assert stats.funnel[2]["unknown"] == 2

    # With the retro's tally, the tally is the denominator (1 of 3, not 1 of 1).
    RetrospectiveFactory(release=release, sig=row.sig, recorded_tracked=3, recorded_merged=1)
    release_stats_compute(release_ids=[release.pk], now=at(28))
    stats = stats_of(release)
    assert (stats.tracked, stats.done, stats.tracked_source) == (3, 1, StatsSource.RECORDED_TALLY)
    assert stats.merge_rate == pytest.approx(1 / 3)
    assert stats.funnel[2]["count"] == 3 and stats.funnel[2]["source"] == StatsSource.RECORDED_TALLY


def test_a_shipped_release_without_a_freeze_in_its_schedule_has_no_funnel_step_for_it():
    rel = ReleaseFactory(version="1.25")
    MilestoneFactory(release=rel, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(10))
    tracked(rel, KepFactory(), [(at(1), S.TRACKED_ENHANCEMENTS)])
    release_stats_compute(release_ids=[rel.pk])
    funnel = {step["step"]: step for step in stats_of(rel).funnel}
    # No PRR freeze was held: no "0 still in at PRR freeze".
    assert "prr_freeze" not in funnel
    assert funnel["enhancements_freeze"]["count"] == 1


def test_slips_list_earlier_releases_and_times():
    v22, v23, v24 = (ReleaseFactory(version=v) for v in ("1.22", "1.23", "1.24"))
    kep = KepFactory(number=2727, title="gRPC probes")
    other = KepFactory(number=3000)
    TrackedEnhancementFactory(release=v22, kep=kep, status=S.REMOVED)
    TrackedEnhancementFactory(release=v23, kep=kep, status=S.DONE)
    TrackedEnhancementFactory(release=v24, kep=kep, status=S.DEFERRED)
    TrackedEnhancementFactory(release=v24, kep=other, status=S.REMOVED)

    release_stats_compute(release_ids=None)

    assert stats_of(v24).slips == [
        {"kep": 2727, "title": "gRPC probes", "status": "deferred", "earlier_releases": ["1.22", "1.23"], "times": 2},
        {"kep": 3000, "title": other.title, "status": "removed_from_milestone", "earlier_releases": [], "times": 1},
    ]
    assert stats_of(v22).slips[0]["times"] == 1
    assert stats_of(v23).slips == []


def test_recorded_tally_is_used_and_labelled_never_invented():
    rel = ReleaseFactory(version="1.22")
    node = SigFactory(slug="sig-node")
    RetrospectiveFactory(release=rel, sig=node, recorded_tracked=20, recorded_merged=15)

    release_stats_compute(release_ids=[rel.pk])

    row = stats_of(rel, node)
    assert row.source == StatsSource.RECORDED_TALLY and row.scope == FigureScope.SIG
    assert row.figures_from == [FigureSource.RETRO_TALLY]
    assert (row.tracked, row.done, row.merge_rate) == (20, 15, 0.75)
    assert (row.recorded_tracked, row.recorded_done) == (20, 15)
    assert row.counts == {} and row.funnel == [] and row.slips == []
    # SIG Node's tally is SIG Node's: release-wide nothing is known, "recorded for 1 SIG", never 20 / 15 / 75 %.
    whole = stats_of(rel)
    assert (whole.tracked, whole.done, whole.merge_rate, whole.recorded_tracked) == (None, None, None, None)
    assert whole.scope == FigureScope.RELEASE and not whole.release_wide_known and whole.sigs_recorded == 1
    assert whole.scope_label == "recorded for 1 SIG" and row.scope_label == "sig-node"
    assert not rel.tracked_enhancements.exists()


def test_change_against_previous_release_and_following_release_refreshed():
    v22, v23 = ReleaseFactory(version="1.22"), ReleaseFactory(version="1.23")
    MilestoneFactory(release=v23, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(10))
    node = SigFactory(slug="sig-node")
    RetrospectiveFactory(release=v22, sig=node, recorded_tracked=10, recorded_merged=5)
    TrackedEnhancementFactory(release=v23, kep=KepFactory(owning_sig=node), status=S.DONE)
    release_stats_compute(release_ids=None)
    assert stats_of(v23, node).merge_rate_change == pytest.approx(0.5)
    assert stats_of(v22, node).merge_rate_change is None
    # v1.22 has SIG Node's tally only: no release-wide rate to measure a change against.
    assert stats_of(v23).merge_rate == 1 and stats_of(v23).merge_rate_change is None

    # Editing the earlier release's tally moves the later release's change too.
    v22.retrospectives.update(recorded_merged=10)
    release_stats_compute(release_ids=[v22.pk])
    assert stats_of(v23, node).merge_rate_change == pytest.approx(0.0)


def test_recompute_replaces_stale_rows():
    rel = ReleaseFactory(version="1.26")
    storage = SigFactory(slug="sig-storage")
    row = TrackedEnhancementFactory(release=rel, kep=KepFactory(owning_sig=storage))
    release_stats_compute(release_ids=[rel.pk])
    assert ReleaseStats.objects.filter(release=rel, sig=storage).exists()
    row.delete()
    release_stats_compute(release_ids=[rel.pk])
    assert not ReleaseStats.objects.filter(release=rel, sig=storage).exists()
    assert stats_of(rel).tracked == 0 and stats_of(rel).merge_rate is None


def test_query_count_does_not_grow_with_releases():
    def build(n):
        for _ in range(n):
            rel = ReleaseFactory()
            MilestoneFactory(release=rel, kind=MilestoneKind.CODE_FREEZE, at=at(20))
            for _row in range(3):
                tracked(rel, KepFactory(), [(at(1), S.TRACKED_CODE), (at(25), S.DONE)])

    build(2)
    with CaptureQueriesContext(connection) as few:
        release_stats_compute(release_ids=None)
    build(6)
    with CaptureQueriesContext(connection) as many:
        release_stats_compute(release_ids=None)
    assert len(many) == len(few)


def test_request_in_one_transaction_queues_one_job_per_release(django_capture_on_commit_callbacks, monkeypatch):
    queued = []
    monkeypatch.setattr(stats_service, "_enqueue", lambda ids: queued.append(sorted(ids)))
    a, b = ReleaseFactory(), ReleaseFactory()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        for _ in range(50):
            release_stats_request(release_ids=[a.pk])
        release_stats_request(release_ids=[b.pk, a.pk])
    assert callbacks  # one per request, each enqueuing only what the earlier ones did not
    assert sorted(pk for ids in queued for pk in ids) == sorted([a.pk, b.pk])


def test_a_request_after_a_rolled_back_one_is_still_queued(django_capture_on_commit_callbacks, monkeypatch):
    queued = []
    monkeypatch.setattr(stats_service, "_enqueue", lambda ids: queued.append(sorted(ids)))
    a, b, c = ReleaseFactory(), ReleaseFactory(), ReleaseFactory()
    with django_capture_on_commit_callbacks(execute=True):
        # A savepoint rolled back discards the callback it registered; the request after it still counts.
        with pytest.raises(RuntimeError), transaction.atomic():
            release_stats_request(release_ids=[a.pk])
            raise RuntimeError("rolled back")
        release_stats_request(release_ids=[b.pk])
    assert queued == [[b.pk]]  # a's edit was rolled back: nothing to recompute for it
    queued.clear()
    with django_capture_on_commit_callbacks(execute=True):
        # Only the savepoint asked: nothing is queued.
        with pytest.raises(RuntimeError), transaction.atomic():
            release_stats_request(release_ids=[c.pk])
            raise RuntimeError("rolled back")
    assert queued == []
    with django_capture_on_commit_callbacks(execute=True):
        release_stats_request(release_ids=[a.pk])
    assert queued == [[a.pk]]


def test_status_change_service_recomputes_stats_on_commit(django_capture_on_commit_callbacks):
    rel = ReleaseFactory(version="1.27")
    MilestoneFactory(release=rel, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(10))
    rows = [TrackedEnhancementFactory(release=rel) for _ in range(3)]
    with django_capture_on_commit_callbacks(execute=True):
        tracked_enhancement_set_status(tracked_enhancement=rows[0], status=S.DONE)
    assert stats_of(rel).done == 1
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        tracked_enhancement_bulk_set_status(
            tracked_enhancements=rel.tracked_enhancements.exclude(pk=rows[0].pk), status=S.DONE
        )
    assert len(callbacks) == 1
    assert stats_of(rel).done == 3 and stats_of(rel).merge_rate == 1


def test_debounce_skips_a_release_with_a_job_already_queued(monkeypatch, django_capture_on_commit_callbacks):
    from releases import tasks

    cache = caches[stats_service.PENDING_CACHE]

    sent = []
    monkeypatch.setattr(tasks.compute_release_stats, "apply_async", lambda args, countdown: sent.append(args))
    rel = ReleaseFactory()
    cache.delete(stats_service.pending_key(rel.pk))
    # Two separate transactions: the second finds the first one's job still queued.
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            release_stats_request(release_ids=[rel.pk])
    assert sent == [[rel.pk]]
    # Once the job starts it clears the key, so edits made meanwhile queue another.
    tasks.compute_release_stats(rel.pk)
    with django_capture_on_commit_callbacks(execute=True):
        release_stats_request(release_ids=[rel.pk])
    assert sent == [[rel.pk], [rel.pk]]
    cache.delete(stats_service.pending_key(rel.pk))


def test_compute_stats_command(capsys):
    v1, v2 = ReleaseFactory(version="1.24"), ReleaseFactory(version="1.25")
    MilestoneFactory(release=v1, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(10))
    TrackedEnhancementFactory(release=v1, status=S.DONE)
    call_command("compute_stats", "v1.24", verbosity=2)
    assert "v1.24: 1/1 done (100%)" in capsys.readouterr().out
    assert ReleaseStats.objects.filter(release=v1).exists()
    assert not ReleaseStats.objects.filter(release=v2).exists()
    call_command("compute_stats", verbosity=0)
    assert ReleaseStats.objects.filter(release=v2).exists()


def test_compute_stats_command_rejects_unknown_versions_and_changes_nothing():
    ReleaseFactory(version="1.24")
    with pytest.raises(CommandError, match="no such release: 1.99"):
        call_command("compute_stats", "1.24", "1.99", verbosity=0)
    with pytest.raises(CommandError, match="VERSION 'one'"):
        call_command("compute_stats", "one", verbosity=0)
    assert not ReleaseStats.objects.exists()


def test_admin_action_recomputes(admin_client):
    rel = ReleaseFactory(version="1.24")
    TrackedEnhancementFactory(release=rel, status=S.DONE)
    response = admin_client.post(
        "/admin/releases/release/", {"action": "recompute_stats", "_selected_action": [rel.pk]}, follow=True
    )
    assert response.status_code == 200
    assert "Stats recomputed for 1 release(s)" in response.content.decode()
    assert stats_of(rel).done == 1


def test_a_broker_outage_does_not_break_the_edit(monkeypatch, django_capture_on_commit_callbacks, caplog):
    from releases import tasks

    cache = caches[stats_service.PENDING_CACHE]

    def refuse(*args, **kwargs):
        raise ConnectionRefusedError("broker down")

    monkeypatch.setattr(tasks.compute_release_stats, "apply_async", refuse)
    rel = ReleaseFactory()
    with django_capture_on_commit_callbacks(execute=True):
        release_stats_request(release_ids=[rel.pk])
    assert "could not queue the stats recompute" in caplog.text
    # The debounce key is cleared, so the next edit tries again.
    assert cache.get(stats_service.pending_key(rel.pk)) is None


@pytest.fixture
def shared_cache_down(settings):
    """The shared cache pointed at a closed local port, as when its Redis is down."""
    from sigtracker.settings.base import shared_cache
    from tests.live_services import free_port

    settings.CACHES = {**settings.CACHES, "shared": shared_cache(f"redis://127.0.0.1:{free_port()}/0")}


def test_with_the_debounce_cache_down_every_edit_is_still_computed(
    shared_cache_down, django_capture_on_commit_callbacks, caplog
):
    rel = ReleaseFactory()
    rows = [TrackedEnhancementFactory(release=rel) for _ in range(2)]
    started = time.monotonic()
    for done, row in enumerate(rows, start=1):
        with django_capture_on_commit_callbacks(execute=True):
            tracked_enhancement_set_status(tracked_enhancement=row, status=S.DONE)
        assert stats_of(rel).done == done
    # Unreachable costs a refused connection (at most the cache's one-second timeouts), not a hung edit.
    assert time.monotonic() - started < 5
    assert f"stats debounce cache unreachable; queueing the recompute of release {rel.pk} anyway" in caplog.text
    # The job could not clear its mark either, and computed all the same.
    assert f"could not clear the mark of release {rel.pk}" in caplog.text


# -- scope and source of each figure (releases.rules.figures) ------------------------------------------------------


def test_one_sigs_notes_give_that_sigs_figures_never_the_releases(release):
    node = SigFactory(slug="sig-node")
    for status in (S.DONE, S.REMOVED, S.TRACKED_CODE):
        tracked(release, KepFactory(owning_sig=node), [(at(1), S.TRACKED_ENHANCEMENTS), (at(25), status)],
                source=TrackedSource.NOTES)  # fmt: skip
    release_stats_compute(release_ids=[release.pk], now=at(28))

    sig_row = stats_of(release, node)
    assert (sig_row.scope, sig_row.figures_from) == (FigureScope.SIG, [FigureSource.NOTES])
    # Three tracked, one done, one removed, one never marked: the rate is over the two outcomes recorded.
    assert (sig_row.tracked, sig_row.done, sig_row.rate_over) == (3, 1, 2)
    assert sig_row.merge_rate == pytest.approx(1 / 2)
    whole = stats_of(release)
    assert (whole.tracked, whole.done, whole.merge_rate) == (None, None, None)
    assert (whole.release_wide_known, whole.sigs_recorded, whole.figures_from) == (False, 1, [FigureSource.NOTES])
    out = StringIO()
    call_command("compute_stats", "v1.24", verbosity=2, stdout=out)
    assert "v1.24: no release-wide figures, recorded for 1 SIG (from SIG meeting notes)" in out.getvalue()


def test_a_board_makes_the_release_wide_figures_known_and_names_its_source(release):
    node, storage = SigFactory(slug="sig-node"), SigFactory(slug="sig-storage")
    tracked(release, KepFactory(owning_sig=node), [(at(1), S.TRACKED_ENHANCEMENTS), (at(25), S.DONE)],
            source=TrackedSource.SYNC)  # fmt: skip
    tracked(release, KepFactory(owning_sig=storage), [(at(1), S.TRACKED_ENHANCEMENTS), (at(25), S.REMOVED)],
            source=TrackedSource.NOTES)  # fmt: skip
    release_stats_compute(release_ids=[release.pk], now=at(28))
    whole = stats_of(release)
    assert (whole.tracked, whole.done, whole.merge_rate, whole.release_wide_known) == (2, 1, 0.5, True)
    assert whole.sigs_recorded == 2
    # A synced row whose history the board sync did not write came from the tracking issue's labels.
    assert sorted(whole.figures_from) == sorted([FigureSource.LABELS, FigureSource.NOTES])
    assert whole.sources_label in ("the tracking issues' labels and SIG meeting notes",
                                   "SIG meeting notes and the tracking issues' labels")  # fmt: skip


def test_a_feature_sheet_lists_the_whole_release(release):
    tracked(release, KepFactory(), [(at(1), S.TRACKED_ENHANCEMENTS), (at(25), S.DONE)],
            source=TrackedSource.FEATURE_SHEET)  # fmt: skip
    release_stats_compute(release_ids=[release.pk], now=at(28))
    whole = stats_of(release)
    assert (whole.tracked, whole.done, whole.merge_rate) == (1, 1, 1.0)
    assert whole.figures_from == [FigureSource.FEATURE_SHEET] and whole.scope_label == "release-wide"


def test_an_exception_request_for_the_enhancements_freeze_means_not_tracked_at_it(release):
    # v1.36: three enhancements-freeze exception requests dated the freeze's own day, never marked done: they
    # missed the freeze, and no outcome of theirs is recorded.
    node = SigFactory(slug="sig-node")
    for _ in range(3):
        row = tracked(release, KepFactory(owning_sig=node), [(at(10), S.EXCEPTION_PENDING)],
                      source=TrackedSource.EXCEPTION_FILE)  # fmt: skip
        EnhancementException.objects.create(release=release, tracked_enhancement=row, freeze=Freeze.ENHANCEMENTS,
                                            requested_at=at(10))  # fmt: skip
    release_stats_compute(release_ids=[release.pk], now=at(28))
    sig_row = stats_of(release, node)
    assert (sig_row.tracked, sig_row.tracked_at_freeze, sig_row.done, sig_row.merge_rate) == (0, 0, 0, None)
    assert sig_row.figures_from == [FigureSource.EXCEPTION_FILE]
    assert {step["step"]: step["count"] for step in sig_row.funnel}["enhancements_freeze"] == 0
    # An exception file lists only the KEPs that asked for more time: nothing release-wide.
    whole = stats_of(release)
    assert (whole.tracked, whole.merge_rate, whole.release_wide_known, whole.sigs_recorded) == (None, None, False, 1)


def test_a_sig_whose_outcomes_are_not_recorded_has_no_rate_rather_than_zero(release):
    # 1.22 sig-cli: one tracked, never marked done, deferred or removed: no "0 %".
    cli, node = SigFactory(slug="sig-cli"), SigFactory(slug="sig-node")
    tracked(release, KepFactory(owning_sig=cli), [(at(1), S.TRACKED_ENHANCEMENTS)])
    tracked(release, KepFactory(owning_sig=node), [(at(1), S.TRACKED_ENHANCEMENTS), (at(25), S.DONE)])
    release_stats_compute(release_ids=[release.pk], now=at(28))
    cli_row = stats_of(release, cli)
    assert (cli_row.tracked, cli_row.done, cli_row.merge_rate) == (1, 0, None)
    assert stats_of(release).merge_rate == 1.0 and stats_of(release).rate_over == 1
