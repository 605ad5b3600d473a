"""The plan-history replay (`keps.importers.kep_history`), on blobs and on small git repositories; no database."""

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.importing import ImportFailure, ImportReport
from keps.importers.kep_history import Plan, ReplayCounts, ReplayState, parse_raw_log, read_plan
from keps.services_history import _plans, _replay, git_log
from tests.keps.git_repos import EnhancementsRepo, kep_yaml

PATH = "keps/sig-node/1287-in-place-update-pod-resources/kep.yaml"


def plan_of(text, path=PATH):
    counts, warnings = ReplayCounts(), []
    return read_plan(text, path=path, source=path, counts=counts, warnings=warnings), counts, warnings


def history(root):
    """(revisions, counts, report) of a full replay of the repository at `root`."""
    commits = git_log(root, head="master")
    counts, report = ReplayCounts(), ImportReport()
    revisions = _replay(
        commits, _plans(root, commits, report, counts, lambda items: items), state=ReplayState(), counts=counts
    )
    return revisions, counts, report


def test_versions_written_v1_27_and_1_27_and_unquoted_1_30_are_one_release():
    plan, _, warnings = plan_of(kep_yaml(1287, latest='"v1.27"', milestones={"alpha": "1.27", "beta": "1.30"}))
    assert (plan.latest_milestone, plan.milestone_map) == ("1.27", {"alpha": "1.27", "beta": "1.30"})
    assert warnings == []


@pytest.mark.parametrize("raw", ["TBD", "x.y", "never", "TODO", "v0.0", '"tbd"'])
def test_placeholders_are_flagged_never_a_release(raw):
    plan, counts, _ = plan_of(kep_yaml(1287, latest=raw))
    assert plan.latest_milestone == ""
    assert counts.placeholders == 1


@pytest.mark.parametrize("raw", ["v1.yy", "pre-1.x", '"1.27, 1.28"', '"v1.27/v1.28"'])
def test_versions_that_are_not_a_release_are_reported(raw):
    plan, counts, warnings = plan_of(kep_yaml(1287, latest=raw))
    assert plan.latest_milestone == ""
    assert counts.not_a_version == 1
    assert "latest-milestone" in warnings[0] and PATH in warnings[0]


def test_template_text_and_typos_in_stage_and_status():
    plan, counts, warnings = plan_of(kep_yaml(1287, stage='"alpha|beta|stable"', status="implementeable"))
    assert (plan.stage, plan.status) == ("", "implementable")
    assert (counts.stage_status_unknown, counts.stage_status_corrected) == (1, 1)
    assert plan_of(kep_yaml(1287, stage="GA"))[0].stage == "stable"


def test_invalid_date_in_an_unrelated_field_is_read_as_text():
    plan, _, warnings = plan_of(kep_yaml(1287, latest="1.27", extra="last-updated: 2020-30-01"))
    assert plan.latest_milestone == "1.27" and warnings == []


def test_multi_document_blob_reads_its_first_mapping():
    text = kep_yaml(1287, latest="1.27") + "---\n" + kep_yaml(9999, latest="1.99")
    plan, counts, warnings = plan_of(text)
    assert (plan.number, plan.latest_milestone, counts.multi_document) == (1287, "1.27", 1)
    assert "several YAML documents" in warnings[0]


def test_number_falls_back_to_the_directory_and_the_directory_wins_over_kep_number():
    plan, counts, _ = plan_of(kep_yaml(None, latest="1.27"))
    assert (plan.number, counts.number_from_directory) == (1287, 1)
    # keps/sig-node/2043-pod-resource-concrete-assigments/kep.yaml says 1884: the directory's number is the KEP's.
    plan, counts, warnings = plan_of(kep_yaml(4242, latest="1.27"))
    assert (plan.number, counts.number_disagrees_with_directory) == (1287, 1)
    assert "4242 differs from the directory's number 1287; using the directory's 1287" in warnings[0]


def test_an_unnumbered_draft_is_skipped_naming_the_file():
    with pytest.raises(ImportFailure) as failure:
        plan_of(kep_yaml(None), path="keps/sig-node/0000-draft/kep.yaml")
    assert "kep-number" in str(failure.value)


def test_raw_log_reads_adds_edits_deletes_and_quoted_paths():
    zero = "0" * 40
    text = (
        "commit " + "a" * 40 + " 2021-05-01T10:00:00-07:00\n\n"
        f":000000 100644 {zero} {'b' * 40} A\tkeps/sig-node/1-a/kep.yaml\n"
        f':100644 000000 {"b" * 40} {zero} D\t"keps/sig-node/caf\\303\\251/kep.yaml"\n'
    )
    [commit] = parse_raw_log(text)
    assert commit.committed_at == datetime.datetime(2021, 5, 1, 17, tzinfo=datetime.UTC)
    assert [(c.path, c.blob, c.status) for c in commit.changes] == [
        ("keps/sig-node/1-a/kep.yaml", "b" * 40, "A"),
        ("keps/sig-node/café/kep.yaml", "", "D"),
    ]


