"""The kep.yaml / PRR parser: examples from the real formats, each trap, and property tests."""

import datetime
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from community.importers.people import PersonRef
from core.importing import ImportFailure, read_text
from keps.importers.kep_yaml import (
    KEP_STAGES,
    KEP_STATUSES,
    KepRecord,
    PrrRecord,
    choose_kep_records,
    normalise_choice,
    normalise_version,
    parse_date,
    parse_kep,
    parse_prr,
)

# keps/sig-node/2727-grpc-probe/kep.yaml as upstream writes it (abridged comments).
GRPC_PROBE = """\
title: Add gRPC probe to Pod
kep-number: 2727
authors:
  - "@SergeyKanzhelev"
owning-sig: sig-node
participating-sigs:
  - sig-network
status: implemented
creation-date: 2021-05-12
reviewers:
  - "@thockin"
approvers:
  - "@dchen1107"
see-also:
  - "/keps/sig-node/1972-kubelet-exec-probe-timeouts"
replaces:

# The target maturity stage in the current dev cycle for this KEP.
stage: stable

latest-milestone: "v1.27"

milestone:
  alpha: "v1.23"
  beta: "v1.24"
  stable: "v1.27"

feature-gates:
  - name: GRPCContainerProbe
    components:
      - kubelet
      - kube-apiserver
disable-supported: true

metrics:
  - probe_total
"""


def kep(text=GRPC_PROBE, directory="2727-grpc-probe", **kwargs):
    return parse_kep(text, source=f"keps/sig-node/{directory}/kep.yaml", directory=directory, **kwargs)


def replace(text, old, new):
    assert old in text, old
    return text.replace(old, new)


# -- a whole file ---------------------------------------------------------------------------------------


def test_real_kep_yaml_parses_into_every_field():
    record = kep()
    assert record.number == 2727
    assert record.title == "Add gRPC probe to Pod"
    assert record.slug == "2727-grpc-probe"
    assert record.owning_sig == "sig-node"
    assert record.participating_sigs == ("sig-network",)
    assert (record.status, record.stage) == ("implemented", "stable")
    assert record.latest_milestone == "1.27"
    assert (record.alpha_milestone, record.beta_milestone, record.stable_milestone) == ("1.23", "1.24", "1.27")
    assert record.authors == (PersonRef("SergeyKanzhelev"),)
    assert [p.github for p in record.reviewers] == ["thockin"]
    assert [p.github for p in record.approvers] == ["dchen1107"]
    assert record.creation_date == datetime.date(2021, 5, 12)
    assert record.last_updated is None
    assert record.feature_gates[0].name == "GRPCContainerProbe"
    assert record.feature_gates[0].components == ("kubelet", "kube-apiserver")
    assert record.disable_supported is True
    assert record.tracking_issue_url == "https://github.com/kubernetes/enhancements/issues/2727"
    assert record.source_path == "keps/sig-node/2727-grpc-probe/kep.yaml"
    assert record.warnings == ()


def test_every_shared_sample_parses(upstream_dir):
    keps_dir = upstream_dir / "enhancements" / "keps"
    files = [p for p in keps_dir.glob("*/*/kep.yaml") if not p.parent.name.startswith("NNNN")]
    assert len(files) > 150
    for path in files:
        record = parse_kep(read_text(path), source=str(path), directory=path.parent.name)
        assert record.number > 0 and record.title and record.owning_sig.startswith("sig-")
    prr_files = list((keps_dir / "prod-readiness").rglob("*.yaml"))
    assert len(prr_files) > 150
    for path in prr_files:
        record = parse_prr(read_text(path), source=str(path), file_number=int(path.stem))
        # Only prod-readiness/sig-node/281.yaml lists no importable stage ("removed:"), and says so.
        assert record.approvals or (path.name == "281.yaml" and "not a PRR stage" in record.warnings[0])


# -- kep-number -----------------------------------------------------------------------------------------


def test_kep_number_as_string_is_read():  # keps/sig-node/4960-container-stop-signals
    record = kep(replace(GRPC_PROBE, "kep-number: 2727", 'kep-number: "2727"'))
    assert record.number == 2727 and record.warnings == ()


@pytest.mark.parametrize("line", ["kep-number: 0", "kep-number: NNNN", "kep-number:", "kep-number: true"])
def test_bad_or_zero_kep_number_falls_back_to_directory_with_warning(line):
    record = kep(replace(GRPC_PROBE, "kep-number: 2727", line))
    assert record.number == 2727
    assert any("kep-number" in w and "directory" in w for w in record.warnings)


