"""People as upstream files name them (`community.importers.people`): every form kep.yaml, PRR files and sigs.yaml
use for a GitHub handle."""

import pytest

from community.importers.people import PersonRef, parse_people


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("@SergeyKanzhelev", [PersonRef("SergeyKanzhelev")]),
        ("mrunalp", [PersonRef("mrunalp")]),
        ("“@sjenning”", [PersonRef("sjenning")]),
        ("Jane Doe (@janedoe)", [PersonRef("janedoe", name="Jane Doe")]),
        ("@janedoe <jane@example.com>", [PersonRef("janedoe", email="jane@example.com")]),
        ("with input from @bgrant0607, @dchen1107", [PersonRef("bgrant0607"), PersonRef("dchen1107")]),
        ("TBD", []),
    ],
)
def test_person_forms(raw, expected):
    assert list(parse_people([raw], source="f", name="authors")[0]) == expected


def test_people_dedupe_case_insensitively_and_warn_on_unusable_entries():
    people, warnings = parse_people(["@Alice", "@alice", "Bob Smith <bob@example.com>"], source="f", name="authors")
    assert people == (PersonRef("Alice"),)
    assert warnings == ["f: authors[2]: no GitHub handle in 'Bob Smith <bob@example.com>'; dropped"]


def test_numeric_handle_is_kept_as_text():
    assert parse_people([12345], source="f", name="authors")[0] == (PersonRef("12345"),)
