"""The curated SIG Node fixtures (`fixtures/*.yaml`, loaded by `make demo`): they load into an empty
database, the facts the demo tells hold, and — read against the shared upstream notes and release
schedules — a typo in a fixture fails a test."""

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection

from community.models import Person, Sig
from devdata.fixtures import FIXTURE_FILES
from keps.models import DesignGroup, FeatureGate, Kep, PrrApproval
from meetings.models import AgendaItem, Meeting
from releases.models import EnhancementStatusChange, Milestone, Release, TrackedEnhancement
from retros.models import RetroItem, Retrospective

UTC = dt.UTC
PACIFIC = ZoneInfo("America/Los_Angeles")

DONE_124 = {281, 688, 2133, 2221, 2712, 2727}
REMOVED_124 = {127, 1287, 1972, 2008, 2043, 2254, 2371, 2400, 2413, 2535, 2823, 2837, 2872, 2902, 3063, 3085, 3162}

# The coverage overview's merged design groups (../shared/seeds/kep-feature-coverage.txt).
DESIGN_GROUP_KEPS = {
    "scheduler-core": {624, 785, 1451, 3521, 4247, 6132, 5598, 895, 1258, 3022, 3094, 4832, 5229},
    "workload-gang-scheduling": {4671, 5710, 6012, 6089, 5732, 5832, 583},
    "dra": {4381, 3063, 5007, 5075, 5517, 5729, 5941, 5963, 6080, 5055, 4815, 4816, 5030},
    "hpa-autoscaling": {4951, 853, 2702, 1610, 117, 5325, 2021, 5679, 5030},
    "in-place-pod-resize": {1287, 5419, 5526, 5554, 6122, 5836},
    "node-runtime-observability-security": {
        2040,
        2221,
        585,
        3570,
        1769,
        693,
        753,
        127,
        2033,
        2371,
        4205,
        5394,
        4680,
        5328,
    },
}
DESIGN_GROUP_SIGS = {
    "scheduler-core": {"sig-scheduling"},
    "workload-gang-scheduling": {"sig-scheduling"},
    "dra": {"sig-node", "sig-scheduling", "sig-autoscaling"},
    "hpa-autoscaling": {"sig-autoscaling"},
    "in-place-pod-resize": {"sig-node", "sig-scheduling"},
    "node-runtime-observability-security": {"sig-node"},
}

# SIG Node notes, December 6, 2022, "[SergeyKanzhelev] No perma betas".
PERMA_BETAS = {
    "AppArmor": ("beta", "1.4", ["tallclair"]),
    "QOSReserved": ("alpha", "1.11", ["sjenning"]),
    "RotateKubeletServerCertificate": ("beta", "1.12", ["mikedanese"]),
    "CustomCPUCFSQuotaPeriod": ("alpha", "1.12", ["szuecs"]),
    "KubeletPodResources": ("beta", "1.15", ["dashpole"]),
    "TopologyManager": ("beta", "1.18", ["lmdaly"]),
    "DownwardAPIHugePages": ("beta", "1.21", ["derekwaynecarr"]),
    "ProbeTerminationGracePeriod": ("beta", "1.22", []),
}
PERMA_LINE = re.compile(r"^\* (\w+) (alpha|beta) since (\d+\.\d+)\s+\(owner:\s*([^)]*)\)", re.M)


@pytest.fixture(scope="module")
def demo_data(django_db_setup, django_db_blocker):
    """Load the fixtures once for the module into the empty test database, and empty it afterwards
    (loading takes a couple of seconds; each test still runs in its own rolled-back transaction)."""
    with django_db_blocker.unblock():
        assert not Release.objects.exists(), "the test database should start empty"
        call_command("loaddata", *FIXTURE_FILES, verbosity=0)
        try:
            yield
        finally:
            _empty_domain_tables()


