"""`manage.py import_releases` on the shared sig-release samples: every file of every release directory."""

import io
import shutil

import pytest
from django.core.management import CommandError, call_command

from keps.models import Kep
from releases.choices import (
    EnhancementStatus,
    ExceptionDecision,
    ExceptionSource,
    Freeze,
    HistorySource,
    MilestoneKind,
    ReleaseRoleKind,
    TrackedSource,
)
from releases.models import EnhancementException, FeatureSheetRow, ReleaseStats, ReleaseTeamMember, TrackedEnhancement
from tests.factories import KepFactory, MilestoneFactory, ReleaseFactory, SigFactory, TrackedEnhancementFactory

pytestmark = pytest.mark.django_db

DATA = __import__("pathlib").Path(__file__).parent / "data" / "release_files"


@pytest.fixture
def releases_dir(upstream_dir, tmp_path):
    """The shared release directories, copied file by file, without the READMEs of before 1.19: their shapes are
    the schedule parser's (tests/releases/test_import_schedule.py), and these tests count the other files."""
    tree = tmp_path / "releases"
    for path in sorted((upstream_dir / "sig-release" / "releases").glob("release-*/*")):
        if path.name == "README.md" and int(path.parent.name.split(".")[1]) < 19:
            continue
        (tree / path.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, tree / path.parent.name / path.name)
    return tree


def run(*args, **options):
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_releases", *[str(a) for a in args], stdout=out, stderr=err, **options)
        status = 0
    except CommandError as exc:
        status = exc.returncode
        err.write(str(exc))
    return status, out.getvalue(), err.getvalue()


def by_freeze_and_decision(version):
    rows = EnhancementException.objects.filter(release__version=version)
    return {(f, d): rows.filter(freeze=f, decision=d).count() for f, d in set(rows.values_list("freeze", "decision"))}


@pytest.fixture
def imported(releases_dir, upstream_dir):
    # The catalogue of sig-node, sig-scheduling and sig-autoscaling KEPs: requests of other SIGs' KEPs are kept
    # without a board row.
    call_command("import_keps", str(upstream_dir / "enhancements" / "keps"), verbosity=0)
    status, out, err = run(releases_dir)
    assert status == 0, err
    return out


def test_every_file_of_every_release_directory(imported):
    assert "14 files read" in imported  # 6 READMEs (1.22-1.27), 2 feature sheets, 3 rosters, 3 exception files
    assert by_freeze_and_decision("1.16") == {
        (Freeze.ENHANCEMENTS, ExceptionDecision.APPROVED): 2,
        (Freeze.ENHANCEMENTS, ExceptionDecision.REJECTED): 1,
        (Freeze.CODE, ExceptionDecision.APPROVED): 1,
    }
    assert by_freeze_and_decision("1.25") == {
        (Freeze.ENHANCEMENTS, ExceptionDecision.APPROVED): 1,
        (Freeze.CODE, ExceptionDecision.APPROVED): 7,
        (Freeze.CODE, ExceptionDecision.REJECTED): 5,
    }
    assert by_freeze_and_decision("1.35") == {
        (Freeze.ENHANCEMENTS, ExceptionDecision.APPROVED): 2,
        (Freeze.CODE, ExceptionDecision.APPROVED): 7,
        (Freeze.CODE, ExceptionDecision.REJECTED): 6,
        (Freeze.DOCS, ExceptionDecision.APPROVED): 1,
    }
    assert EnhancementException.objects.count() == 33
    assert set(EnhancementException.objects.values_list("source", flat=True)) == {ExceptionSource.EXCEPTION_FILE}
    assert FeatureSheetRow.objects.filter(release__version="1.4").count() == 28
    assert FeatureSheetRow.objects.filter(release__version="1.12").count() == 38
    # Every sheet row is tracked: 1.4's two rows naming no issue ("Simplified turn up", "Google ContainerVM Image")
    # as KEP-less tracked enhancements, the other 26 by their KEP.
    assert not FeatureSheetRow.objects.filter(tracked_enhancement__isnull=True).exists()
    assert TrackedEnhancement.objects.filter(release__version="1.4", source=TrackedSource.FEATURE_SHEET).count() == 28
    assert TrackedEnhancement.objects.filter(release__version="1.4", kep__isnull=True).count() == 2
    assert ReleaseTeamMember.objects.filter(release__version="1.24").count() == 38  # 7 roles of 5, 1 + 2
    assert ReleaseTeamMember.objects.filter(release__version="1.35").count() == 34
    assert ReleaseTeamMember.objects.filter(release__version="1.9").count() == 16  # 11 roles, 5 shadows


