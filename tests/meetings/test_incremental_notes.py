"""A changed notes file re-read meeting by meeting: sections whose text is as last imported are not parsed again
(`parse_meeting_notes(known=...)`, `meeting_notes_import_files(skip_unchanged=True)`), and the database ends up
exactly as a full re-import leaves it."""

import datetime

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.importing import ImportFailure
from meetings.importers.notes import parse_meeting_notes
from meetings.importers.notes.parse import RETRO_MARK
from meetings.models import AgendaItem, Meeting
from meetings.services import meeting_fingerprints, meeting_notes_import_files
from tests.upstream.snapshots import domain_rows, rows_differ

D = datetime.date
NAME = "meeting-notes-2022.md"


@pytest.fixture
def text(upstream_dir):
    return (upstream_dir / "community" / "sig-node" / "archive" / NAME).read_text()


def edited(text: str) -> str:
    """A week of upstream edits: a meeting added at the top (every line below moves), one item reworded, one
    item removed, a PR figure corrected."""
    newer = text.replace("## Dec 27th [Canceled for holidays]", "## Jan 3, 2023\n\n* [@newcomer] Hello\n\n## Dec 27th")
    newer = newer.replace("* [swsehgal] Topology Manager GA graduation", "* [swsehgal] Topology Manager GA plan", 1)
    newer = newer.replace("* [mweston & atanas] Quick update on issue", "", 1)
    return newer.replace("Total: [196]", "Total: [197]", 1)


def fingerprints(notes) -> dict:
    return {m.date: m.fingerprint for m in notes.meetings if m.fingerprint}


def test_only_changed_sections_are_parsed_and_the_rest_keep_their_new_line(text):
    known = fingerprints(parse_meeting_notes(text, source=NAME))
    newer = edited(text)
    full = parse_meeting_notes(newer, source=NAME)
    incremental = parse_meeting_notes(newer, source=NAME, known=known)
    parsed = {m.date for m in incremental.meetings}
    assert D(2023, 1, 3) in parsed and D(2022, 12, 13) in parsed  # new, and reworded/figure changed
    assert len(parsed) < 10 < len(incremental.unchanged)
    # Every meeting is either parsed or listed unchanged, at the line the full parse gives it.
    lines = {m.date: m.line for m in full.meetings}
    assert parsed | {date for date, _ in incremental.unchanged} == set(lines)
    assert all(lines[date] == line for date, line in incremental.unchanged)
    # What is parsed is parsed as a full parse parses it.
    by_date = {m.date: m for m in full.meetings}
    assert all(m == by_date[m.date] for m in incremental.meetings)


def test_the_sections_naming_a_retro_are_parsed_all_together_or_not_at_all(text):
    notes = parse_meeting_notes(text, source=NAME)
    known = fingerprints(notes)
    retro_dates = {m.date for m in notes.meetings if m.retros}
    assert len(retro_dates) >= 3
    # Nothing changed: none is parsed, and no retro is read.
    again = parse_meeting_notes(text, source=NAME, known=known)
    assert not again.meetings and not [r for m in again.meetings for r in m.retros]
    # A meeting with no retro changed: it alone is parsed.
    newer = text.replace("* [aditi] Expose pod cgroup path:", "* [aditi] Expose the pod cgroup path:", 1)
    changed = parse_meeting_notes(newer, source=NAME, known=known)
    assert [m.date for m in changed.meetings] == [D(2022, 11, 29)]
    # One that quotes a retro changed: every one that does is parsed with it, as a full parse reads them.
    newer = text.replace("* 1.24 retro\n", "* 1.24 retro (moved)\n", 1)
    assert newer != text
    changed = parse_meeting_notes(newer, source=NAME, known=known)
    assert retro_dates <= {m.date for m in changed.meetings}
    full = {m.date: m for m in parse_meeting_notes(newer, source=NAME).meetings}
    assert all(m == full[m.date] for m in changed.meetings)
    # One that quoted a retro left the file: the others are parsed again.
    gone = min(retro_dates)
    without = parse_meeting_notes(text, source=NAME, known={**known, D(2030, 1, 1): known[gone]})
    assert retro_dates <= {m.date for m in without.meetings}


