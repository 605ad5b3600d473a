"""The meeting-notes parser on the real archive samples and on the shapes of the 2016-2020 and 2023-2025 archives."""

import datetime

import pytest

from core.importing import ImportFailure
from meetings.importers.notes import (
    is_cancellation,
    kep_refs,
    parse_meeting_notes,
    split_presenters,
)

D = datetime.date


def parse(text, source="meeting-notes-2022.md"):
    return parse_meeting_notes(text, source=source)


def by_date(notes):
    return {m.date: m for m in notes.meetings}


# -- the real archives ---------------------------------------------------------------------------------------


def test_real_archive_samples(upstream_dir):
    archive = upstream_dir / "community" / "sig-node" / "archive"
    notes = parse((archive / "meeting-notes-2022.md").read_text(), "meeting-notes-2022.md")
    meetings = by_date(notes)
    assert D(2022, 12, 13) in meetings  # the bare "Dec 13th, 2022" line
    assert meetings[D(2022, 12, 27)].cancelled and meetings[D(2022, 10, 25)].cancelled
    dec6 = meetings[D(2022, 12, 6)]
    assert (dec6.open_prs, dec6.prs_created, dec6.prs_updated, dec6.prs_closed, dec6.prs_merged) == (218, 11, 63, 7, 2)
    retro = {r.release: r for r in meetings[D(2022, 4, 26)].retros}["1.24"]
    assert sum(k.status == "done" for k in retro.keps) == 6
    assert sum(k.status == "removed_from_milestone" for k in retro.keps) == 17
    older = parse((archive / "meeting-notes-2021.md").read_text(), "meeting-notes-2021.md")
    jan26 = by_date(older)[D(2021, 1, 26)]
    assert jan26.prs_updated == 91  # the table says "fUpdated:"


# -- formats of the 2016-2020 and 2023-2025 archives --------------------------------------------------------


def test_docs_export_anchors_are_not_part_of_the_heading():
    notes = parse("# Dec 13 {#dec-13}\n\n* [a] item\n\n# Aug 23 -- Cancelled {#aug-23-cancelled}\n", "notes-2016.md")
    first, second = notes.meetings
    assert (first.date, first.title) == (D(2016, 12, 13), "Dec 13")
    assert (second.date, second.title, second.cancelled) == (D(2016, 8, 23), "Aug 23 -- Cancelled", True)


def test_stray_export_characters_before_a_heading_date_are_skipped():
    notes = parse("## \\`1Oct 29, 2024 (Canceled)\n\nCanceled due to lack of the agenda.\n", "notes-2024.md")
    (meeting,) = notes.meetings
    assert (meeting.date, meeting.title, meeting.cancelled) == (D(2024, 10, 29), "Oct 29, 2024 (Canceled)", True)


def test_a_month_heading_without_a_day_is_reported_not_dated_from_its_text():
    text = "## Dec [all dates] - meetings canceled, next meeting Jan 2nd 2024\n\n## Dec 5, 2023\n\n* [a] item\n"
    notes = parse(text, "notes-2023.md")
    assert [m.date for m in notes.meetings] == [D(2023, 12, 5)]
    (warning,) = notes.warnings
    assert warning.startswith("notes-2023.md:1: heading 'Dec [all dates]") and warning.endswith("names no day; skipped")


def test_backslash_escaped_markdown_presenters_and_titles():
    text = "## Sep 3, 2024\n\n- \\[minna\\] fix oom\\_score\\_adj \\#123 [\\[PUBLIC\\] doc](https://d.example/x)\n"
    (item,) = parse(text, "notes-2024.md").meetings[0].items
    assert (item.presenters_text, item.title) == ("minna", "fix oom_score_adj #123 [PUBLIC] doc")
    assert split_presenters("\\[Kevin Hannon\\] Swap")[0] == "Kevin Hannon"


def test_heading_and_list_marks_inside_a_bullet_and_a_dash_after_the_presenter():
    text = (
        "## Nov 5, 2024\n\n* # \\[danwinship/surya\\] [Redesigning Probes](https://d.example/p)\n"
        "- \\- [github.com/a/b](https://github.com/a/b)\n* [harche] - Looking for reviews\n"
    )
    items = parse(text, "notes-2024.md").meetings[0].items
    assert [(i.presenters_text, i.title) for i in items] == [
        ("danwinship/surya", "Redesigning Probes"),
        ("", "github.com/a/b"),
        ("harche", "Looking for reviews"),
    ]