def test_missing_kep_number_falls_back_to_directory_with_warning():
    record = kep(replace(GRPC_PROBE, "kep-number: 2727\n", ""))
    assert record.number == 2727
    assert record.warnings == (
        "keps/sig-node/2727-grpc-probe/kep.yaml: kep-number: missing; using the directory's number 2727",
    )


def test_no_number_anywhere_skips_the_file():
    with pytest.raises(ImportFailure) as exc:
        kep(replace(GRPC_PROBE, "kep-number: 2727", "kep-number: 0"), directory="grpc-probe")
    assert exc.value.field == "kep-number"
    assert str(exc.value).startswith("keps/sig-node/grpc-probe/kep.yaml: kep-number: ")


def test_number_differing_from_directory_takes_the_directorys_and_warns():  # sig-node/2043-... says 1884
    record = kep(directory="2043-pod-resource-concrete-assigments")
    assert record.number == 2043
    assert "2727 differs from the directory's number 2043; using the directory's 2043" in record.warnings[0]


@pytest.mark.parametrize(
    "directory,reason",
    [
        # Before KEP numbers, folders were named by date: keps/sig-network/20190603-endpointslices.
        ("20190603-endpointslices", "the directory name starts with a date (20190603), not a KEP number"),
        # Drafts waiting for a number: keps/sig-storage/NNNN-..., keps/sig-network/0000-pod-network-health.
        ("NNNN-stateful-set-update-claim-template", "the directory has no KEP number yet (an unnumbered draft)"),
        ("0000-pod-network-health", "the directory has no KEP number yet (an unnumbered draft)"),
    ],
)
def test_directory_without_a_kep_number_skips_an_unnumbered_file_with_the_reason(directory, reason):
    with pytest.raises(ImportFailure) as exc:
        kep(replace(GRPC_PROBE, "kep-number: 2727", "kep-number: NNNN"), directory=directory)
    assert (
        str(exc.value) == f"keps/sig-node/{directory}/kep.yaml: kep-number: not a positive number ('NNNN') and {reason}"
    )


def test_date_named_directory_with_a_kep_number_imports_without_a_mismatch_warning():
    record = kep(directory="20190603-endpointslices")
    assert record.number == 2727 and record.directory_number is None and record.warnings == ()


# -- template leftovers ---------------------------------------------------------------------------------


def test_template_title_becomes_the_directory_name_with_warning():  # sig-storage/3314-csi-changed-block-tracking
    record = kep(replace(GRPC_PROBE, "title: Add gRPC probe to Pod", "title: KEP Template"))
    assert record.title == "Grpc probe"
    assert record.warnings == (
        "keps/sig-node/2727-grpc-probe/kep.yaml: title: 'KEP Template' is the template's placeholder; "
        "using the directory's name 'Grpc probe'",
    )


def test_placeholder_feature_gate_name_is_dropped_with_warning():  # sig-storage/3314: "- name: None"
    record = kep(
        replace(
            GRPC_PROBE,
            "  - name: GRPCContainerProbe\n",
            "  - name: None\n    components:\n  - name: GRPCContainerProbe\n",
        )
    )
    assert [gate.name for gate in record.feature_gates] == ["GRPCContainerProbe"]
    assert record.warnings == (
        "keps/sig-node/2727-grpc-probe/kep.yaml: feature-gates[0]: 'None' is a placeholder, not a gate name; dropped",
    )


# -- duplicates across files ----------------------------------------------------------------------------


def test_replaced_copy_loses_to_the_live_kep_whatever_the_order():
    live = kep(source_path="keps/sig-node/2727-grpc-probe/kep.yaml")
    moved = kep(
        replace(GRPC_PROBE, "status: implemented", "status: replaced"),
        directory="2727-grpc-probe",
        source_path="keps/sig-apps/2727-grpc-probe/kep.yaml",
    )
    for order in ([live, moved], [moved, live]):
        chosen, dropped = choose_kep_records(order)
        assert chosen == [live]
        assert dropped[0][0] is moved
        assert "keps/sig-apps/2727-grpc-probe/kep.yaml" in dropped[0][1] and "also claimed by" in dropped[0][1]


