"""`manage.py refresh_upstream` against local bare repositories: first import, incremental runs, a force-push,
dead and refused remotes, hostile config, a failing import that holds the cursor, two runs at once."""

import threading
import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from community.models import Sig
from keps.models import Kep, KepPlanChange
from meetings.models import Meeting
from releases.models import Release
from tests.core.git_hostile import add_signed_commit, arm_config, marker_script, plain_git
from tests.keps.git_repos import kep_yaml
from tests.upstream.conftest import KEP_A
from tests.upstream.snapshots import domain_rows, rows_differ
from upstream.models import UpstreamRun, UpstreamSource
from upstream.services import upstream_refresh_lock

pytestmark = pytest.mark.django_db(transaction=True)


def run(*args):
    out, err = StringIO(), StringIO()
    try:
        call_command("refresh_upstream", *args, stdout=out, stderr=err)
    except CommandError as exc:
        return exc.returncode, out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def cursor(name):
    return UpstreamSource.objects.get(name=name).last_commit


def test_first_refresh_imports_every_source(remotes):
    code, out, err = run()
    assert code == 0, err
    assert Kep.objects.filter(number__in=[1287, 2000]).count() == 2  # (the notes' retro tables name others)
    assert KepPlanChange.objects.count() == 2
    assert Release.objects.filter(version="1.27").exists()
    assert Sig.objects.filter(slug="sig-node").exists() and Sig.objects.count() > 20
    assert Meeting.objects.count() > 10
    for name, remote in remotes.items():
        assert cursor(name) == remote.head
        run_row = UpstreamRun.objects.get(source__name=name)
        assert run_row.outcome == "imported" and run_row.full and run_row.from_commit == ""
        assert run_row.to_commit == remote.head and run_row.files_read > 0
    assert "enhancements: imported (first run) ->" in out


def test_up_to_date_run_says_nothing_to_change_and_imports_nothing(remotes):
    run()
    started = time.monotonic()
    with CaptureQueriesContext(connection) as queries:
        code, out, _ = run()
    assert time.monotonic() - started < 2
    assert code == 0 and out.count("nothing to change") == 3
    writes = [q["sql"] for q in queries if q["sql"].split()[0].upper() in ("INSERT", "UPDATE", "DELETE")]
    assert writes and all("upstream_" in sql for sql in writes), writes


def test_dry_run_writes_nothing(remotes):
    code, out, _ = run("--dry-run")
    assert code == 0 and "dry run: enhancements: imported" in out
    assert not Kep.objects.exists() and not UpstreamRun.objects.exists()
    assert not UpstreamSource.objects.exists()


def test_new_commits_import_only_what_changed(remotes, upstream_dir):
    run()
    enhancements, sig_release, community = remotes["enhancements"], remotes["sig-release"], remotes["community"]
    before = cursor("enhancements")
    enhancements.commit(
        {"keps/sig-node/3000-new/kep.yaml": kep_yaml(3000, latest="1.30", milestones={"alpha": "1.30"})}
    )
    enhancements.commit({"docs/unrelated.md": "nothing to import\n"})
    sig_release.commit(
        {
            "releases/release-1.35/release-team.md": (
                upstream_dir / "sig-release/releases/release-1.35/release-team.md"
            ).read_text(),
            "releases/release_phases.md": "not read\n",
        }
    )
    notes = (upstream_dir / "community/sig-node/archive/meeting-notes-2021.md").read_text()
    community.commit(
        {"sig-node/archive/meeting-notes-2021.md": notes, "sig-node/archive/ci-subgroup-notes-2021.md": notes}
    )
    meetings = Meeting.objects.count()

    code, out, err = run("-v", "2")
    assert code == 0, err
    assert Kep.objects.filter(number=3000).exists()
    assert Release.objects.filter(version="1.35").exists()
    assert Meeting.objects.count() > meetings
    steps = {row.source.name: row.imports for row in UpstreamRun.objects.filter(full=False)}
    assert steps["enhancements"] == ["kep-history", "keps (keps/sig-node/3000-new/kep.yaml)"]
    assert steps["sig-release"] == ["releases (releases/release-1.35/release-team.md)"]
    assert steps["community"] == ["notes (sig-node/archive/meeting-notes-2021.md)"]  # sub-group notes not read
    assert UpstreamRun.objects.get(source__name="enhancements", full=False).from_commit == before
    assert cursor("enhancements") == enhancements.head


def test_a_commit_touching_nothing_imported_moves_the_cursor_and_runs_no_import(remotes):
    run()
    remotes["community"].commit({"sig-node/README.md": "changed\n", "README.md": "hello\n"})
    code, _, _ = run("--source", "community")
    row = UpstreamRun.objects.filter(source__name="community").first()
    assert code == 0 and row.imports == [] and row.outcome == "imported"
    assert cursor("community") == remotes["community"].head


