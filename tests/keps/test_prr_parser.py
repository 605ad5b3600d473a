"""The PRR approval files (`keps/prod-readiness/<sig>/<number>.yaml`): approver per stage, the file name as the
KEP's number, and the shapes that skip a file."""

import pytest

from community.importers.people import PersonRef
from core.importing import ImportFailure
from keps.importers.kep_yaml import PRR_STAGES, PrrRecord, parse_prr

PRR_1029 = """\
kep-number: 1029
alpha:
  approver: "@deads2k"
beta:
  approver: "@soltysh"
"""


def test_prr_file_reads_approver_per_stage():
    record = parse_prr(PRR_1029, source="keps/prod-readiness/sig-node/1029.yaml", file_number=1029)
    assert record == PrrRecord(
        number=1029,
        approvals=(("alpha", PersonRef("deads2k")), ("beta", PersonRef("soltysh"))),
        source_path="keps/prod-readiness/sig-node/1029.yaml",
    )


def test_prr_file_name_wins_over_a_wrong_kep_number():  # prod-readiness/sig-node/688.yaml says 277
    record = parse_prr("kep-number: 277\nstable:\n  approver: '@ehashman'\n", source="688.yaml", file_number=688)
    assert record.number == 688
    assert "says 277 but the file is named 688.yaml" in record.warnings[0]


def test_prr_unknown_stage_is_ignored_with_warning_and_deprecated_is_deprecation():
    text = "kep-number: 281\nremoved:\n  approver: '@a'\ndeprecated:\n  approver: '@b'\n"
    record = parse_prr(text, source="281.yaml", file_number=281)
    assert record.approvals == (("deprecation", PersonRef("b")),)
    assert any("removed: not a PRR stage" in w for w in record.warnings)
    assert set(PRR_STAGES) >= {stage for stage, _ in record.approvals}


def test_prr_without_any_number_is_skipped():
    with pytest.raises(ImportFailure) as exc:
        parse_prr("alpha:\n  approver: '@a'\n", source="x.yaml", file_number=None)
    assert exc.value.field == "kep-number"


def test_prr_stage_of_wrong_type_is_skipped():
    with pytest.raises(ImportFailure) as exc:
        parse_prr("kep-number: 1\nalpha: '@a'\n", source="1.yaml", file_number=1)
    assert exc.value.field == "alpha"