def test_two_live_claims_prefer_the_matching_directory_then_path():
    right = kep(source_path="keps/sig-b/2727-grpc-probe/kep.yaml")
    # A folder named by date (before KEP numbers) keeps the field's number, but does not match it.
    wrong_dir = kep(directory="20190603-grpc", source_path="keps/sig-a/20190603-grpc/kep.yaml")
    assert choose_kep_records([wrong_dir, right])[0] == [right]
    first = kep(source_path="keps/sig-a/2727-grpc-probe/kep.yaml")
    assert choose_kep_records([right, first])[0] == [first]


# -- dates ----------------------------------------------------------------------------------------------


def test_impossible_date_is_left_empty_with_warning_naming_file_and_field():  # sig-scheduling/5075-...
    record = kep(replace(GRPC_PROBE, "creation-date: 2021-05-12", "creation-date: 2025-30-01"))
    assert record.creation_date is None
    assert record.warnings[0].startswith("keps/sig-node/2727-grpc-probe/kep.yaml: creation-date: impossible date")


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("2021-05-12", datetime.date(2021, 5, 12)),
        ('"2020-09-26"', datetime.date(2020, 9, 26)),
        ("2021-5-2", datetime.date(2021, 5, 2)),
        ("2021-05-12T10:00:00Z", datetime.date(2021, 5, 12)),
        ("yyyy-mm-dd", None),
    ],
)
def test_date_formats(raw, expected):
    assert parse_date(raw) == (expected, None)


@pytest.mark.parametrize("raw", ["2025-30-01", "2021-02-30", "12/05/2021", "May 2021"])
def test_unreadable_dates_warn(raw):
    value, warning = parse_date(raw)
    assert value is None and warning


def test_last_updated_quoted_or_plain():
    text = GRPC_PROBE + 'last-updated: "2023-06-06"\n'
    assert kep(text).last_updated == datetime.date(2023, 6, 6)


def test_explicit_timestamp_tag_does_not_crash():
    text = replace(GRPC_PROBE, "creation-date: 2021-05-12", "creation-date: !!timestamp 2025-30-01")
    assert kep(text).creation_date is None


# -- status and stage -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, value, warns",
    [
        ("implemented", "implemented", False),
        ("Implemented", "implemented", False),
        ('"implementable"', "implementable", False),
        ("imlpemented", "implemented", True),  # sig-node/2625-cpumanager-policies-thread-placement
        ("provisonal", "provisional", True),
        ("removed", "", True),  # sig-node/281-dynamic-kubelet-configuration: not a KEP status
        ("provisional|implementable|implemented", "", True),  # the template's placeholder
        ("", "", False),
    ],
)
def test_status_rule(raw, value, warns):
    assert normalise_choice(raw, KEP_STATUSES)[0] == value
    assert bool(normalise_choice(raw, KEP_STATUSES)[1]) is warns


@pytest.mark.parametrize(
    "raw, value, warns",
    [
        ("alpha", "alpha", False),
        ("Beta", "beta", False),
        ("alpha (deprecated)", "alpha", True),
        ("GA", "stable", False),
        ("stabel", "stable", True),
        ("disabled", "", True),
    ],
)
def test_stage_rule(raw, value, warns):
    assert normalise_choice(raw, KEP_STAGES)[0] == value
    assert bool(normalise_choice(raw, KEP_STAGES)[1]) is warns


def test_unknown_status_leaves_field_empty_and_imports_the_rest():
    record = kep(replace(GRPC_PROBE, "status: implemented", "status: finished-ish"))
    assert record.status == "" and record.stage == "stable"
    assert "status: unknown value 'finished-ish'" in record.warnings[0]


# -- versions -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, value, warns",
    [
        ("v1.27", "1.27", False),
        ("1.27", "1.27", False),
        ("V1.9", "1.9", False),
        ("1.27.0", "1.27", False),
        ("0.0", "", False),
        ("TBD", "", False),
        ("never", "", False),
        ("x.y", "", False),
        ("", "", False),
        ("soon", "", True),
        ("1.27-ish", "", True),
    ],
)
def test_version_rule(raw, value, warns):
    assert normalise_version(raw)[0] == value
    assert bool(normalise_version(raw)[1]) is warns


def test_unquoted_milestone_is_not_read_as_a_float():
    text = replace(GRPC_PROBE, 'latest-milestone: "v1.27"', "latest-milestone: 1.30")
    assert kep(text).latest_milestone == "1.30"