def test_a_sheet_row_whose_note_moves_it_to_a_later_milestone_did_not_ship(imported, client):
    # 1.12's sheet has all 38 rows "Tracked", but #575's note says "Looks like this is now in the 1.13 milestone".
    moved = TrackedEnhancement.objects.get(release__version="1.12", kep__number=575)
    assert moved.status == EnhancementStatus.REMOVED
    # The others are "Tracked": tracked, not recorded as shipped (the sheet has no outcome for them).
    statuses = TrackedEnhancement.objects.filter(release__version="1.12").exclude(pk=moved.pk)
    assert set(statuses.values_list("status", flat=True)) == {EnhancementStatus.TRACKED_CODE}
    call_command("compute_stats", "1.12", verbosity=0)
    html = client.get("/releases/1.12/").content.decode()
    assert "100 %" not in html
    stats = ReleaseStats.objects.get(release__version="1.12", sig__isnull=True)
    assert (stats.done, stats.outcome_not_recorded) == (0, 37)


def test_an_exception_of_a_catalogued_kep_is_on_its_board_row_with_derived_history(imported):
    # KEP-1287 (sig-node, in-place pod resize) asked for a code freeze exception in 1.25 and was denied.
    request = EnhancementException.objects.get(release__version="1.25", kep_number=1287)
    row = request.tracked_enhancement
    assert row is not None and row.source == TrackedSource.EXCEPTION_FILE
    assert row.status == EnhancementStatus.REMOVED
    assert list(row.history.values_list("source", "to_status")) == [
        (HistorySource.EXCEPTION_FILE, EnhancementStatus.EXCEPTION_PENDING),
        (HistorySource.EXCEPTION_FILE, EnhancementStatus.REMOVED),
    ]
    # A KEP outside the catalogue keeps its number and link, with no board row.
    other = EnhancementException.objects.get(release__version="1.25", kep_number=3346)
    assert other.tracked_enhancement is None and other.issue_url.endswith("/issues/3346")


def test_a_kep_denied_a_code_freeze_exception_missed_code_freeze(imported):
    from releases.selectors_kep_timeline import kep_timeline

    # KEP-1287 asked on 30 Jul 2022 to pass v1.25's code freeze (3 Aug) and was denied: the calendar alone (only
    # the enhancements freeze had passed when it was asked) would say it missed the enhancements freeze.
    timeline = kep_timeline(kep=Kep.objects.get(number=1287))
    row = next(entry for entry in timeline.rows if entry.release.version == "1.25")
    assert row.missed_freeze == Freeze.CODE.label
    # The file says reviewed "2021-08-03", before the request of 2022-07-30: read as 3 Aug 2022, with a warning.
    request = EnhancementException.objects.get(release__version="1.25", kep_number=1287)
    assert (request.requested_at.date().isoformat(), request.decided_at.date().isoformat()) == (
        "2022-07-30",
        "2022-08-03",
    )
    assert "reviewed 2021-08-03 before it was requested (2022-07-30); read as 2022-08-03" in imported
    # kep.yaml plans alpha for 1.27 and stable for 1.35: what it targeted in 1.25 is not recorded, not "stable".
    assert row.tracked.target_stage == ""


def test_the_enhancements_lead_and_shadows_are_known_by_handle(imported):
    lead = ReleaseTeamMember.objects.get(release__version="1.35", role=ReleaseRoleKind.ENHANCEMENTS, is_shadow=False)
    assert (lead.person.github, lead.person.name) == ("rayandas", "Rayan Das")
    features = ReleaseTeamMember.objects.get(release__version="1.9", role=ReleaseRoleKind.ENHANCEMENTS)
    assert (features.role_label, features.person.github) == ("Features", "idvoretskyi")


def test_a_rerun_has_nothing_to_change(imported, releases_dir):
    status, out, err = run(releases_dir)
    assert status == 0, err
    assert "0 created, 0 updated" in out and "nothing to change" in out


def test_dry_run_writes_nothing(releases_dir):
    status, out, _ = run(releases_dir, "--dry-run")
    assert status == 0 and "would be created" in out
    assert not EnhancementException.objects.exists() and not ReleaseTeamMember.objects.exists()