def _empty_domain_tables():
    """Empty the tables of the domain apps (their many-to-many tables included): cheaper than a
    full flush, which re-creates permissions and content types. Rows the migrations seed (SIG aliases) stay, as
    the next test module expects a freshly migrated database."""
    seeded = {label.lower() for label in settings.SIGTRACKER_MIGRATION_SEEDED_MODELS}
    tables = [
        model._meta.db_table
        for label in ("community", "keps", "releases", "meetings")
        for model in apps.get_app_config(label).get_models(include_auto_created=True)
        if model._meta.label_lower not in seeded
    ]
    statements = connection.ops.sql_flush(no_style(), tables, reset_sequences=True, allow_cascade=True)
    connection.ops.execute_sql_flush(statements)


pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_data")]


def at(release: str, kind: str, sig: str | None = None) -> Milestone:
    return Milestone.objects.get(release__version=release, kind=kind, sig__slug=sig)


def test_every_fixture_file_loads_rows_of_its_models():
    for model, minimum in (
        (Sig, 3),
        (Person, 50),
        (Kep, 60),
        (FeatureGate, 50),
        (PrrApproval, 50),
        (DesignGroup, 6),
        (Release, 6),
        (Milestone, 50),
        (TrackedEnhancement, 23),
        (EnhancementStatusChange, 46),
        (Retrospective, 3),
        (RetroItem, 20),
        (Meeting, 5),
        (AgendaItem, 30),
    ):
        assert model.objects.count() >= minimum, model.__name__


def test_releases_122_to_127_exist_in_numeric_order_with_their_numeric_parts():
    # loaddata saves raw, so the fixture itself must carry major/minor in step with the version.
    releases = list(Release.objects.all())
    assert [r.version for r in releases] == ["1.22", "1.23", "1.24", "1.25", "1.26", "1.27"]
    assert all((r.major, r.minor) == tuple(int(p) for p in r.version.split(".")) for r in releases)
    assert Release.objects.get(version="1.24").name == "Stargazer"


def test_124_tracks_23_enhancements_6_done_17_removed():
    rows = TrackedEnhancement.objects.filter(release__version="1.24")
    assert rows.count() == 23
    assert set(rows.filter(status="done").values_list("kep__number", flat=True)) == DONE_124
    assert set(rows.filter(status="removed_from_milestone").values_list("kep__number", flat=True)) == REMOVED_124
    assert set(rows.values_list("sig__slug", flat=True)) == {"sig-node"}
    assert rows.get(kep__number=2727).assignee.github == "SergeyKanzhelev"
    assert rows.get(kep__number=2221).type == "major_change"
    assert rows.get(kep__number=688).target_stage == "stable"


def test_124_history_reproduces_the_board_and_marks_the_assumed_start():
    freeze = at("1.24", "enhancements_freeze").at
    for row in TrackedEnhancement.objects.filter(release__version="1.24").prefetch_related("history"):
        changes = list(row.history.all())
        assert changes[-1].to_status == row.status
        first = changes[0]
        assert first.changed_at == freeze and "Assumed" in first.note
        assert changes[-1].changed_at.date() == dt.date(2022, 4, 26)


def test_124_freeze_schedule():
    assert at("1.24", "prr_freeze").at == dt.datetime(2022, 1, 27, tzinfo=UTC)
    assert at("1.24", "prr_freeze").all_day
    assert at("1.24", "enhancements_freeze").at == dt.datetime(2022, 2, 4, 2, 0, tzinfo=UTC)
    soft = at("1.24", "sig_soft_freeze", "sig-node")
    assert soft.at == dt.datetime(2022, 3, 4, tzinfo=UTC) and soft.all_day
    assert at("1.24", "code_freeze").at == dt.datetime(2022, 3, 30, 1, 0, tzinfo=UTC)
    assert at("1.24", "test_freeze").at == dt.datetime(2022, 4, 6, 1, 0, tzinfo=UTC)
    release = at("1.24", "release")
    assert release.at == dt.datetime(2022, 5, 3, tzinfo=UTC) and release.all_day
    assert Release.objects.get(version="1.24").planned_release_date == dt.date(2022, 5, 3)


def test_126_enhancements_freeze_is_18_00_pdt_october_6():
    freeze = at("1.26", "enhancements_freeze").at
    assert freeze == dt.datetime(2022, 10, 7, 1, 0, tzinfo=UTC)
    assert freeze.astimezone(PACIFIC) == dt.datetime(2022, 10, 6, 18, 0, tzinfo=PACIFIC)


