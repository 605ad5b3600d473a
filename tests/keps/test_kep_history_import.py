"""`manage.py import_keps --history`: plan history from small git repositories into the database."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from keps.models import KepHistoryCursor, KepPlanChange
from tests.keps.git_repos import EnhancementsRepo, kep_yaml

pytestmark = pytest.mark.django_db

PATH = "keps/sig-node/1287-in-place-update-pod-resources/kep.yaml"


def run(*args, **options):
    out, err = StringIO(), StringIO()
    call_command("import_keps", "--history", *[str(a) for a in args], stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def repo(tmp_path):
    repo = EnhancementsRepo(tmp_path / "enhancements")
    for minor, date in [(22, "2021-05-01T10:00:00Z"), (23, "2021-09-01T10:00:00Z")]:
        repo.commit({PATH: kep_yaml(1287, latest=f"1.{minor}", milestones={"alpha": f"1.{minor}"})}, date=date)
    return repo


def test_import_records_changes_with_commit_and_slip(repo):
    out, _ = run(repo.root)
    rows = list(KepPlanChange.objects.values_list("kep_number", "target_milestone", "slipped_from"))
    assert rows == [(1287, "1.22", ""), (1287, "1.23", "1.22")]
    change = KepPlanChange.objects.last()
    assert change.commit_url == f"https://github.com/kubernetes/enhancements/commit/{repo.git('rev-parse', 'HEAD')}"
    assert "slips: 1" in out and "history starts with the first kep.yaml (2020)" in out
    assert KepHistoryCursor.objects.get().last_commit == repo.git("rev-parse", "HEAD")


def test_dry_run_writes_nothing(repo):
    out, _ = run(repo.root, dry_run=True)
    assert "dry run: " in out and "2 would be created" in out.replace("files read: ", "")
    assert not KepPlanChange.objects.exists() and not KepHistoryCursor.objects.exists()


def test_incremental_rerun_reads_only_two_new_commits(repo):
    run(repo.root)
    repo.commit({PATH: kep_yaml(1287, latest="1.24", milestones={"alpha": "1.24"})}, date="2022-01-01T10:00:00Z")
    repo.commit(
        {PATH: kep_yaml(1287, stage="beta", latest="1.25", milestones={"alpha": "1.24", "beta": "1.25"})},
        date="2022-05-01T10:00:00Z",
    )
    out, _ = run(repo.root, verbosity=1)
    assert "first-parent commits read: 2" in out
    assert list(KepPlanChange.objects.values_list("target_milestone", "slipped_from")) == [
        ("1.22", ""),
        ("1.23", "1.22"),
        ("1.24", "1.23"),
        ("1.25", ""),
    ]
    out, _ = run(repo.root)
    assert "no new commits" in out and KepPlanChange.objects.count() == 4


def test_replay_after_a_rewritten_branch_is_idempotent(repo):
    run(repo.root)
    KepHistoryCursor.objects.update(last_commit="f" * 40)  # not on master: replays all
    out, _ = run(repo.root)
    assert "replaying all" in out and "0 created" in out and "2 unchanged" in out


def test_a_rewritten_branch_drops_the_changes_no_longer_on_it(repo):
    run(repo.root)
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.commit({PATH: kep_yaml(1287, latest="1.30", milestones={"alpha": "1.30"})}, date="2022-01-01T10:00:00Z")
    out, _ = run(repo.root)
    assert "replaying all" in out and "1 plan changes no longer on master removed" in out
    rows = KepPlanChange.objects.values_list("target_milestone", "slipped_from")
    assert list(rows) == [("1.22", ""), ("1.30", "1.22")]


def test_a_bare_clone_reads_the_same(repo, tmp_path):
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(bare))
    run(bare)
    assert KepPlanChange.objects.count() == 2


def test_exit_codes(repo, tmp_path):
    with pytest.raises(CommandError) as usage:
        run(tmp_path / "missing")
    assert usage.value.returncode == 2
    (tmp_path / "plain").mkdir()
    with pytest.raises(CommandError) as usage:
        run(tmp_path / "plain")
    assert usage.value.returncode == 2
    # Drafts waiting for their number (0000-, NNNN-) are listed with -v 2, not skipped: exit 0.
    repo.commit(
        {"keps/sig-node/0000-draft/kep.yaml": kep_yaml(None), "keps/sig-node/NNNN-draft/kep.yaml": kep_yaml(None)},
        date="2022-02-01T00:00:00Z",
    )
    out, err = StringIO(), StringIO()
    call_command("import_keps", "--history", str(repo.root), stdout=out, stderr=err, verbosity=2)
    assert err.getvalue() == ""
    assert "not a KEP yet: keps/sig-node/0000-draft/kep.yaml@" in out.getvalue()
    assert "not a KEP yet: keps/sig-node/NNNN-draft/kep.yaml@" in out.getvalue()
    # A file named by no number anywhere outside a draft folder is skipped: exit 1.
    repo.commit({"keps/sig-node/grpc-probe/kep.yaml": kep_yaml(None)}, date="2022-03-01T00:00:00Z")
    err = StringIO()
    with pytest.raises(CommandError) as skipped:
        call_command("import_keps", "--history", str(repo.root), stdout=StringIO(), stderr=err)
    assert skipped.value.returncode == 1
    assert "skipped: keps/sig-node/grpc-probe/kep.yaml@" in err.getvalue()
    assert KepPlanChange.objects.count() == 2


def test_path_may_be_the_keps_folder_of_a_checkout(repo):
    run(repo.root / "keps")
    assert KepPlanChange.objects.count() == 2


def test_a_quirk_kept_through_several_commits_is_reported_once(repo):
    for minor in (24, 25):
        text = kep_yaml(1287, latest=f"1.{minor}", status="implementeable")
        repo.commit({PATH: text}, date=f"2022-0{minor - 20}-01T00:00:00Z")
    out, _ = run(repo.root)
    assert out.count("'implementeable' read as 'implementable' (typo)") == 1
    assert "stage/status typos or synonyms corrected: 2" in out