def test_a_section_of_a_shared_date_is_always_parsed():
    twice = "## Jan 3, 2023\n\n* first\n\n## Jan 3, 2023\n\n* second\n\n## Jan 10, 2023\n\n* third\n"
    notes = parse_meeting_notes(twice, source=NAME)
    assert [m.fingerprint == "" for m in notes.meetings] == [True, False]  # merged from two: never skipped
    again = parse_meeting_notes(twice, source=NAME, known={D(2023, 1, 3): "x", **fingerprints(notes)})
    assert [m.date for m in again.meetings] == [D(2023, 1, 3)] and again.unchanged == [(D(2023, 1, 10), 9)]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    edits=st.lists(
        st.tuples(st.integers(min_value=0, max_value=10**6), st.sampled_from(["\n", "x", "## Jan 5, 2023\n", "* y\n"])),
        max_size=4,
    )
)
@example(edits=[(1595, "\n")])  # a blank line inside an HTML table: the file is refused as truncated
def test_any_edit_parses_as_a_full_parse_would(text, edits):
    known = fingerprints(parse_meeting_notes(text, source=NAME))
    newer = text
    for at, insert in edits:
        at %= len(newer) + 1
        newer = newer[:at] + insert + newer[at:]
    try:
        full = parse_meeting_notes(newer, source=NAME)
    except ImportFailure as failure:  # an edit that leaves a table or code fence open: refused the same way
        with pytest.raises(ImportFailure) as refused:
            parse_meeting_notes(newer, source=NAME, known=known)
        assert str(refused.value) == str(failure)
        return
    incremental = parse_meeting_notes(newer, source=NAME, known=known)
    by_date = {m.date: m for m in full.meetings}
    assert all(m == by_date[m.date] for m in incremental.meetings)
    unchanged = dict(incremental.unchanged)
    assert set(unchanged) | {m.date for m in incremental.meetings} == set(by_date)
    assert all(known[date] == by_date[date].fingerprint for date in unchanged)


def test_an_incremental_import_leaves_what_a_full_one_does(db, text, tmp_path):
    path = tmp_path / "sig-node" / NAME
    path.parent.mkdir()
    path.write_text(text)
    meeting_notes_import_files(paths=[path], sig="sig-node", dry_run=False)
    path.write_text(edited(text))
    report = meeting_notes_import_files(paths=[path], sig="sig-node", dry_run=False, skip_unchanged=True)
    # Moved down by four lines: the meetings parsed again (the changed ones, those quoting a retro) are updated.
    assert report.created == 1 and 2 <= report.updated <= 5 and report.unchanged > 40
    assert Meeting.objects.get(date=D(2022, 12, 6)).source == f"{NAME}:82"  # four lines added above it
    assert not AgendaItem.objects.filter(title__startswith="Topology Manager GA graduation").exists()
    incremental = domain_rows()

    report = meeting_notes_import_files(paths=[path], sig="sig-node", dry_run=False)
    assert report.created == report.updated == 0
    assert rows_differ(incremental, domain_rows()) == {}


def test_the_fingerprints_compared_are_the_files_own(db, upstream_dir):
    """A retro quoted in another year's file is not one that left this file (which would have every meeting
    quoting a retro here read again on each run)."""
    archive = upstream_dir / "community" / "sig-node" / "archive"
    meeting_notes_import_files(paths=[archive], sig="sig-node", dry_run=False)
    known = meeting_fingerprints(sig="sig-node", source=NAME)
    assert known and {date.year for date in known} == {2022}
    assert any(fingerprint.startswith(RETRO_MARK) for fingerprint in known.values())
    assert any(
        fingerprint.startswith(RETRO_MARK)
        for fingerprint in meeting_fingerprints(sig="sig-node", source="meeting-notes-2021.md").values()
    )
    text = (archive / NAME).read_text()
    assert not parse_meeting_notes(text, source=NAME, known=known).meetings
