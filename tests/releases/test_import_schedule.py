"""`manage.py import_schedule` on the real sig-release samples (every README shared) and on broken input."""

import datetime
import io
import os
import re
import shutil

import pytest
from django.core.management import CommandError, call_command

from releases.choices import MilestoneKind, ReleaseState
from releases.models import Milestone, Release
from releases.services.schedule import release_state_at
from tests.concurrency import run_together
from tests.factories import MilestoneFactory, ReleaseFactory, SigFactory, TrackedEnhancementFactory
from tests.special_files import fifo_with_a_writer

pytestmark = pytest.mark.django_db

UTC = datetime.UTC
FREEZES = {
    MilestoneKind.CYCLE_START,
    MilestoneKind.ENHANCEMENTS_FREEZE,
    MilestoneKind.FEATURE_BLOG_FREEZE,
    MilestoneKind.CODE_FREEZE,
    MilestoneKind.TEST_FREEZE,
    MilestoneKind.DOCS_FREEZE,
    MilestoneKind.RELEASE,
    MilestoneKind.RETROSPECTIVE,
}


@pytest.fixture
def releases_dir(upstream_dir):
    return upstream_dir / "sig-release" / "releases"


def run(*args, **options):
    """Run the command; return (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_schedule", *[str(a) for a in args], stdout=out, stderr=err, **options)
        status = 0
    except CommandError as exc:
        status = exc.returncode
        err.write(str(exc))
    return status, out.getvalue(), err.getvalue()


def at(version, kind, label_contains=""):
    milestones = Milestone.objects.filter(release__version=version, kind=kind, label__icontains=label_contains)
    assert milestones.count() == 1, list(milestones)
    return milestones.get()


def readmes_by_shape(releases_dir):
    """The sample READMEs in the folder, by shape: "when table" (1.14 on: a What/When table and a summary list,
    which give every freeze) or "older" (bullets, month columns, the tl;dr sentence: the main dates only)."""
    shapes = {}
    for readme in sorted(releases_dir.glob("release-*/README.md")):
        version = readme.parent.name.removeprefix("release-")
        has_when_table = re.search(r"^\|[^\n]*\bWhat\b[^\n]*\bWhen\b", readme.read_text(), re.MULTILINE | re.IGNORECASE)
        shapes[version] = "when table" if has_when_table else "older"
    return shapes


def test_folder_imports_every_release_with_every_freeze(releases_dir):
    shapes = readmes_by_shape(releases_dir)
    assert "older" in shapes.values() and "when table" in shapes.values()
    status, out, err = run(releases_dir)
    assert status == 0, err
    assert f"{len(shapes)} files read" in out and "0 skipped" in out
    assert sorted(Release.objects.values_list("version", flat=True)) == sorted(shapes)
    for release in Release.objects.all():
        kinds = set(release.milestones.values_list("kind", flat=True))
        if shapes[release.version] == "when table":
            expected = FREEZES - ({MilestoneKind.RETROSPECTIVE} if release.version == "1.27" else set())
            if release.version != "1.22":  # 1.22's schedule names no PRR freeze
                assert MilestoneKind.PRR_FREEZE in kinds, release.version
        else:
            expected = {
                MilestoneKind.CYCLE_START,
                MilestoneKind.ENHANCEMENTS_FREEZE,
                MilestoneKind.CODE_FREEZE,
                MilestoneKind.RELEASE,
            }
        assert expected <= kinds, (release.version, expected - kinds)
        assert release.cycle_start and release.planned_release_date, release.version
        assert release.state == ReleaseState.RELEASED
    stargazer = Release.objects.get(version="1.24")
    assert (stargazer.name, stargazer.cycle_start) == ("Stargazer", datetime.date(2022, 1, 10))
    assert stargazer.planned_release_date == datetime.date(2022, 5, 3)


def test_exact_instants(releases_dir):
    run(releases_dir)
    freeze = at("1.24", MilestoneKind.ENHANCEMENTS_FREEZE)
    assert (freeze.at, freeze.all_day, freeze.quoted_timezone) == (
        datetime.datetime(2022, 2, 4, 2, 0, tzinfo=UTC),
        False,
        "UTC",
    )
    assert "02:00 UTC Friday 4th February 2022" in freeze.source_text
    assert at("1.24", MilestoneKind.CODE_FREEZE).at == datetime.datetime(2022, 3, 30, 1, 0, tzinfo=UTC)
    assert at("1.24", MilestoneKind.TEST_FREEZE).at == datetime.datetime(2022, 4, 6, 1, 0, tzinfo=UTC)
    release = at("1.24", MilestoneKind.RELEASE)
    assert (release.at, release.all_day) == (datetime.datetime(2022, 5, 3, tzinfo=UTC), True)
    assert at("1.26", MilestoneKind.ENHANCEMENTS_FREEZE).at == datetime.datetime(2022, 10, 7, 1, 0, tzinfo=UTC)
    # 1.22 gives no year anywhere and "(23:59 PDT)" only in the row's label.
    assert at("1.22", MilestoneKind.ENHANCEMENTS_FREEZE).at == datetime.datetime(2021, 5, 14, 6, 59, tzinfo=UTC)
    # 1.26's retro part 2: "17:00 UTC / 09:00 PDT Tuesday 13th December" — no year, date on the Pacific half.
    assert at("1.26", MilestoneKind.RETROSPECTIVE, "part 2").at == datetime.datetime(2022, 12, 13, 17, 0, tzinfo=UTC)


def test_disagreeing_halves_are_reported_with_file_and_line(releases_dir):
    status, out, _ = run(releases_dir / "release-1.26" / "README.md")
    assert status == 0
    assert "release-1.26/README.md:57: '01:00 UTC Wednesday 9th November 2022'" in out
    assert "disagree; trusting the UTC half" in out
    assert at("1.26", MilestoneKind.CODE_FREEZE).at == datetime.datetime(2022, 11, 9, 1, 0, tzinfo=UTC)


def test_rerun_changes_nothing_and_says_so(releases_dir):
    run(releases_dir)
    before = list(Milestone.objects.order_by("pk").values())
    status, out, _ = run(releases_dir)
    assert status == 0
    assert "0 created, 0 updated" in out and "nothing to change" in out
    assert list(Milestone.objects.order_by("pk").values()) == before


def test_newer_readme_with_a_moved_freeze_updates_in_place(releases_dir, tmp_path):
    folder = tmp_path / "release-1.24"
    folder.mkdir()
    original = (releases_dir / "release-1.24" / "README.md").read_text()
    shutil.copy(releases_dir / "release-1.24" / "README.md", folder / "README.md")
    run(folder / "README.md")
    count, freeze_pk = Milestone.objects.count(), at("1.24", MilestoneKind.CODE_FREEZE).pk
    moved = original.replace(
        "01:00 UTC Wednesday 30th March 2022 / 02:00 BST Wednesday 30th March 2022 / 18:00 PDT Tuesday 29th March 2022",
        "01:00 UTC Thursday 31st March 2022 / 02:00 BST Thursday 31st March 2022 / 18:00 PDT Wednesday 30th March 2022",
    ).replace("**01:00 UTC Wednesday 30th March 2022**", "**01:00 UTC Thursday 31st March 2022**")
    assert moved != original
    (folder / "README.md").write_text(moved)
    status, out, _ = run(folder / "README.md")
    assert status == 0
    assert "0 created, 1 updated" in out
    freeze = at("1.24", MilestoneKind.CODE_FREEZE)
    assert (freeze.pk, freeze.at) == (freeze_pk, datetime.datetime(2022, 3, 31, 1, 0, tzinfo=UTC))
    assert Milestone.objects.count() == count


def test_dry_run_writes_nothing(releases_dir):
    status, out, _ = run(releases_dir, dry_run=True)
    assert status == 0
    assert f"dry run: {len(readmes_by_shape(releases_dir))} files read" in out and "would be created" in out
    assert "would be: release 1.24 created" in out
    assert not Release.objects.exists() and not Milestone.objects.exists()


def test_garbage_file_is_skipped_and_the_rest_imported(releases_dir, tmp_path):
    for version in ("1.24", "1.25"):
        (tmp_path / f"release-{version}").mkdir()
        shutil.copy(releases_dir / f"release-{version}" / "README.md", tmp_path / f"release-{version}" / "README.md")
    (tmp_path / "release-1.30").mkdir()
    (tmp_path / "release-1.30" / "README.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00garbage")
    (tmp_path / "release-1.31").mkdir()
    (tmp_path / "release-1.31" / "README.md").write_text(
        "# Kubernetes 1.31\n\n- **Friday 30th February 2024**: Week 5 - Code Freeze\n"
    )
    status, out, err = run(tmp_path)
    assert status == 1
    assert "release-1.30/README.md: binary file" in err
    assert "release-1.31/README.md:3: date: impossible date" in err
    assert "4 files read" in out and "2 skipped" in out
    assert list(Release.objects.values_list("version", flat=True)) == ["1.24", "1.25"]
    assert "Traceback" not in err


def test_usage_errors_exit_2(tmp_path):
    assert run(tmp_path / "missing")[0] == 2
    assert run(tmp_path)[0] == 2  # a folder without any release README
    assert not Release.objects.exists()


def test_curated_data_survives(releases_dir):
    sig = SigFactory(slug="sig-node")
    release = ReleaseFactory(version="1.22", name="Curated name")
    sig_freeze = MilestoneFactory(
        release=release, kind=MilestoneKind.CODE_FREEZE, sig=sig, label="SIG Node soft freeze"
    )
    run(releases_dir / "release-1.22" / "README.md")
    release.refresh_from_db()
    assert release.name == "Curated name"  # 1.22's schedule gives no name
    assert Milestone.objects.get(pk=sig_freeze.pk).label == "SIG Node soft freeze"


@pytest.mark.parametrize(
    "now,state",
    [
        (datetime.datetime(2022, 1, 9, 23, tzinfo=UTC), ReleaseState.PLANNING),
        (datetime.datetime(2022, 1, 10, 0, tzinfo=UTC), ReleaseState.ACTIVE),
        (datetime.datetime(2022, 5, 2, 23, 59, tzinfo=UTC), ReleaseState.ACTIVE),
        (datetime.datetime(2022, 5, 3, 0, tzinfo=UTC), ReleaseState.RELEASED),
    ],
)
def test_release_state_relative_to_now(now, state):
    dates = {"cycle_start": datetime.date(2022, 1, 10), "release_date": datetime.date(2022, 5, 3)}
    assert release_state_at(**dates, now=now) == state
    assert release_state_at(cycle_start=None, release_date=None, now=now) == ReleaseState.PLANNING


@pytest.mark.django_db(transaction=True)
def test_concurrent_imports_create_no_duplicates(postgres_only, releases_dir):
    run_together(lambda: call_command("import_schedule", str(releases_dir), verbosity=0))
    assert Release.objects.count() == len(readmes_by_shape(releases_dir))
    single = Milestone.objects.count()
    run(releases_dir)
    assert Milestone.objects.count() == single
    keys = list(Milestone.objects.values_list("release__version", "kind", "label"))
    assert len(keys) == len(set(keys))


def test_oversized_file_is_skipped(tmp_path):
    (tmp_path / "release-1.40").mkdir()
    (tmp_path / "release-1.40" / "README.md").write_bytes(b"# Kubernetes 1.40\n" + b"x" * (6 * 1024 * 1024))
    status, _, err = run(tmp_path)
    assert status == 1
    assert "release-1.40/README.md: file too large" in err
    assert not Release.objects.exists()


def test_moved_milestones_queue_a_stats_recompute(releases_dir, monkeypatch):
    requested = []
    monkeypatch.setattr("releases.services.schedule.release_stats_request", lambda **kw: requested.append(kw))
    run(releases_dir / "release-1.24" / "README.md")
    assert requested == []  # a brand-new release has no tracked enhancements to recompute
    release = Release.objects.get(version="1.24")
    TrackedEnhancementFactory(release=release)
    Milestone.objects.filter(release=release, kind=MilestoneKind.CODE_FREEZE).update(
        at=datetime.datetime(2022, 3, 1, tzinfo=UTC)
    )
    run(releases_dir / "release-1.24" / "README.md")
    assert requested == [{"release_ids": [release.pk]}]
    run(releases_dir / "release-1.24" / "README.md")
    assert len(requested) == 1  # nothing changed, nothing queued


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")
def test_a_readme_that_is_not_a_regular_file_is_skipped_with_one_line(releases_dir, tmp_path):
    """A FIFO README would block the import forever, a symlink to /dev/zero would fill the memory."""
    (tmp_path / "release-1.24").mkdir()
    shutil.copy(releases_dir / "release-1.24" / "README.md", tmp_path / "release-1.24" / "README.md")
    (tmp_path / "release-1.40").mkdir()
    (tmp_path / "release-1.40" / "README.md").symlink_to("/dev/zero")
    (tmp_path / "release-1.41").mkdir()
    text = "# Kubernetes 1.41\n\n- **Friday 6th February 2026**: Week 5 - Code Freeze\n"
    with fifo_with_a_writer(tmp_path / "release-1.41" / "README.md", text):
        status, out, err = run(tmp_path)
    assert status == 1
    # Found in the folder, the link leads out of it: refused before anything is opened.
    assert "release-1.40/README.md: a symbolic link to /dev/zero, outside the folder imported; not read" in err
    assert "release-1.41/README.md: not a regular file (a FIFO); not read" in err
    assert "3 files read" in out and "2 skipped" in out
    assert list(Release.objects.values_list("version", flat=True)) == ["1.24"]
    # Named on its own, the link is followed (the person chose the file) and the device is refused unread.
    status, out, err = run(tmp_path / "release-1.40" / "README.md")
    assert status == 1
    assert "release-1.40/README.md: not a regular file (a character device); not read" in err


SMALL_SCHEDULE = "# Kubernetes {version}\n\n- **Friday 6th February {year}**: Week 5 - Code Freeze\n"


@pytest.mark.parametrize(
    "folder,reason",
    [
        # Longer than Release.version (varchar(10)): the database refused it and the import crashed.
        ("release-1.99999999999999999999", "version: '1.99999999999999999999' does not fit"),
        # Fits in 10 characters, not in Release.minor (a PostgreSQL smallint).
        ("release-1.40000", "version: '1.40000' does not fit"),
    ],
)
def test_a_version_beyond_the_model_limits_is_skipped_with_one_line(tmp_path, folder, reason):
    """The rule is the version format the model can hold, whatever the folder is called."""
    (tmp_path / "release-1.40").mkdir()
    (tmp_path / "release-1.40" / "README.md").write_text(SMALL_SCHEDULE.format(version="1.40", year=2026))
    (tmp_path / folder).mkdir()
    (tmp_path / folder / "README.md").write_text(SMALL_SCHEDULE.format(version="1.99", year=2026))
    status, out, err = run(tmp_path)
    assert status == 1
    skipped = [line for line in err.splitlines() if line.startswith("skipped:")]
    assert len(skipped) == 1 and f"{folder}/README.md: {reason}" in skipped[0], err
    assert "Traceback" not in err and "2 files read" in out
    assert list(Release.objects.values_list("version", flat=True)) == ["1.40"]


@pytest.mark.parametrize("year", ["99999", "1999", "202"])
def test_a_year_out_of_range_is_skipped_naming_the_line(tmp_path, year):
    """A year of 99999 is refused, not read as "February" without a year and put in the year the cycle infers."""
    (tmp_path / "release-1.40").mkdir()
    (tmp_path / "release-1.40" / "README.md").write_text(SMALL_SCHEDULE.format(version="1.40", year=year))
    status, _, err = run(tmp_path)
    assert status == 1
    assert f"release-1.40/README.md:3: date: year {year} is not between 2014 and 2099" in err
    assert not Release.objects.exists() and not Milestone.objects.exists()


def test_control_characters_in_a_label_are_cleaned_on_import(tmp_path):
    """Imported labels pass the model's own check (one line, no control characters)."""
    (tmp_path / "release-1.40").mkdir()
    (tmp_path / "release-1.40" / "README.md").write_text(
        "# Kubernetes 1.40\n\n- **Friday 6th February 2026**: Week 5 - Code Freeze\x1b]0;pwned\x07 \u202eends\n"
    )
    status, _, err = run(tmp_path)
    assert status == 0, err
    freeze = Milestone.objects.get(kind=MilestoneKind.CODE_FREEZE)
    assert freeze.label == "Code Freeze ]0;pwned ends"
    assert "\x1b" not in freeze.source_text and "\u202e" not in freeze.source_text
    freeze.full_clean()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")
def test_a_fifo_named_on_the_command_line_is_skipped_by_name(tmp_path):
    text = SMALL_SCHEDULE.format(version="1.40", year=2026)
    with fifo_with_a_writer(tmp_path / "README.md", text) as fifo:
        status, out, err = run(fifo)
    assert status == 1
    assert f"skipped: {fifo}: not a regular file (a FIFO); not read" in err
    assert "1 files read" in out and not Release.objects.exists()