def test_force_push_is_reimported_in_full(remotes):
    run()
    enhancements = remotes["enhancements"]
    first = enhancements.head
    enhancements.commit({KEP_A: kep_yaml(1287, latest="1.28", milestones={"alpha": "1.28"})})
    run("--source", "enhancements")
    enhancements.reset(first)
    enhancements.commit({KEP_A: kep_yaml(1287, stage="beta", latest="1.29", milestones={"beta": "1.29"})}, force=True)
    code, out, err = run("--source", "enhancements")
    assert code == 0, err
    assert "rewritten" in out
    row = UpstreamRun.objects.filter(source__name="enhancements").first()
    assert row.outcome == "rewritten" and row.full
    assert cursor("enhancements") == enhancements.head
    assert Kep.objects.get(number=1287).stage == "beta"


def test_unreachable_remote_fails_alone(remotes, settings, tmp_path):
    settings.SIGTRACKER_UPSTREAM_COMMUNITY = f"file://{tmp_path / 'gone.git'}"
    code, out, err = run()
    assert code == 1
    assert "community: failed: git fetch failed" in err
    source = UpstreamSource.objects.get(name="community")
    assert source.status == "failed" and source.last_commit == "" and "fetch" in source.error
    assert cursor("enhancements") == remotes["enhancements"].head and Kep.objects.count() == 2


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("--upload-pack=touch {marker}", "starts with '-'"),
        ("ext::sh -c touch% {marker}", "whitespace"),
        ("ext::touch%{marker}", "not an accepted URL"),
        ("ssh://-oProxyCommand=touch%20{marker}/x", "no valid host"),
        ("http://example.com/community.git", "'http' scheme is not accepted"),
    ],
)
def test_refused_url_names_the_setting_and_runs_nothing(remotes, settings, tmp_path, url, says):
    marker = tmp_path / "ran"
    settings.SIGTRACKER_UPSTREAM_COMMUNITY = url.format(marker=marker)
    code, _, err = run()
    assert code == 1
    assert "community: failed: SIGTRACKER_UPSTREAM_COMMUNITY:" in err and says in err
    assert not marker.exists()
    assert cursor("sig-release") == remotes["sig-release"].head


def test_file_urls_need_the_setting(remotes, settings):
    settings.SIGTRACKER_UPSTREAM_ALLOW_FILE = False
    code, _, err = run("--source", "enhancements")
    assert code == 1 and "SIGTRACKER_UPSTREAM_ENHANCEMENTS: file:// URLs are accepted only with" in err


def test_config_naming_a_program_runs_nothing(remotes, tmp_path, settings):
    marker = tmp_path / "ran"
    program = marker_script(tmp_path, marker)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("reference-transaction", "post-checkout", "post-merge", "pre-auto-gc"):
        marker_script(hooks, marker, name=hook)
    enhancements = remotes["enhancements"]
    arm_config(enhancements.bare, program)  # the remote's own config (its hooks would refuse the test's push)
    run("--source", "enhancements")
    clone = tmp_path / "clones" / "enhancements"
    arm_config(clone, program, hooks)  # and the clone's, as if someone had written to the volume
    add_signed_commit(enhancements.work, files={KEP_A: kep_yaml(1287, latest="1.30", milestones={"alpha": "1.30"})})
    plain_git(enhancements.work, "push", "-q", str(enhancements.bare), "master:master")
    assert not marker.exists()

    code, _, err = run("--source", "enhancements")
    assert code == 0, err
    assert not marker.exists()
    assert cursor("enhancements") == enhancements.head
    plain_git(clone, "log", "-1")  # the control: git honouring the clone's config runs the program
    assert marker.exists()


def test_a_failing_import_holds_the_cursor_and_the_next_run_retries(remotes, upstream_dir):
    run()
    community = remotes["community"]
    good = community.head
    sigs = (upstream_dir / "community/sigs.yaml").read_text()
    community.commit({"sigs.yaml": None})
    community.commit({"sigs.yaml/README.md": "a folder where the file was\n"})
    code, _, err = run("--source", "community")
    assert code == 1 and "community: failed:" in err and "no sigs.yaml in this folder" in err
    assert cursor("community") == good
    assert UpstreamSource.objects.get(name="community").status == "failed"

    community.commit({"sigs.yaml/README.md": None})
    community.commit({"sigs.yaml": sigs.replace("name: Node", "name: Node Renamed", 1)})
    code, _, err = run("--source", "community")
    assert code == 0, err
    row = UpstreamRun.objects.filter(source__name="community").first()
    assert row.from_commit == good and row.imports[0] == "sigs (sigs.yaml)"
    assert cursor("community") == community.head


def test_a_file_skipped_as_bad_input_does_not_hold_the_cursor(remotes):
    run()
    community = remotes["community"]
    community.commit({"sig-node/archive/meeting-notes-2023.md": b"## \xff\xfe not text\n"})
    code, _, err = run("--source", "community")
    assert code == 1
    assert "community: skipped:" in err and "meeting-notes-2023.md" in err
    assert cursor("community") == community.head
    row = UpstreamRun.objects.filter(source__name="community").first()
    assert row.outcome == "skipped" and row.skipped == 1 and "meeting-notes-2023.md" in row.skipped_reasons[0]