def test_every_release_has_its_freezes_in_order():
    order = ["cycle_start", "enhancements_freeze", "code_freeze", "test_freeze", "docs_freeze", "release"]
    for release in Release.objects.all():
        instants = [at(release.version, kind).at for kind in order]
        assert instants == sorted(instants), release.version
        assert instants[0].date() == release.cycle_start
        assert instants[-1].date() == release.planned_release_date


def test_all_day_milestones_sit_at_midnight_utc():
    for milestone in Milestone.objects.filter(all_day=True):
        assert milestone.at.astimezone(UTC).time() == dt.time(0, 0), milestone


def test_design_groups_and_their_keps():
    groups = {g.slug: g for g in DesignGroup.objects.prefetch_related("keps", "sigs")}
    assert set(groups) == set(DESIGN_GROUP_KEPS)
    for slug, numbers in DESIGN_GROUP_KEPS.items():
        assert {k.number for k in groups[slug].keps.all()} == numbers, slug
        assert {s.slug for s in groups[slug].sigs.all()} == DESIGN_GROUP_SIGS[slug], slug
        assert groups[slug].coverage_status == "detailed"
    # A KEP may belong to several groups: the attach-limit autoscaler is in DRA and HPA.
    assert set(Kep.objects.get(number=5030).design_groups.values_list("slug", flat=True)) == {"dra", "hpa-autoscaling"}


def test_retro_tallies():
    tallies = {
        r.release.version: (r.recorded_tracked, r.recorded_merged)
        for r in Retrospective.objects.select_related("release")
        if r.has_recorded_tally
    }
    assert tallies == {"1.22": (24, 13), "1.23": (14, 8), "1.24": (23, 6)}


def test_123_retro_items_and_its_four_action_items():
    retro = Retrospective.objects.get(release__version="1.23", sig__slug="sig-node")
    assert retro.date == dt.date(2021, 12, 7)
    items = retro.items.all()
    assert items.filter(category="went_well").count() == 3
    assert items.filter(category="to_improve").count() == 2
    actions = items.filter(category="action_item")
    assert actions.count() == 4
    # The notes name no owner and no follow-through for them.
    assert {(a.owner, a.status) for a in actions} == {(None, "not_recorded")}
    assert actions.filter(text__startswith="Don’t accept changes without test coverage").exists()


def test_perma_beta_list_with_owners():
    item = AgendaItem.objects.get(meeting__date=dt.date(2022, 12, 6), title__startswith="No perma betas")
    assert item.presenters_text == "SergeyKanzhelev"
    listed = {
        gate: (stage, since, re.findall(r"@([A-Za-z0-9-]+)", owners))
        for gate, stage, since, owners in PERMA_LINE.findall(item.body)
    }
    assert listed == PERMA_BETAS
    owners = {h for _, _, hs in PERMA_BETAS.values() for h in hs}
    assert set(Person.objects.filter(github__in=owners).values_list("github", flat=True)) == owners
    # Each gate that has a KEP here links it.
    gated = set(FeatureGate.objects.filter(name__in=PERMA_BETAS).values_list("kep__number", flat=True))
    assert gated and gated <= set(item.keps.values_list("number", flat=True))


def test_meetings_are_tuesdays_with_their_pr_flow():
    meetings = Meeting.objects.all()
    assert all(m.date.weekday() == 1 for m in meetings)  # SIG Node meets on Tuesdays
    dec6 = Meeting.objects.get(sig__slug="sig-node", date=dt.date(2022, 12, 6))
    assert (dec6.open_prs, dec6.prs_created, dec6.prs_updated, dec6.prs_closed, dec6.prs_merged) == (218, 11, 63, 7, 2)
    assert Meeting.objects.get(date=dt.date(2022, 2, 22)).cancelled
    for meeting in meetings:
        orders = list(meeting.agenda_items.values_list("order", flat=True))
        assert orders == list(range(1, len(orders) + 1)), meeting


def test_people_are_bare_github_handles():
    # The sources give handles only; a name or email here would be invented.
    assert not Person.objects.exclude(name="", email="").exists()


