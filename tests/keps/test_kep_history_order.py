"""Plan history in master's first-parent order, never by date, and slips as moves of the current stage's own
milestone: a generated history shaped like KEP-1287's (kubernetes/enhancements), whose merge order differs from
its commit dates.

KEP-1287's alpha target on master went 1.22 -> 1.23 -> 1.24 -> 1.25 -> 1.26 -> 1.27 (five slips), then stayed alpha
with `latest-milestone` moving 1.28 -> 1.31 (no slip: the alpha had shipped), then beta 1.32 -> 1.33 (one slip):
six, not the ten counted when `latest-milestone` moves were slips too.
"""

import json
import zlib
from io import StringIO

import pytest
from django.core.management import call_command

from keps.importers.kep_history import ReplayState
from keps.models import KepHistoryCursor, KepPlanChange
from keps.selectors_history import kep_plan_history
from tests.keps.git_repos import EnhancementsRepo, kep_yaml

pytestmark = pytest.mark.django_db

PATH = "keps/sig-node/1287-in-place-update-pod-resources/kep.yaml"


def alpha(minor: int, latest: int | None = None) -> str:
    return kep_yaml(1287, latest=f"1.{latest or minor}", milestones={"alpha": f"1.{minor}"})


def beta(minor: int) -> str:
    return kep_yaml(1287, stage="beta", latest=f"1.{minor}", milestones={"alpha": "1.27", "beta": f"1.{minor}"})


def merge_pr(repo: EnhancementsRepo, name: str, text: str, *, written: str, merged: str) -> None:
    """A PR branch committed on `written`, merged into master with a merge commit dated `merged`."""
    repo.git("checkout", "-q", "-b", name)
    repo.commit({PATH: text}, date=written, message=name)
    repo.git("checkout", "-q", "master")
    repo.git("merge", "-q", "--no-ff", "-m", f"Merge {name}", name, date=merged)


@pytest.fixture
def repo(tmp_path):
    repo = EnhancementsRepo(tmp_path / "enhancements")
    repo.commit({PATH: alpha(22)}, date="2021-05-01T10:00:00Z")
    merge_pr(repo, "to-1.23", alpha(23), written="2021-07-01T10:00:00Z", merged="2021-09-01T10:00:00Z")
    # 1.24 reaches master first, then 1.25; the 1.25 commit carries an older committer date (a rebased commit
    # pushed as it was), so by date 1.25 would come before 1.24.
    repo.commit({PATH: alpha(24)}, date="2022-05-01T10:00:00Z")
    repo.commit({PATH: alpha(25)}, date="2022-03-01T10:00:00Z")
    # A PR written long before it merged: its own commit's date is older than everything since.
    merge_pr(repo, "to-1.26", alpha(26), written="2021-06-01T10:00:00Z", merged="2022-10-01T10:00:00Z")
    repo.commit({PATH: alpha(27)}, date="2023-01-10T10:00:00Z")
    for minor, date in [(28, "2023-05-01"), (29, "2023-09-01"), (30, "2024-01-01"), (31, "2024-05-01")]:
        repo.commit({PATH: alpha(27, latest=minor)}, date=f"{date}T10:00:00Z")
    repo.commit({PATH: beta(32)}, date="2024-09-01T10:00:00Z")
    repo.commit({PATH: beta(33)}, date="2025-01-10T10:00:00Z")
    return repo


def import_history(repo) -> str:
    out = StringIO()
    call_command("import_keps", "--history", str(repo.root), stdout=out, stderr=StringIO())
    return out.getvalue()


def test_history_is_in_first_parent_order_and_counts_six_slips(repo):
    out = import_history(repo)

    history = kep_plan_history(number=1287)
    alpha_targets = [row.change.milestones.get("alpha") for row in history.rows if row.change.stage == "alpha"]
    assert alpha_targets == ["1.22", "1.23", "1.24", "1.25", "1.26", "1.27", "1.27", "1.27", "1.27", "1.27"]
    assert [row.change.slipped_from for row in history.rows if row.slipped] == [
        "1.22",
        "1.23",
        "1.24",
        "1.25",
        "1.26",
        "1.32",
    ]
    assert history.slips == 6
    assert "slips: 6" in out
    # Positions follow master, dates do not.
    positions = [row.change.position for row in history.rows]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    dates = [row.change.committed_at for row in history.rows]
    assert dates != sorted(dates)


def test_the_api_lists_plan_changes_in_first_parent_order(repo, client):
    from tests.factories import KepFactory

    KepFactory(number=1287)
    import_history(repo)
    response = client.get("/api/v1/keps/1287/")
    assert response.status_code == 200, response.content[:300]
    history = response.json()["plan_history"]
    assert [row["milestones"].get("alpha") for row in history][:6] == ["1.22", "1.23", "1.24", "1.25", "1.26", "1.27"]


def test_rows_stored_under_the_old_rules_are_corrected_by_the_next_import(repo):
    """A cursor written before positions and the stage-milestone slip rule: the next run replays everything and
    corrects the stored rows in place (same KEP, same commit), even with no new commit."""
    import_history(repo)
    KepPlanChange.objects.update(position=0, slipped_from="1.99")
    cursor = KepHistoryCursor.objects.get()
    state = ReplayState.unpack(cursor.state)
    cursor.state = zlib.compress(json.dumps({key: value for key, value in state.items() if key != "rules"}).encode())
    cursor.save()

    out = import_history(repo)

    assert "the history rules changed since the last run" in out
    assert KepPlanChange.objects.exclude(slipped_from="").count() == 6
    assert not KepPlanChange.objects.filter(position=0).exists()
    assert "no new commits" in import_history(repo)


def test_a_kep_yaml_committed_as_a_symbolic_link_is_one_skip_line_and_never_followed(tmp_path):
    import os

    from django.core.management.base import CommandError

    secret = tmp_path / "secret.yaml"
    secret.write_text(kep_yaml(4242, latest="1.30"))
    repo = EnhancementsRepo(tmp_path / "enhancements")
    repo.commit({PATH: alpha(22)}, date="2021-05-01T10:00:00Z")
    link = repo.root / "keps/sig-node/4242-linked/kep.yaml"
    link.parent.mkdir(parents=True)
    os.symlink(secret, link)
    repo.git("add", "keps/sig-node/4242-linked/kep.yaml")
    repo.git("commit", "-q", "-m", "a link", date="2021-06-01T10:00:00Z")
    err = StringIO()
    with pytest.raises(CommandError) as skipped:
        call_command("import_keps", "--history", str(repo.root), stdout=StringIO(), stderr=err)
    assert skipped.value.returncode == 1
    assert "keps/sig-node/4242-linked/kep.yaml@" in err.getvalue()
    assert "a symbolic link in the repository; not read" in err.getvalue()
    assert not KepPlanChange.objects.filter(kep_number=4242).exists()
    assert KepPlanChange.objects.filter(kep_number=1287).count() == 1