def test_a_second_run_while_one_holds_the_lock_skips(remotes):
    held, release = threading.Event(), threading.Event()

    def holder():
        with upstream_refresh_lock(timeout=5):
            held.set()
            release.wait(10)
        connection.close()

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(5)
    try:
        code, out, _ = run("--wait", "0.3")
    finally:
        release.set()
        thread.join()
    assert code == 0 and "another refresh of the upstream sources is running: skipped" in out
    assert not Kep.objects.exists() and not UpstreamRun.objects.exists()


def test_unknown_source_is_a_usage_error(remotes, settings):
    settings.SIGTRACKER_UPSTREAM_SIG_RELEASE = ""
    code, _, _ = run("--source", "sig-release")
    assert code == 2


def test_a_symlink_in_upstream_is_checked_out_as_a_plain_file(remotes, tmp_path):
    secret = tmp_path / "outside.md"
    secret.write_text("## 2024-01-02\n\n- outside the clone: must never be read\n")
    community = remotes["community"]
    link = community.work / "sig-node" / "archive" / "meeting-notes-2024.md"
    link.symlink_to(secret)
    community.git("add", "--", "sig-node/archive/meeting-notes-2024.md")
    community.commit({}, message="a link out of the repository")
    run()
    checkout = tmp_path / "clones" / "community" / "sig-node" / "archive" / "meeting-notes-2024.md"
    assert not checkout.is_symlink() and checkout.read_text() == str(secret)
    assert not Meeting.objects.filter(agenda_items__title__contains="outside the clone").exists()


def test_a_lock_file_left_by_a_killed_git_does_not_block_the_next_runs(remotes, tmp_path):
    run("--source", "enhancements")
    (tmp_path / "clones" / "enhancements" / ".git" / "index.lock").write_text("")
    remotes["enhancements"].commit({KEP_A: kep_yaml(1287, latest="1.31", milestones={"alpha": "1.31"})})
    code, _, err = run("--source", "enhancements")
    assert code == 0, err
    assert cursor("enhancements") == remotes["enhancements"].head


def test_an_incremental_refresh_leaves_what_a_full_refresh_would(remotes, upstream_dir):
    run()
    enhancements, sig_release, community = remotes["enhancements"], remotes["sig-release"], remotes["community"]
    release = upstream_dir / "sig-release/releases/release-1.35"
    exceptions = (release / "exceptions.yaml").read_text()
    sig_release.commit(
        {
            "releases/release-1.35/exceptions.yaml": exceptions,
            "releases/release-1.35/release-team.md": (release / "release-team.md").read_text(),
        }
    )
    notes = (upstream_dir / "community/sig-node/archive/meeting-notes-2022.md").read_text()
    assert run()[0] == 0
    # A week upstream: a KEP moved on, an exception decided, a meeting added above the others and one reworded.
    enhancements.commit({KEP_A: kep_yaml(1287, stage="beta", latest="1.29", milestones={"beta": "1.29"})})
    sig_release.commit(
        {"releases/release-1.35/exceptions.yaml": exceptions.replace('status: "approved"', 'status: "rejected"', 1)}
    )
    newer = notes.replace("## Dec 27th [Canceled for holidays]", "## Jan 3, 2023\n\n* [@newcomer] Hi\n\n## Dec 27th")
    newer = newer.replace("* [swsehgal] Topology Manager GA graduation", "* [swsehgal] Topology Manager GA plan", 1)
    community.commit({"sig-node/archive/meeting-notes-2022.md": newer})
    code, _, err = run()
    assert code == 0, err
    steps = {row.source.name: row.imports for row in UpstreamRun.objects.filter(full=False)[:3]}
    assert steps["sig-release"] == ["releases (releases/release-1.35/exceptions.yaml)"]
    community_run = UpstreamRun.objects.filter(source__name="community").first()
    assert community_run.created == 1 and community_run.unchanged > 40  # the other meetings not parsed again
    incremental = domain_rows()

    code, _, err = run("--full")
    assert code == 0, err
    assert rows_differ(incremental, domain_rows()) == {}


def test_a_full_refresh_right_after_the_first_changes_nothing(remotes, upstream_dir):
    """The notes are imported before the release directories: the 1.25 retro in the notes creates the tracked rows
    (and KEPs) 1.25's exception requests are linked to, which the exception import links only when they exist."""
    release = upstream_dir / "sig-release/releases/release-1.25"
    remotes["sig-release"].commit(
        {f"releases/release-1.25/{name}": (release / name).read_text() for name in ("README.md", "exceptions.yaml")}
    )
    code, _, err = run()
    assert code == 0, err
    first = domain_rows()
    code, _, err = run("--full")
    assert code == 0, err
    assert rows_differ(first, domain_rows()) == {}
