"""No importer reads a file through a symbolic link out of the folder it was given; a link that stays inside the
folder is read, and a file named on its own is read wherever its link points (the person chose it).

Each case uses real symlinks on disk and the real command: the outside file is valid input, so the only reason it
is not imported is the link.
"""

import io
import os

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from community.models import Sig
from keps.models import Kep, PrrApproval
from meetings.models import Meeting
from releases.models import Release, ReleaseTeamMember

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links"),
]


def run(command, *args, **options):
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(command, *[str(a) for a in args], stdout=out, stderr=err, **options)
        status = 0
    except CommandError as exc:
        status = exc.returncode
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def outside(tmp_path):
    """A folder beside the import folder, holding files an attacker would like imported."""
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def kep_yaml(number: int, title: str) -> str:
    return (
        f"title: {title}\nkep-number: {number}\nowning-sig: sig-node\nauthors: ['@someone']\n"
        "status: implementable\nstage: alpha\nlatest-milestone: v1.30\nmilestone:\n  alpha: v1.30\n"
    )


def test_import_keps_reads_no_kep_yaml_or_prr_file_through_a_link_out_of_the_tree(tmp_path, outside):
    root = tmp_path / "enhancements"
    real = root / "keps/sig-node/9001-real/kep.yaml"
    real.parent.mkdir(parents=True)
    real.write_text(kep_yaml(9001, "Real"))
    # A link inside the tree (to another folder of it) is read.
    (root / "keps/shared").mkdir()
    (root / "keps/shared/9002.yaml").write_text(kep_yaml(9002, "Linked inside"))
    inside = root / "keps/sig-node/9002-inside/kep.yaml"
    inside.parent.mkdir()
    inside.symlink_to("../../shared/9002.yaml")
    # A kep.yaml and a PRR file linked out of the tree are not.
    (outside / "kep.yaml").write_text(kep_yaml(9003, "Outside"))
    linked = root / "keps/sig-node/9003-outside/kep.yaml"
    linked.parent.mkdir()
    linked.symlink_to(outside / "kep.yaml")
    (outside / "9001.yaml").write_text("kep-number: 9001\nalpha:\n  approver: '@wojtek-t'\n")
    prr = root / "keps/prod-readiness/sig-node/9001.yaml"
    prr.parent.mkdir(parents=True)
    prr.symlink_to(outside / "9001.yaml")

    status, out, err = run("import_keps", root)

    assert status == 1
    assert err.splitlines()[:2] == [
        f"skipped: keps/sig-node/9003-outside/kep.yaml: a symbolic link to {outside / 'kep.yaml'}, "
        "outside the folder imported; not read",
        f"skipped: keps/prod-readiness/sig-node/9001.yaml: a symbolic link to {outside / '9001.yaml'}, "
        "outside the folder imported; not read",
    ]
    assert sorted(Kep.objects.values_list("number", flat=True)) == [9001, 9002]
    assert not PrrApproval.objects.exists()


def test_import_keps_given_a_folder_that_is_itself_a_link_reads_it(tmp_path):
    """The folder named on the command line may be a link (the shared samples are): its own files are inside."""
    real = tmp_path / "checkout/keps/sig-node/9001-real/kep.yaml"
    real.parent.mkdir(parents=True)
    real.write_text(kep_yaml(9001, "Real"))
    (tmp_path / "link").symlink_to(tmp_path / "checkout")

    status, _, err = run("import_keps", tmp_path / "link")

    assert (status, err) == (0, "")
    assert list(Kep.objects.values_list("number", flat=True)) == [9001]


ROSTER = "| Role | Name | Shadows |\n| --- | --- | --- |\n| Lead | Jane ([@{handle}](https://github.com/{handle})) |\n"


def test_import_releases_reads_no_roster_through_a_link_out_of_the_folder(tmp_path, outside):
    releases = tmp_path / "releases"
    (releases / "release-1.40").mkdir(parents=True)
    (releases / "release-1.41").mkdir()
    (outside / "roster.md").write_text(ROSTER.format(handle="intruder"))
    (releases / "release-1.40" / "release-team.md").symlink_to(outside / "roster.md")
    (releases / "release-1.41" / "team.md").write_text(ROSTER.format(handle="insider"))
    (releases / "release-1.41" / "release-team.md").symlink_to("team.md")

    status, _, err = run("import_releases", releases)

    assert status == 1
    assert err.splitlines()[0] == (
        f"skipped: {releases / 'release-1.40' / 'release-team.md'}: a symbolic link to {outside / 'roster.md'}, "
        "outside the folder imported; not read"
    )
    assert list(ReleaseTeamMember.objects.values_list("person__github", flat=True)) == ["insider"]