@pytest.mark.parametrize(
    ("line", "cancelled"),
    [
        ("Happy Holidays! No meeting 🎉🎉", True),
        ("Today’s SIG Node was cancelled due to the election.", True),
        ("Cancelling due to lack of agenda and no bugs marked for the milestone.", True),
        ("No call (kubecon)", True),
        ("no agenda", True),
        ("[mrunal] Canceling next week's meeting for kubecon.", False),
        ("We reviewed the KEP. No meeting notes were taken", False),
        ("No agenda items from sig-storage yet, ping them", False),
    ],
)
def test_cancellation_notes_of_other_years(line, cancelled):
    assert is_cancellation(line) is cancelled


def test_a_holiday_note_cancels_every_day_of_the_heading():
    notes = parse("# December 24 & 31, 2019\n\n*   Happy Holidays! No meeting 🎉🎉\n", "notes-2019.md")
    assert [(m.date.day, m.cancelled, m.items) for m in notes.meetings] == [(24, True, []), (31, True, [])]


def test_pr_flow_after_the_agenda_or_inside_an_item_when_none_precedes_it():
    after = (
        "## October 13th, 2020\n\nTotal active pull requests:\n\n* [@rata] sidecar KEP\n\n"
        "Total active pull requests: [172](https://x) (-2)\n\n|Created: |[**18**](https://x) |Merged: |[14](https://x)|\n"
    )
    meeting = parse(after, "notes-2020.md").meetings[0]
    assert (meeting.open_prs, meeting.prs_created, meeting.prs_merged) == (172, 18, 14)
    table = "<table><tr><td>Created:</td><td>41</td><td>Closed:</td><td>10</td></tr></table>"
    inside = f"## Oct 17, 2023\n\n* [a] stats\n\n{table}\n"
    assert parse(inside, "notes-2023.md").meetings[0].prs_created == 41
    stray = parse("## Jan 4, 2022\n\n* [a] item\n\n    Merged: 3 of them\n").meetings[0]
    assert stray.prs_merged is None


@pytest.mark.parametrize(
    ("line", "presenters", "title"),
    [
        (
            "*   Isolated PID namespaces in non-docker runtimes [verb]",
            "verb",
            "Isolated PID namespaces in non-docker runtimes",
        ),
        ("*   Rktlet status (@alban)", "@alban", "Rktlet status"),
        ("*   New Resource API (@vikas and @jiayingz):", "@vikas and @jiayingz", "New Resource API"),
        ("*   Rollout plan (5 mins)", "", "Rollout plan (5 mins)"),
        ("*   Kubecon f2f (verb@google.com)", "", "Kubecon f2f (verb@google.com)"),
        ("*   Node e2e tests [help desired]", "", "Node e2e tests [help desired]"),
        ("*   Release blocking issue [Fixed]", "", "Release blocking issue [Fixed]"),
    ],
)
def test_a_presenter_named_at_the_end_of_an_older_item(line, presenters, title):
    (item,) = parse(f"# Aug 22 {{#aug-22}}\n\n{line}\n", "notes-2017.md").meetings[0].items
    assert (item.presenters_text, item.title) == (presenters, title)


def test_the_enhancements_repository_under_its_old_name_features():
    text = "# Sep 12 {#sep-12}\n\n*   Triage: [CPU Manager](https://github.com/kubernetes/features/issues/375)\n"
    (item,) = parse(text, "notes-2017.md").meetings[0].items
    assert item.kep_numbers == (375,)
    assert item.links == ("https://github.com/kubernetes/enhancements/issues/375",)
    assert kep_refs("see https://github.com/kubernetes/features/blob/master/release-1.8/notes.md") == []


def test_a_nul_byte_is_refused_with_its_line():
    with pytest.raises(ImportFailure) as refused:
        parse_meeting_notes("## Jan 4, 2022\n* [@ab] item\n\x00\n", source="meeting-notes-2022.md")
    assert "NUL" in str(refused.value) and ":3" in str(refused.value)