def test_deprecated_milestone_is_kept():
    text = replace(GRPC_PROBE, '  stable: "v1.27"', '  stable: "v1.27"\n  deprecated: "v1.32"\n  removed: "v1.34"')
    assert kep(text).deprecated_milestone == "1.32"


# -- SIGs and feature gates -----------------------------------------------------------------------------


def test_participating_sigs_keep_slugs_and_drop_prose():  # sig-node/4216-image-pull-per-runtime-class
    text = replace(GRPC_PROBE, "  - sig-network\n", "  - sig-network\n  - Kubelet garbage collection WG\n  - TBD\n")
    record = kep(text)
    assert record.participating_sigs == ("sig-network",)
    assert len(record.warnings) == 1 and "participating-sigs[1]" in record.warnings[0]


def test_participating_groups_is_the_older_name_of_participating_sigs():  # sig-network/1435-mixed-protocol-lb
    text = replace(GRPC_PROBE, "participating-sigs:\n", "participating-groups:\n  - sig-cloud-provider\n")
    assert kep(text).participating_sigs == ("sig-cloud-provider", "sig-network")
    text = replace(GRPC_PROBE, "participating-sigs:\n  - sig-network\n", "participating-groups:\n  - sig-storage\n")
    assert kep(text).participating_sigs == ("sig-storage",)


def test_null_lists_are_empty():
    text = replace(GRPC_PROBE, "participating-sigs:\n  - sig-network\n", "participating-sigs:\n")
    assert kep(text).participating_sigs == ()


def test_feature_gate_components_split_on_commas_and_gates_merge():
    text = replace(
        GRPC_PROBE,
        "      - kubelet\n      - kube-apiserver\n",
        "      - kube-apiserver,kubelet\n      - ''\n  - name: GRPCContainerProbe\n  - name: Other\n",
    )
    gates = kep(text).feature_gates
    assert [(g.name, g.components) for g in gates] == [
        ("GRPCContainerProbe", ("kube-apiserver", "kubelet")),
        ("Other", ()),
    ]


# -- files that are skipped -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "old, new, field",
    [
        ('authors:\n  - "@SergeyKanzhelev"', 'authors: "@SergeyKanzhelev"', "authors"),
        ('latest-milestone: "v1.27"', 'latest-milestone: ["v1.27"]', "latest-milestone"),
        ('milestone:\n  alpha: "v1.23"\n  beta: "v1.24"\n  stable: "v1.27"', 'milestone: ["v1.23"]', "milestone"),
        ("status: implemented", "status: {a: b}", "status"),
        (
            "  - name: GRPCContainerProbe\n    components:\n      - kubelet\n      - kube-apiserver\n",
            "  - GRPCContainerProbe\n",
            "feature-gates[0]",
        ),
        ('reviewers:\n  - "@thockin"', "reviewers:\n  - {github: thockin}", "reviewers[0]"),
        ("title: Add gRPC probe to Pod", "title:", "title"),
        ("owning-sig: sig-node", "owning-sig: SIG Node team", "owning-sig"),
    ],
)
def test_wrong_types_and_missing_fields_skip_the_file_naming_the_field(old, new, field):
    with pytest.raises(ImportFailure) as exc:
        kep(replace(GRPC_PROBE, old, new))
    assert exc.value.field == field
    message = str(exc.value)
    assert message.startswith(f"keps/sig-node/2727-grpc-probe/kep.yaml: {field}: ") and "\n" not in message


def test_yaml_syntax_error_names_the_line():
    text = replace(GRPC_PROBE, "stage: stable", "stage: [stable")
    with pytest.raises(ImportFailure) as exc:
        kep(text)
    assert exc.value.line is not None and exc.value.line >= GRPC_PROBE.splitlines().index("stage: stable") + 1
    assert "YAML does not parse" in str(exc.value)


def test_nul_escape_is_refused_naming_the_line():
    """`"\\0"` in a quoted scalar is a NUL character, which PostgreSQL cannot store: the file is skipped alone."""
    text = replace(GRPC_PROBE, "title: Add gRPC probe to Pod", 'title: "Add gRPC\\0probe"')
    with pytest.raises(ImportFailure) as exc:
        kep(text)
    assert exc.value.line == 1 and "NUL character" in str(exc.value)
    assert str(exc.value).startswith("keps/sig-node/2727-grpc-probe/kep.yaml:1:")


