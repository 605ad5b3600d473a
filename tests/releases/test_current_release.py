"""The current release, by its dates, at any instant: one rule (`releases.rules.current_release`) for the dashboard,
`/me/`, perma-beta, the GitHub sync and the API."""

import datetime
import io
from types import SimpleNamespace

import pytest
from django.core.management import call_command

from people.selectors import current_and_next_releases
from releases.choices import ReleaseState
from releases.models import Release
from releases.rules import TYPICAL_CYCLE, current_release, release_state
from releases.selectors_perma_beta import perma_beta_reference_version
from releases.services.release_state import release_states_refresh
from tests.factories import ReleaseFactory

UTC = datetime.UTC
D = datetime.date


def at(*args) -> datetime.datetime:
    return datetime.datetime(*args, tzinfo=UTC)


def release(version, start=None, end=None, last=None):
    major, minor = map(int, version.split("."))
    return SimpleNamespace(
        version=version, major=major, minor=minor, cycle_start=start, release_date=end, last_milestone=last
    )


# -- the rule, without a database -------------------------------------------------------------------------------

V124 = release("1.24", D(2022, 1, 10), D(2022, 5, 3))
V125 = release("1.25", D(2022, 5, 23), D(2022, 8, 23))


@pytest.mark.parametrize(
    "now,version,in_cycle,summary",
    [
        (at(2022, 3, 1), "1.24", True, "v1.24 is in its cycle, release day 3 May 2022"),
        (at(2022, 5, 3), "1.24", False, "v1.24 released 3 May 2022; v1.25 begins 23 May 2022"),
        (at(2022, 5, 22, 23, 59), "1.24", False, "v1.24 released 3 May 2022; v1.25 begins 23 May 2022"),
        (at(2022, 5, 23), "1.25", True, "v1.25 is in its cycle, release day 23 Aug 2022"),
        (at(2026, 12, 1), "1.25", False, "v1.25 released 23 Aug 2022; the v1.26 schedule is not published yet"),
        (at(2021, 12, 1), "1.24", False, "v1.24 begins 10 Jan 2022"),
    ],
)
def test_current_release_at_several_instants(now, version, in_cycle, summary):
    answer = current_release([V124, V125], now=now)
    assert (answer.release.version, answer.in_cycle, answer.summary) == (version, in_cycle, summary)


def test_a_release_without_release_day_is_over_one_typical_cycle_after_its_last_date():
    v113 = release("1.13", D(2018, 10, 1), None, last=D(2018, 10, 23))
    assert release_state(v113, now=at(2018, 11, 1)) == ReleaseState.ACTIVE
    over = datetime.datetime.combine(D(2018, 10, 23) + TYPICAL_CYCLE, datetime.time(), UTC)
    assert release_state(v113, now=over) == ReleaseState.ACTIVE
    assert release_state(v113, now=over + datetime.timedelta(days=1)) == ReleaseState.RELEASED
    # In 2026, a 1.13 with no release day is not the current release while v1.25 is the latest released one.
    answer = current_release([v113, V124, V125], now=at(2026, 12, 1))
    assert (answer.release.version, answer.in_cycle) == ("1.25", False)
    assert release_state(release("1.40"), now=at(2026, 12, 1)) == ReleaseState.PLANNING


def test_overlapping_cycles_name_the_newer_release():
    v126 = release("1.26", D(2022, 8, 20), D(2022, 12, 8))
    assert current_release([V125, v126], now=at(2022, 8, 22)).release.version == "1.26"


# -- on the real schedules ---------------------------------------------------------------------------------------


@pytest.fixture
def imported(upstream_dir, hand_made_schedules):
    """Every shared README (1.8, 1.12, 1.22-1.27) and the hand-made older shapes (1.3-1.11), imported with states
    computed at an old instant, as an import long ago would have left them."""
    call_command(
        "import_schedule",
        str(upstream_dir / "sig-release" / "releases"),
        str(hand_made_schedules),
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    Release.objects.update(state=ReleaseState.ACTIVE)  # as frozen by an import in 2018
    return Release.objects.all()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "now,version,in_cycle",
    [
        (at(2018, 8, 15), "1.12", True),
        (at(2018, 10, 15), "1.12", False),  # 1.12 released 27 Sep; no 1.13 schedule in the samples
        (at(2022, 2, 1), "1.24", True),
        (at(2022, 5, 10), "1.24", False),
        (at(2026, 12, 1), "1.27", False),
    ],
)
def test_current_release_on_the_real_schedules(imported, now, version, in_cycle):
    answer = Release.objects.current_cycle(now=now)
    assert (answer.release.version, answer.in_cycle) == (version, in_cycle)
    assert Release.objects.current(now=now).version == version
    assert [r.version for r in current_and_next_releases(now=now)][0] == version