def test_an_entry_that_is_not_yaml_is_skipped_by_line_and_the_rest_imports(tmp_path):
    folder = tmp_path / "release-1.17"
    folder.mkdir()
    shutil.copy(DATA / "stray_character.yaml", folder / "exceptions.yaml")
    kep = KepFactory(number=693)
    status, out, err = run(folder)
    assert status == 1
    assert f"{folder / 'exceptions.yaml'}:25: request not read" in err
    requests = EnhancementException.objects.filter(release__version="1.17")
    assert requests.count() == 4
    # Asked, denied, asked again for the same freeze: both kept, on one board row.
    assert list(requests.filter(kep_number=693).values_list("decision", flat=True)) == ["rejected", "approved"]
    row = TrackedEnhancement.objects.get(kep=kep)
    assert row.status == EnhancementStatus.EXCEPTION_APPROVED
    assert requests.get(kep_number=None).issue_url == "https://github.com/kubernetes/kubernetes/issues/85000"


def test_a_request_of_a_row_tracked_elsewhere_leaves_its_status_alone(tmp_path):
    folder = tmp_path / "release-1.17"
    folder.mkdir()
    shutil.copy(DATA / "stray_character.yaml", folder / "exceptions.yaml")
    release = ReleaseFactory(version="1.17")
    synced = TrackedEnhancementFactory(release=release, kep=KepFactory(number=695), status=EnhancementStatus.DONE)
    run(folder)
    synced.refresh_from_db()
    assert synced.status == EnhancementStatus.DONE
    assert synced.exceptions.get().decision == ExceptionDecision.REVERTED


def test_a_request_removed_from_the_file_is_removed_but_admin_requests_stay(tmp_path):
    folder = tmp_path / "release-1.17"
    folder.mkdir()
    path = folder / "exceptions.yaml"
    shutil.copy(DATA / "stray_character.yaml", path)
    run(folder)
    row = TrackedEnhancementFactory(release=ReleaseFactory(version="1.18"), kep=KepFactory(number=7))
    EnhancementException.objects.create(tracked_enhancement=row, freeze=Freeze.CODE)
    path.write_text(path.read_text().split("- name: Topology manager")[0])
    status, out, _ = run(folder, verbosity=2)
    assert EnhancementException.objects.filter(release__version="1.17").count() == 1
    assert EnhancementException.objects.filter(source=ExceptionSource.ADMIN).count() == 1


def test_features_of_a_sheet_below_summary_rows(tmp_path):
    folder = tmp_path / "release-1.5"
    folder.mkdir()
    shutil.copy(DATA / "summary_first.csv", folder / "features.csv")
    SigFactory(slug="sig-node")
    status, _, err = run(folder)
    assert status == 0, err
    rows = FeatureSheetRow.objects.filter(release__version="1.5")
    assert list(rows.values_list("name", "number")) == [
        ("Some feature, with comma", 12),
        ("A feature without an issue", None),
    ]
    stub = Kep.objects.get(number=12)
    assert stub.is_stub and stub.owning_sig.slug == "sig-node"
    assert rows.get(number=12).tracked_enhancement.assignee.github == "alice"
    kepless = rows.get(number=None).tracked_enhancement
    assert (kepless.kep, kepless.feature_name, kepless.sig.slug) == (
        None,
        "A feature without an issue",
        "sig-cluster-lifecycle",
    )
    assert kepless.assignee.github == "carol"


def test_missing_path_is_a_usage_error(tmp_path):
    status, _, err = run(tmp_path / "nope")
    assert status == 2 and "no such file or folder" in err


def test_requests_without_dates_take_their_freeze_s_date_and_exception_yaml_is_read(tmp_path):
    import datetime

    folder = tmp_path / "release-1.10"
    folder.mkdir()
    (folder / "exception.yaml").write_text(
        "# Exceptions to code freeze requested in 1.10\n\n"
        '- name: "Advanced Audit Logging"\n  issue: "https://github.com/kubernetes/features/issues/22"\n'
        '  pull_requests:\n  - "https://github.com/kubernetes/kubernetes/pull/60237"\n  status: "approved"\n'
    )
    release = ReleaseFactory(version="1.10")
    freeze_at = datetime.datetime(2018, 2, 26, 17, tzinfo=datetime.UTC)
    MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=freeze_at)
    kep = KepFactory(number=22)
    status, _, err = run(folder)
    assert status == 0, err
    request = EnhancementException.objects.get(release=release)
    assert request.requested_at.date() == freeze_at.date() and request.decided_at == request.requested_at
    assert "date of the freeze is assumed" in request.notes
    assert request.tracked_enhancement.kep == kep
    assert run(folder)[1].endswith("nothing to change\n")