def test_import_releases_reads_no_release_folder_linked_from_outside(tmp_path, outside):
    releases = tmp_path / "releases"
    releases.mkdir()
    (outside / "release-1.40").mkdir()
    (outside / "release-1.40" / "release-team.md").write_text(ROSTER.format(handle="intruder"))
    (releases / "release-1.40").symlink_to(outside / "release-1.40")

    status, _, err = run("import_releases", releases)

    assert status == 1
    assert "release-1.40/release-team.md: a symbolic link to" in err
    assert not ReleaseTeamMember.objects.exists()


SCHEDULE = "# Kubernetes {version}\n\n- **Friday 6th February 2026**: Week 5 - Code Freeze\n"


def test_import_schedule_reads_no_readme_through_a_link_out_of_the_folder(tmp_path, outside):
    releases = tmp_path / "releases"
    (releases / "release-1.40").mkdir(parents=True)
    (releases / "release-1.41").mkdir()
    (outside / "README.md").write_text(SCHEDULE.format(version="1.40"))
    (releases / "release-1.40" / "README.md").symlink_to(outside / "README.md")
    (releases / "release-1.41" / "README.md").write_text(SCHEDULE.format(version="1.41"))

    status, _, err = run("import_schedule", releases)

    assert status == 1
    assert err.splitlines()[0] == (
        f"skipped: {releases / 'release-1.40' / 'README.md'}: a symbolic link to {outside / 'README.md'}, "
        "outside the folder imported; not read"
    )
    assert list(Release.objects.values_list("version", flat=True)) == ["1.41"]

    # Named on its own, the README is read: the person running the import chose that file.
    status, _, err = run("import_schedule", releases / "release-1.40" / "README.md")
    assert (status, err) == (0, "")
    assert sorted(Release.objects.values_list("version", flat=True)) == ["1.40", "1.41"]


NOTES = "## Jan 4, 2022\n\n* [@{handle}] An agenda item about KEP-1287\n"


def test_import_meeting_notes_reads_no_notes_through_a_link_out_of_the_folder(tmp_path, outside):
    folder = tmp_path / "sig-node" / "archive"
    folder.mkdir(parents=True)
    (outside / "secret.md").write_text(NOTES.format(handle="intruder"))
    (folder / "meeting-notes-2024.md").symlink_to(outside / "secret.md")
    (folder / "meeting-notes-2022.md").write_text(NOTES.format(handle="insider"))

    status, _, err = run("import_meeting_notes", folder)

    assert status == 1
    assert err.splitlines()[0] == (
        f"skipped: {folder / 'meeting-notes-2024.md'}: a symbolic link to {outside / 'secret.md'}, "
        "outside the folder imported; not read"
    )
    assert Meeting.objects.count() == 1
    assert "insider" in Meeting.objects.get().agenda_items.get().presenters_text


SIGS = "sigs:\n- dir: {slug}\n  name: Node\n  label: node\n"


def test_import_sigs_reads_no_sigs_yaml_through_a_link_out_of_the_folder(tmp_path, outside):
    community = tmp_path / "community"
    community.mkdir()
    (outside / "sigs.yaml").write_text(SIGS.format(slug="sig-intruder"))
    (community / "sigs.yaml").symlink_to(outside / "sigs.yaml")

    status, _, err = run("import_sigs", community)

    assert status == 1
    assert err.splitlines()[0] == (
        f"skipped: {community / 'sigs.yaml'}: a symbolic link to {outside / 'sigs.yaml'}, "
        "outside the folder imported; not read"
    )
    assert not Sig.objects.filter(slug="sig-intruder").exists()

    # A link inside the folder is read; so is the outside file when named on its own.
    (community / "sigs.yaml").unlink()
    (community / "data.yaml").write_text(SIGS.format(slug="sig-node"))
    (community / "sigs.yaml").symlink_to("data.yaml")
    assert run("import_sigs", community)[0] == 0
    assert run("import_sigs", outside / "sigs.yaml")[0] == 0
    assert set(Sig.objects.values_list("slug", flat=True)) >= {"sig-node", "sig-intruder"}