@pytest.mark.django_db
def test_stored_states_follow_the_dates_when_refreshed(imported):
    changed = release_states_refresh(now=at(2026, 12, 1))
    assert set(Release.objects.values_list("state", flat=True)) == {ReleaseState.RELEASED}
    assert len(changed) == Release.objects.count()
    assert release_states_refresh(now=at(2026, 12, 1)) == []  # twice is harmless


@pytest.mark.django_db
def test_a_release_that_moves_to_released_has_its_stats_recomputed(django_capture_on_commit_callbacks):
    from releases.models import ReleaseStats
    from tests.factories import KepFactory, TrackedEnhancementFactory

    release = ReleaseFactory(version="1.30", cycle_start=D(2024, 5, 13), planned_release_date=D(2024, 8, 13))
    TrackedEnhancementFactory(release=release, kep=KepFactory())
    Release.objects.filter(pk=release.pk).update(state=ReleaseState.ACTIVE)
    with django_capture_on_commit_callbacks(execute=True):
        assert release_states_refresh(now=at(2024, 9, 1)) == ["1.30: active -> released"]
    stats = ReleaseStats.objects.get(release=release, sig__isnull=True)
    assert stats.in_cycle is False


@pytest.mark.django_db
def test_figures_computed_before_a_freeze_are_recomputed_once_it_has_passed(django_capture_on_commit_callbacks):
    from releases.choices import MilestoneKind
    from releases.models import ReleaseStats
    from releases.services.stats import release_stats_compute
    from tests.factories import KepFactory, MilestoneFactory, TrackedEnhancementFactory

    release = ReleaseFactory(version="1.31", cycle_start=D(2024, 9, 9), planned_release_date=D(2024, 12, 11))
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(2024, 10, 11, 23))
    TrackedEnhancementFactory(release=release, kep=KepFactory())
    Release.objects.filter(pk=release.pk).update(state=ReleaseState.ACTIVE)
    release_stats_compute(release_ids=[release.pk], now=at(2024, 10, 1))
    with django_capture_on_commit_callbacks(execute=True):
        assert release_states_refresh(now=at(2024, 10, 5)) == []  # nothing passed since the figures were computed
    with django_capture_on_commit_callbacks(execute=True):
        assert release_states_refresh(now=at(2024, 10, 12)) == [
            "1.31: figures recomputed, a milestone has passed since"
        ]
    assert ReleaseStats.objects.get(release=release, sig__isnull=True).computed_at > at(2024, 10, 12)
    assert release_states_refresh(now=at(2024, 10, 12)) == []


@pytest.mark.django_db
def test_figures_stored_before_the_upgrade_are_recomputed_at_the_next_refresh(django_capture_on_commit_callbacks):
    import importlib

    from django.apps import apps

    from releases.choices import MilestoneKind
    from releases.models import ReleaseStats
    from releases.services.stats import release_stats_compute
    from tests.factories import KepFactory, MilestoneFactory, TrackedEnhancementFactory

    release = ReleaseFactory(
        version="1.32", cycle_start=D(2025, 1, 13), planned_release_date=D(2025, 4, 23), state=ReleaseState.RELEASED
    )
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=at(2025, 2, 14, 2))
    TrackedEnhancementFactory(release=release, kep=KepFactory())
    release_stats_compute(release_ids=[release.pk], now=at(2025, 5, 1))
    assert release_states_refresh(now=at(2025, 5, 2)) == []  # figures computed after every milestone: kept
    # What the migration does to figures an earlier version stored, run on the current models.
    importlib.import_module("releases.migrations.0013_stats_recomputed_after_upgrade").mark_stale(apps, None)
    with django_capture_on_commit_callbacks(execute=True):
        assert release_states_refresh(now=at(2025, 5, 2)) == ["1.32: figures recomputed, a milestone has passed since"]
    assert ReleaseStats.objects.get(release=release, sig__isnull=True).computed_at > at(2025, 5, 1)


@pytest.mark.django_db
def test_a_stale_13_style_release_is_not_current(imported):
    ReleaseFactory(version="1.13", cycle_start=D(2018, 10, 1), planned_release_date=None, state=ReleaseState.ACTIVE)
    assert Release.objects.current().version == "1.27"
    assert perma_beta_reference_version() == "1.27"


@pytest.mark.django_db
def test_dashboard_and_api_name_the_latest_released_release_between_cycles(imported, client):
    page = client.get("/").content.decode()
    assert "v1.27" in page
    assert "the v1.28 schedule is not published yet" in page
    answer = client.get("/api/v1/releases/current/").json()
    assert answer["release"]["version"] == "1.27"
    assert (answer["in_cycle"], answer["next_release"]) == (False, None)
    assert answer["release"]["state"] == "released"