def test_a_date_free_request_of_a_release_without_dates_is_one_warning(tmp_path):
    folder = tmp_path / "release-1.10"
    folder.mkdir()
    (folder / "exceptions.yaml").write_text(
        "# Exceptions to code freeze requested in 1.10\n- name: x\n  issue: 22\n  status: approved\n"
    )
    status, out, _ = run(folder)
    assert status == 0
    assert f"{folder / 'exceptions.yaml'}:2: KEP-22: no date given, and v1.10 has no date for its freeze" in out
    assert not EnhancementException.objects.exists()


ROSTER_MOVED = (
    "# MOVED to https://github.com/kubernetes/sig-release/blob/master/releases/release-1.20/release_team.md\n"
)
ROSTER_1_20 = (
    "| Role | Lead | Shadows |\n| --- | --- | --- |\n"
    "| Lead | Jeremy Rickard ([@jeremyrickard](https://github.com/jeremyrickard)) |"
    " Savitha Raghunathan ([@savitharaghunathan](https://github.com/savitharaghunathan)) |\n"
)
ROSTER_1_8 = (
    "|  **Role** | **Name** (**GitHub/Slack ID**)  | **Shadow Name(s) (GitHub/Slack ID), ...**\n"
    "|  ------ | ------ | ------ |\n"
    "|  Lead | Jaice Singer DuMars (jdumars) | |\n"
    "|  Test Infra | Sen Lu (krzyzacy) | Aaron Crickenberger (spiffxp) |\n"
)


def test_a_moved_roster_is_read_from_the_file_it_names_and_1_8s_bare_handles_import(tmp_path):
    """1.20's release-team.md is only "MOVED to …/release_team.md": that file of the same folder is the roster.
    1.7's and 1.8's release_team.md name "Name (handle)": imported, exit 0."""
    (tmp_path / "release-1.20").mkdir()
    (tmp_path / "release-1.20" / "release-team.md").write_text(ROSTER_MOVED)
    (tmp_path / "release-1.20" / "release_team.md").write_text(ROSTER_1_20)
    (tmp_path / "release-1.8").mkdir()
    (tmp_path / "release-1.8" / "release_team.md").write_text(ROSTER_1_8)

    status, out, err = run(tmp_path, verbosity=2)

    assert (status, err) == (0, ""), err
    assert "release-1.20/release-team.md: moved to release_team.md; release_team.md read instead" in out
    team = set(ReleaseTeamMember.objects.values_list("release__version", "person__github", "is_shadow"))
    assert team == {
        ("1.20", "jeremyrickard", False),
        ("1.20", "savitharaghunathan", True),
        ("1.8", "jdumars", False),
        ("1.8", "krzyzacy", False),
        ("1.8", "spiffxp", True),
    }


def test_a_moved_roster_whose_file_is_missing_or_outside_is_one_skip_line(tmp_path):
    (tmp_path / "release-1.20").mkdir()
    (tmp_path / "release-1.20" / "release-team.md").write_text(ROSTER_MOVED)
    status, _, err = run(tmp_path)
    assert status == 1
    assert f"skipped: {tmp_path / 'release-1.20' / 'release-team.md'}:1: the roster moved to release_team.md" in err
    # The pointer is never followed out of the folder: a link there to another folder's roster is refused.
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text(ROSTER_1_20)
    (tmp_path / "release-1.20" / "release_team.md").symlink_to(outside)
    status, _, err = run(tmp_path)
    assert status == 1 and "outside the folder imported; not read" in err
    assert not ReleaseTeamMember.objects.exists()


def test_a_request_typed_in_before_its_kep_had_a_row_is_linked_by_the_next_import(imported, releases_dir):
    from releases.choices import ExceptionSource

    typed = EnhancementException.objects.get(release__version="1.25", kep_number=1287)
    row = typed.tracked_enhancement
    typed.pk, typed.source, typed.source_key, typed.tracked_enhancement = None, ExceptionSource.ADMIN, "typed-1", None
    typed.save()
    status, _, err = run(releases_dir / "release-1.25")
    assert status == 0, err
    typed.refresh_from_db()
    assert typed.tracked_enhancement == row