def test_aliases_share_what_they_name_so_an_alias_bomb_stays_small():
    levels = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    levels += [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]" for i in range(8)]
    text = replace(GRPC_PROBE, "metrics:", "\n".join(levels) + "\nmetrics:")  # 10**9 strings if expanded
    record = kep(text)
    assert record.number == 2727
    reviewers = replace(GRPC_PROBE, 'reviewers:\n  - "@thockin"', 'reviewers: &people\n  - "@thockin"')
    reviewers = replace(reviewers, 'approvers:\n  - "@dchen1107"', "approvers: *people")
    assert [p.github for p in kep(reviewers).approvers] == ["thockin"]


def test_self_referencing_alias_is_skipped_or_read_never_a_crash():
    text = replace(GRPC_PROBE, "metrics:\n  - probe_total", "metrics: &loop\n  - *loop")
    assert kep(text).number == 2727  # `metrics` is not read
    looping_authors = replace(GRPC_PROBE, 'authors:\n  - "@SergeyKanzhelev"', "authors: &loop\n  - *loop")
    with pytest.raises(ImportFailure):
        kep(looping_authors)


@pytest.mark.parametrize("text", ["", "# only a comment\n", "- a\n- list\n", "just text"])
def test_not_a_mapping_is_skipped(text):
    with pytest.raises(ImportFailure):
        kep(text)


def test_truncated_file_is_skipped():
    with pytest.raises(ImportFailure):
        kep(GRPC_PROBE[: GRPC_PROBE.index('beta: "v1.24"') + 9])  # cut inside a quoted value


def test_binary_and_huge_files_are_refused_by_read_text(tmp_path):
    binary = tmp_path / "kep.yaml"
    binary.write_bytes(b"title: x\x00\xff\xfe")
    with pytest.raises(ImportFailure, match="binary"):
        read_text(binary)
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as handle:
        handle.truncate(20 * 1024 * 1024)  # sparse: 20 MB without writing them
    with pytest.raises(ImportFailure, match="too large"):
        read_text(huge)


# -- properties -----------------------------------------------------------------------------------------


def _only_result_or_import_failure(text: str) -> None:
    try:
        result = kep(text)
    except ImportFailure as failure:
        assert "\n" not in str(failure)
        return
    assert isinstance(result, KepRecord) and result.number > 0 and result.title


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_random_text_gives_a_record_or_import_failure(text):
    _only_result_or_import_failure(text)


_LINES = GRPC_PROBE.splitlines(keepends=True)
_FRAGMENTS = [
    "- ",
    ": ",
    "{",
    "[",
    '"',
    "'",
    "!!timestamp ",
    "!!float ",
    "!!python/object ",
    "&a ",
    "*a",
    "? ",
    "\t",
    "0",
    "\n",
    "  ",
    "null",
    "2025-30-01",
    "1.30",
    "~",
    "<<: ",
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_kep_yaml_gives_a_record_or_import_failure(data):
    lines = list(_LINES)
    for _ in range(data.draw(st.integers(1, 6))):
        index = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["insert", "delete", "duplicate", "truncate", "swap"]))
        line = lines[index]
        if action == "insert":
            at = data.draw(st.integers(0, len(line)))
            lines[index] = line[:at] + data.draw(st.sampled_from(_FRAGMENTS)) + line[at:]
        elif action == "delete":
            del lines[index]
        elif action == "duplicate":
            lines.insert(index, line)
        elif action == "truncate":
            lines[index] = line[: data.draw(st.integers(0, len(line)))]
        else:
            other = data.draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        if not lines:
            break
    _only_result_or_import_failure("".join(lines))


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "title",
                "kep-number",
                "owning-sig",
                "authors",
                "status",
                "stage",
                "milestone",
                "latest-milestone",
                "feature-gates",
                "creation-date",
                "participating-sigs",
                "disable-supported",
            ]
        ),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20) | st.floats(allow_nan=False),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
            max_leaves=6,
        ),
    )
)
def test_random_structures_give_a_record_or_import_failure(mapping):
    _only_result_or_import_failure(yaml.safe_dump(mapping))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_give_a_record_or_import_failure(data):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kep.yaml"
        path.write_bytes(data)
        try:
            text = read_text(path)
        except ImportFailure:
            return
        _only_result_or_import_failure(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_random_text_gives_a_prr_record_or_import_failure(text):
    try:
        result = parse_prr(text, source="1.yaml", file_number=1)
    except ImportFailure:
        return
    assert isinstance(result, PrrRecord)