# ------------------------------------------------------------ cross-checks against the shared sources


def notes_section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def table_numbers(section: str, caption: str) -> set[int]:
    """KEP numbers of the HTML table after `caption` (their cells hold the number on its own line)."""
    table = section[section.index(caption) :]
    table = table[: table.index("</table>")]
    return {int(n) for n in re.findall(r">\s*\n(\d+)</p>", table)}


def test_124_done_and_removed_match_the_april_26_2022_notes(upstream_dir):
    notes = (upstream_dir / "community/sig-node/archive/meeting-notes-2022.md").read_text()
    section = notes_section(notes, "April 26, 2022")
    rows = TrackedEnhancement.objects.filter(release__version="1.24")
    done = set(rows.filter(status="done").values_list("kep__number", flat=True))
    removed = set(rows.filter(status="removed_from_milestone").values_list("kep__number", flat=True))
    assert table_numbers(section, "Done (6):") == done
    assert table_numbers(section, "Removed from Milestone (17):") == removed
    quoted = {
        f"1.{minor}": (int(tracked), int(merged))
        for minor, tracked, merged in re.findall(
            r"1\.(2\d) (?:release with|was tracking|with) (\d+)(?: KEPs)?(?: tracked)? (?:and|with) \*\*(\d+) merged",
            section,
        )
    }
    recorded = {
        r.release.version: (r.recorded_tracked, r.recorded_merged)
        for r in Retrospective.objects.select_related("release").filter(recorded_tracked__isnull=False)
    }
    assert quoted == recorded


def test_perma_beta_item_matches_the_december_6_2022_notes(upstream_dir):
    notes = (upstream_dir / "community/sig-node/archive/meeting-notes-2022.md").read_text()
    section = notes_section(notes, "Dec 6, 2022")
    item = AgendaItem.objects.get(meeting__date=dt.date(2022, 12, 6), title__startswith="No perma betas")
    in_notes = re.findall(r"^    \* (\w+ (?:alpha|beta) since [\d.]+\s+\(owner:[^)]*\))", section, re.M)
    assert in_notes and in_notes == re.findall(
        r"^\* (\w+ (?:alpha|beta) since [\d.]+\s+\(owner:[^)]*\))", item.body, re.M
    )


def _date_forms(day: dt.date) -> list[str]:
    suffix = "th" if 11 <= day.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    return [f"{day.day}{suffix} {day:%B}", f"{day:%B} {day.day}"]


def test_release_milestones_match_the_sig_release_schedules(upstream_dir):
    """Every schedule milestone's time and date appear together on one line of that release's README."""
    checked = 0
    for milestone in Milestone.objects.filter(sig__isnull=True).select_related("release"):
        readme = upstream_dir / f"sig-release/releases/release-{milestone.release.version}/README.md"
        lines = readme.read_text().splitlines()
        if milestone.all_day:
            day, clock = milestone.at.astimezone(UTC).date(), None
        elif milestone.quoted_timezone == "UTC":
            instant = milestone.at.astimezone(UTC)
            day, clock = instant.date(), f"{instant:%H:%M} UTC"
        else:
            instant = milestone.at.astimezone(PACIFIC)
            day, clock = instant.date(), f"{instant:%H:%M}"
        matching = [
            line
            for line in lines
            if any(form in line for form in _date_forms(day)) and (clock is None or clock in line)
        ]
        assert matching, f"{milestone.release.version} {milestone.kind} {milestone.at.isoformat()} not in {readme.name}"
        checked += 1
    assert checked >= 50


def test_keps_match_their_kep_yaml(upstream_dir):
    import yaml

    for kep in Kep.objects.exclude(source_path="").select_related("owning_sig"):
        # BaseLoader: every value a string (some kep.yaml dates are impossible, e.g. month 30)
        data = yaml.load((upstream_dir / "enhancements" / kep.source_path).read_text(), Loader=yaml.BaseLoader)
        assert kep.title == data["title"].strip(), kep.number
        assert kep.owning_sig.slug == data["owning-sig"], kep.number
        assert kep.slug.split("-")[0] == str(kep.number)