@given(st.lists(st.sampled_from(["alpha", "beta", "stable"]), min_size=1, max_size=4), st.integers(20, 40))
def test_state_survives_a_round_trip_through_json(stages, minor):
    plan = Plan(7, stages[-1], "implementable", f"1.{minor}", tuple((s, f"1.{minor}") for s in dict.fromkeys(stages)))
    state = ReplayState(live={"keps/x/7-a/kep.yaml": (plan, 3)}, recorded={7: plan}, last_point={7: ("alpha", "1.2")})
    again = ReplayState.from_json(state.to_json())
    assert (again.live, again.recorded, again.last_point, again.by_number) == (
        state.live,
        state.recorded,
        state.last_point,
        {7: {"keps/x/7-a/kep.yaml"}},
    )


def test_a_kep_slipping_three_times_then_graduating(tmp_path):
    repo = EnhancementsRepo(tmp_path)
    shas = [
        repo.commit({PATH: kep_yaml(1287, latest=f'"v1.{minor}"', milestones={"alpha": f"v1.{minor}"})}, date=date)
        for minor, date in [
            (22, "2021-05-01T10:00:00Z"),
            (23, "2021-09-01T10:00:00Z"),
            (24, "2022-01-01T10:00:00Z"),
            (25, "2022-05-01T10:00:00Z"),
        ]
    ]
    shas.append(
        repo.commit(
            {PATH: kep_yaml(1287, stage="beta", latest="1.26", milestones={"alpha": "1.25", "beta": "1.26"})},
            date="2022-09-01T10:00:00Z",
        )
    )
    revisions, counts, report = history(tmp_path)
    assert [(r.plan.stage, r.plan.target, r.slipped_from, r.sha) for r in revisions] == [
        ("alpha", "1.22", "", shas[0]),
        ("alpha", "1.23", "1.22", shas[1]),
        ("alpha", "1.24", "1.23", shas[2]),
        ("alpha", "1.25", "1.24", shas[3]),
        ("beta", "1.26", "", shas[4]),
    ]
    assert counts.slips == 3 and not report.skipped
    assert revisions[1].committed_at == datetime.datetime(2021, 9, 1, 10, tzinfo=datetime.UTC)


def test_a_rename_by_copy_and_delete_records_no_change(tmp_path):
    repo = EnhancementsRepo(tmp_path)
    old, new = "keps/sig-apps/1287-resize/kep.yaml", PATH
    text = kep_yaml(1287, latest="1.27", milestones={"alpha": "1.27"})
    repo.commit({old: text}, date="2022-01-01T00:00:00Z")
    repo.commit({new: text}, date="2022-02-01T00:00:00Z")  # the copy: both alive a while
    repo.commit({old: None}, date="2022-03-01T00:00:00Z")  # then the delete
    repo.commit({new: kep_yaml(1287, latest="1.28", milestones={"alpha": "1.28"})}, date="2022-04-01T00:00:00Z")
    revisions, counts, _ = history(tmp_path)
    assert [(r.path, r.plan.target, r.slipped_from) for r in revisions] == [(old, "1.27", ""), (new, "1.28", "1.27")]
    assert counts.renames == 1


def test_a_duplicate_number_follows_one_file(tmp_path):
    """The same number under two SIGs: the newer file speaks for the KEP; an edit of the other is not a change."""
    repo = EnhancementsRepo(tmp_path)
    node, apps = "keps/sig-node/3000-x/kep.yaml", "keps/sig-apps/3000-x/kep.yaml"
    repo.commit({node: kep_yaml(3000, latest="1.27")}, date="2022-01-01T00:00:00Z")
    repo.commit({apps: kep_yaml(3000, latest="1.29")}, date="2022-02-01T00:00:00Z")
    repo.commit({node: kep_yaml(3000, latest="1.31")}, date="2022-03-01T00:00:00Z")
    repo.commit(
        {"keps/sig-node/0000-a/kep.yaml": kep_yaml(None), "keps/sig-apps/0000-b/kep.yaml": kep_yaml(0)},
        date="2022-04-01T00:00:00Z",
    )
    revisions, counts, report = history(tmp_path)
    assert [(r.path, r.plan.target) for r in revisions] == [(node, "1.27"), (apps, "1.29")]
    assert counts.duplicate_numbers == 1
    # Unnumbered drafts are no KEP yet: listed with -v 2, not skipped.
    assert (counts.skipped_unnumbered, counts.drafts, report.skipped) == (0, 2, [])
    assert sorted(note.split("@")[0] for level, note in report.notes if level == 2) == [
        "not a KEP yet: keps/sig-apps/0000-b/kep.yaml",
        "not a KEP yet: keps/sig-node/0000-a/kep.yaml",
    ]


def test_a_blob_that_does_not_parse_is_skipped_and_the_plan_stands(tmp_path):
    repo = EnhancementsRepo(tmp_path)
    repo.commit({PATH: kep_yaml(1287, latest="1.27")}, date="2022-01-01T00:00:00Z")
    broken = repo.commit({PATH: "title: [unclosed\n"}, date="2022-02-01T00:00:00Z")
    repo.commit({PATH: kep_yaml(1287, latest="1.28")}, date="2022-03-01T00:00:00Z")
    revisions, counts, report = history(tmp_path)
    assert [r.plan.target for r in revisions] == ["1.27", "1.28"]
    assert [str(failure).split(":")[0] for failure in report.skipped] == [f"{PATH}@{broken[:12]}"]
    assert counts.skipped_unreadable == 1
