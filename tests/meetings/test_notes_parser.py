"""The meeting-notes parser: each messy-format rule on its own, real samples, and random input."""

import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.importing import ImportFailure
from meetings.importers.notes import (
    PresenterRef,
    action_status,
    is_cancellation,
    item_links,
    kep_refs,
    match_date,
    parse_heading,
    parse_meeting_notes,
    pr_flow,
    release_mentions,
    retro_release_of,
    split_presenters,
    year_from_filename,
)

D = datetime.date


def parse(text, source="meeting-notes-2022.md"):
    return parse_meeting_notes(text, source=source)


def by_date(notes):
    return {m.date: m for m in notes.meetings}


# -- headings and dates -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "dates", "cancelled"),
    [
        ("## Dec 13th, 2022", [D(2022, 12, 13)], False),
        ("# Dec 13, 2022", [D(2022, 12, 13)], False),
        ("### Mar 28st, 2023", [D(2023, 3, 28)], False),
        ("Dec 13th, 2022", [D(2022, 12, 13)], False),
        ("**Dec 13th, 2022**", [D(2022, 12, 13)], False),
        ("## Nov 28, 2023 [Canceled]", [D(2023, 11, 28)], True),
        ("## December 28, 2021 Cancelled", [D(2021, 12, 28)], True),
        ("## Dec 27th [Canceled for holidays]", [D(2022, 12, 27)], True),
        ("## 2022-01-04", [D(2022, 1, 4)], False),
        ("## Tuesday, January 4, 2022", [D(2022, 1, 4)], False),
        ("## 4th February 2022", [D(2022, 2, 4)], False),
        ("## Sept 6", [D(2022, 9, 6)], False),
        ("## February 22, 2022 [cancelled]", [D(2022, 2, 22)], True),
        ("## Oct 25, 2022 (no meeting, KubeCon)", [D(2022, 10, 25)], True),
        ("## SIG Node weekly meeting - Dec 13, 2016", [D(2016, 12, 13)], False),
        ("## 12/13/2016", [D(2016, 12, 13)], False),
    ],
)
def test_heading_forms(line, dates, cancelled):
    notes = parse(f"# SIG Node Meeting Notes\n\n{line}\n\n* [a] item\n")
    assert [m.date for m in notes.meetings] == dates
    assert notes.meetings[0].cancelled is cancelled


def test_several_days_in_one_heading_make_one_meeting_each_with_the_notes_on_the_first():
    notes = parse("## December 24 & 31, 2019 - Cancelled\n\n* [dawn] Happy holidays\n", "notes-2019.md")
    first, second = notes.meetings
    assert (first.date, second.date) == (D(2019, 12, 24), D(2019, 12, 31))
    assert first.cancelled and second.cancelled
    assert [i.title for i in first.items] == ["Happy holidays"] and second.items == []


def test_bare_lines_are_headings_only_when_they_are_just_a_date():
    notes = parse("## Jan 4, 2022\n\n* item\n\nJan 11 is the next deadline for KEPs\n\nJan 18, 2022 [Canceled]\n")
    assert [m.date for m in notes.meetings] == [D(2022, 1, 4), D(2022, 1, 18)]
    assert "Jan 11 is the next deadline" in notes.meetings[0].items[0].body
    assert parse_heading("Dec 13 we decided to ship") is None
    assert parse_heading("# SIG Node Meeting Notes") is None
    assert parse_heading("    Dec 13, 2022") is None  # indented: part of a list, not a heading


def test_year_comes_from_the_heading_else_the_file_name_else_an_earlier_heading():
    assert year_from_filename("sig-node/archive/meeting-notes-2021.md") == 2021
    assert year_from_filename("notes.md") is None
    notes = parse("## Dec 14, 2021\n* a\n## Dec 7\n* b\n", "notes.md")
    assert [m.date for m in notes.meetings] == [D(2021, 12, 14), D(2021, 12, 7)]
    with pytest.raises(ImportFailure) as failure:
        parse("## Dec 7\n* b\n", "notes.md")
    assert failure.value.line == 1 and "no year" in str(failure.value)


def test_headings_out_of_order_and_duplicate_dates_are_merged_with_a_warning():
    text = "## Jan 4, 2022\n* [a] one\n## Jan 18, 2022\n* [b] two\n## Jan 4, 2022\n* [c] three\n"
    notes = parse(text)
    meetings = by_date(notes)
    assert sorted(meetings) == [D(2022, 1, 4), D(2022, 1, 18)]
    assert [(i.order, i.title) for i in meetings[D(2022, 1, 4)].items] == [(0, "one"), (1, "three")]
    assert any("meeting-notes-2022.md:5" in w and "merged" in w for w in notes.warnings)


def test_impossible_dates_are_reported_and_their_notes_not_merged_into_the_meeting_above():
    notes = parse("## Feb 22, 2022\n* [a] real\n## Feb 30, 2022\n* [b] lost\n")
    assert [m.date for m in notes.meetings] == [D(2022, 2, 22)]
    assert [i.title for i in notes.meetings[0].items] == ["real"]
    assert any(":3:" in w and "impossible date" in w for w in notes.warnings)


def test_match_date_keeps_what_is_written():
    assert match_date("Mar 28st, 2023").parts == ((2023, 3, 28),)
    assert match_date("Dec 13").parts == ((None, 12, 13),)
    assert match_date("December 24 & 31, 2019").parts == ((2019, 12, 24), (2019, 12, 31))
    assert match_date("1/4/2022").parts == ((2022, 1, 4),)
    assert match_date("Decided: ship it") is None


# -- cancelled ----------------------------------------------------------------------------------------------


def test_cancelled_from_the_first_line_or_a_notice_item_which_is_not_an_agenda_item():
    text = (
        "## April 19, 2022\n\n**Cancelled** - due to availability of leads.\n\n"
        "## May 17, 2022\n\n* Canceled due to Kubecon\n\n"
        "## Mar 29, 2022\n\nNo agenda, canceling to focus on code freeze.\n\n"
        "## Dec 21, 2021\n\n* [dawnchen] Cancelled\n\n"
        "## Apr 27, 2021\n\n* Cancelled, no agenda items\n\n"
        "## Mar 30, 2021\n\n* Meeting canceled (lots of folks are out of office)\n\n"
        "## Mar 22, 2022\n\n* [a] Cancelled the old plan in favour of the new one\n"
    )
    meetings = by_date(parse(text))
    for date in (D(2022, 4, 19), D(2022, 5, 17), D(2022, 3, 29), D(2021, 12, 21), D(2021, 4, 27), D(2021, 3, 30)):
        assert meetings[date].cancelled and meetings[date].items == []
    assert not meetings[D(2022, 3, 22)].cancelled and len(meetings[D(2022, 3, 22)].items) == 1
    assert is_cancellation("[dawnchen] Cancelled") and not is_cancellation("Cancel the plan")


# -- PR flow ------------------------------------------------------------------------------------------------

HTML_FLOW = """
Recording: [https://www.youtube.com/watch?v=iw_xZZPuXDI](https://www.youtube.com/watch?v=iw_xZZPuXDI)

Total: [196](https://github.com/kubernetes/kubernetes/pulls?q=is%3Aopen) (-22, yay!)

<table>
  <tr>
   <td><strong>Incoming</strong>
   </td>
   <td>
   </td>
   <td><strong>Completed</strong>
   </td>
  </tr>
  <tr>
   <td>Created:
   </td>
   <td><strong><a href="https://github.com/kubernetes/kubernetes/pulls?q=created">32</a></strong>
   </td>
   <td>Closed:
   </td>
   <td><a href="https://github.com/kubernetes/kubernetes/pulls?q=is%3Aunmerged+closed">37</a>
   </td>
  </tr>
  <tr>
   <td>fUpdated:
   </td>
   <td><strong><a href="https://github.com/kubernetes/kubernetes/pulls?q=updated">161</a></strong>
   </td>
   <td>Merged:
   </td>
   <td><a href="https://github.com/kubernetes/kubernetes/pulls?q=merged">22</a>
   </td>
  </tr>
</table>
"""


def test_pr_flow_from_an_html_table_with_a_mistyped_label_and_the_recording():
    meeting = parse(f"Dec 13th, 2022\n{HTML_FLOW}\n* [a] item\n").meetings[0]
    assert (meeting.open_prs, meeting.prs_created, meeting.prs_updated, meeting.prs_closed, meeting.prs_merged) == (
        196,
        32,
        161,
        37,
        22,
    )
    assert meeting.recording_url == "https://www.youtube.com/watch?v=iw_xZZPuXDI"


def test_pr_flow_in_table_cells_pipe_tables_and_text():
    cells = ["<table><tr><td>Total active pull requests:", "</td><td><a href='x'>207</a>", "</td></tr></table>"]
    assert pr_flow(cells) == {"open_prs": 207}
    pipes = ["| Merged | Closed | Created |", "|---|---|---|", "| x | y | z |", "Merged: 3 | Closed: 4 | Created: 5"]
    assert pr_flow(pipes) == {"prs_merged": 3, "prs_closed": 4, "prs_created": 5}
    assert pr_flow(["Total active pull requests:: [222](https://x)"]) == {"open_prs": 222}
    assert pr_flow(["We merged 13 PRs and closed 2"]) == {}


def test_pr_flow_is_read_only_before_the_first_agenda_item():
    meeting = parse("## Jan 4, 2022\n* [a] item\n    * Total: 5\n").meetings[0]
    assert meeting.open_prs is None


# -- agenda items -------------------------------------------------------------------------------------------


def test_top_level_bullets_of_any_kind_are_items_and_nested_notes_their_body():
    text = (
        "## Jan 4, 2022\n\nTotal: 3\n\n"
        "* [a] star\n    * nested one\n        * deeper\n"
        "- [b] dash\n\t* tab-nested\n"
        "+ [c] plus\n"
        "1. [d] numbered\n2) [e] numbered paren\n"
    )
    items = parse(text).meetings[0].items
    assert [(i.order, i.title) for i in items] == [
        (0, "star"),
        (1, "dash"),
        (2, "plus"),
        (3, "numbered"),
        (4, "numbered paren"),
    ]
    assert items[0].body == "* nested one\n    * deeper"
    assert items[1].body == "* tab-nested"


def test_a_pasted_zoom_chat_joins_the_item_it_discusses():  # meeting-notes-2018.md, Dec 18
    text = (
        "# Dec 18\n\n"
        "*   UserNS remapping: [updated proposal](https://github.com/kubernetes/community/pull/2595) (vikasc):\n\n"
        "    Question raised at Zoom Chat:\n\n"
        "*   From Mike Danese to Everyone: (10:42 AM)\n\n"
        '     I would like to reconcile the "Motivation" section.\n\n'
        "*   From 刘澜涛 to Everyone: (10:46 AM)\n\n"
        "     It is possible to support per pod user namespace mapping in containerd.\n\n"
        "*   10:51:02 From Jane Doe : a later Zoom's saved chat\n"
        "*   From alpha to beta: the next item, not a chat message\n"
    )
    items = parse(text, source="meeting-notes-2018.md").meetings[0].items
    assert [item.title for item in items] == [
        "UserNS remapping: updated proposal (vikasc):",
        "From alpha to beta: the next item, not a chat message",
    ]
    assert "From Mike Danese to Everyone: (10:42 AM)" in items[0].body
    assert "per pod user namespace mapping" in items[0].body and "10:51:02 From Jane Doe" in items[0].body


def test_top_level_is_the_least_indented_bullet_of_the_meeting():
    items = parse("## Jan 4, 2022\n\n    * [a] one\n        * sub\n    * [b] two\n").meetings[0].items
    assert [i.title for i in items] == ["one", "two"] and items[0].body == "* sub"


@pytest.mark.parametrize(
    ("text", "written", "refs", "rest"),
    [
        (
            "[mrunal/sergey/ruiwen] 1.26 retro",
            "mrunal/sergey/ruiwen",
            [("mrunal", 0), ("sergey", 0), ("ruiwen", 0)],
            "1.26 retro",
        ),
        ("[@everpeace] KEP", "@everpeace", [("everpeace", 1)], "KEP"),
        ("[mweston & atanas] Quick update", "mweston & atanas", [("mweston", 0), ("atanas", 0)], "Quick update"),
        ("[swsehgal/@alukiano] PodResource", "swsehgal/@alukiano", [("swsehgal", 0), ("alukiano", 1)], "PodResource"),
        ("[rata]: userns KEP", "rata", [("rata", 0)], "userns KEP"),
        ("[Marlow Weston] Looking", "Marlow Weston", [], "Looking"),
        ("(dawnchen) Announcements", "dawnchen", [("dawnchen", 0)], "Announcements"),
        ("(joining at 10:30) Looking for", "", [], "(joining at 10:30) Looking for"),
        ("[1.25 retro](https://docs.google.com/x)", "", [], "1.25 retro"),
        ("~~[klueska] Bug fix~~", "klueska", [("klueska", 0)], "Bug fix~~"),
        (
            "[[Paco](https://github.com/pacoxu)/Shiming] volunteers",
            "Paco/Shiming",
            [("Paco", 0), ("Shiming", 0)],
            "volunteers",
        ),
        ("[Done] 281: DynamicKubeletConfig", "", [], "[Done] 281: DynamicKubeletConfig"),
        ("[in-progress, let’s keep in release] 2727", "", [], "[in-progress, let’s keep in release] 2727"),
    ],
)
def test_presenter_styles(text, written, refs, rest):
    got_written, got_refs, got_rest = split_presenters(text)
    assert got_written == written
    assert got_refs == tuple(PresenterRef(h, bool(e)) for h, e in refs)
    assert got_rest == rest


def test_item_title_is_the_cleaned_first_line():
    item = (
        parse(
            "## Dec 13, 2022\n* [everpeace] [KEP-3169: Fine-grained **SupplementalGroups** control]"
            "(https://github.com/kubernetes/enhancements/pull/3620) _soon_\n"
        )
        .meetings[0]
        .items[0]
    )
    assert item.title == "KEP-3169: Fine-grained SupplementalGroups control soon"
    assert item.presenters_text == "everpeace"


def test_kep_references_in_links_and_text():
    text = (
        "https://github.com/kubernetes/enhancements/issues/2400 and /pull/3620: "
        "[KEP](https://github.com/kubernetes/enhancements/pull/3620) "
        "https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/2043-pod-resource-concrete-assigments "
        "KEP-1287, KEP 3063, KEP #2008, kubernetes/enhancements#127, https://features.k8s.io/2892, "
        "KEP 1.24 retro, kubernetes/kubernetes#102884"
    )
    assert kep_refs(text) == [2400, 3620, 2892, 2043, 127, 1287, 3063, 2008]


def test_links_keep_github_issues_and_prs_in_canonical_form():
    text = (
        "[PR](https://github.com/kubernetes/kubernetes/pull/102884/) "
        "https://github.com/kubernetes/kubernetes/pull/102884#discussion_r665550094 "
        "https://github.com/kubernetes/test-infra/issues/28211, https://docs.google.com/document/d/x "
        "https://github.com/kubernetes/kubernetes/pulls?q=is%3Aopen https://features.k8s.io/2892"
    )
    assert item_links(text) == [
        "https://github.com/kubernetes/kubernetes/pull/102884",
        "https://github.com/kubernetes/test-infra/issues/28211",
        "https://github.com/kubernetes/enhancements/issues/2892",
    ]


def test_release_mentions_skip_other_products_versions():
    assert release_mentions("Move from 1.24 to v1.25") == ["1.24", "1.25"]
    assert release_mentions("Go 1.19 bump, containerd 1.6 and runc 1.1; cgroup v1.2; 1.25.3 patch") == []
    items = parse("## Jan 4, 2022\n* [a] 1.24 initial KEP planning\n* [b] bump Go 1.19\n").meetings[0].items
    assert [i.releases for i in items] == [("1.24",), ()]


# -- retrospectives ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "release"),
    [
        ("1.24 retro", "1.24"),
        ("Node 1.23 release retro", "1.23"),
        ("KEPs retrospective for 1.22", "1.22"),
        ("1.26 retro/1.27 planning", "1.26"),
        ("KEP 1.24 retro and KEPs 1.25 planning kick-off", "1.24"),
        ("1.27 planning", None),
        ("retro of the CI outage", None),
    ],
)
def test_retro_release_of_a_title(title, release):
    assert retro_release_of(title) == release


NESTED_RETRO = """## December 7, 2021

* [ehashman] Node 1.23 release retro
    * 1.22 retro link:
    * SIG Node 1.23 KEPs
        * 8 of 14 implemented
        * 3 exceptions requested
    * _Things that went well_
        * Soft freeze helped (+1)
        * CI looks much better
            * thanks to everyone
    * _Things that could have gone better_
        * Hard to find reviewers
        * **Suggested action:** tag node KEP PRs with api-review early
    * _Action items_
        * [@ehashman] write the reviewer guide (done)
        * ~~drop the old dashboard~~
        * mentor new approvers
* [ehashman, mrunal] 1.24 initial KEP planning
"""


def test_a_nested_retro_gives_tally_lists_and_action_items():
    meeting = parse(NESTED_RETRO, "meeting-notes-2021.md").meetings[0]
    assert [i.title for i in meeting.items] == ["Node 1.23 release retro", "1.24 initial KEP planning"]
    (retro,) = meeting.retros
    assert (retro.release, retro.held, retro.tracked, retro.merged) == ("1.23", True, 14, 8)
    entries = [(e.category, e.text, e.status) for e in retro.entries]
    assert entries == [
        ("went_well", "Soft freeze helped (+1)", ""),
        ("went_well", "CI looks much better\n- thanks to everyone", ""),
        ("to_improve", "Hard to find reviewers", ""),
        ("action_item", "tag node KEP PRs with api-review early", "not_recorded"),
        ("action_item", "[@ehashman] write the reviewer guide (done)", "done"),
        ("action_item", "drop the old dashboard", "done"),
        ("action_item", "mentor new approvers", "not_recorded"),
    ]
    assert retro.entries[4].owner == PresenterRef("ehashman", True)


FLAT_RETRO = """## April 26, 2022

* 1.24 retro
    * KEPs tracking: [sheet](https://docs.google.com/spreadsheets/d/1T21)

Done (2):

| Issue Number | Name | Stage Status | Stage | Assignee |
|---|---|---|---|---|
| 688 | PodOverhead | Graduating | Stable | SergeyKanzhelev |
| 281 | DynamicKubeletConfig | Removal | | SergeyKanzhelev |

Removed from Milestone (2):

<table>
  <tr><td><strong>Issue Number</strong></td><td><strong>Name</strong></td><td><strong>Stage</strong></td></tr>
  <tr><td><p style="text-align: right">
127</p></td><td>User Namespaces</td><td>Alpha</td></tr>
</table>

        1.22 release with 24 KEPs tracked and **13 merged**

        1.23 was tracking 14 with **8 merged**

        1.23 release retro summary:

        Good:

* Planning and tracking is useful

        Can be better:

* Lack of reviewers
* _Things that went well_

    Notes:

* Collaboration with runc is good
* _AIs_
    * Build component tests - volunteers needed
* [SergeyKanzhelev] KEP 1.24 retro and KEPs 1.25 planning kick-off
"""


def test_a_flattened_retro_gives_kep_tables_tallies_and_lists_per_release():
    notes = parse(FLAT_RETRO)
    meeting = notes.meetings[0]
    assert [i.title for i in meeting.items] == ["1.24 retro", "KEP 1.24 retro and KEPs 1.25 planning kick-off"]
    retros = {r.release: r for r in meeting.retros}
    assert sorted(retros) == ["1.22", "1.23", "1.24"]
    own = retros["1.24"]
    assert own.held and not retros["1.23"].held and not retros["1.22"].held
    assert [(k.number, k.title, k.status, k.type, k.target_stage, k.assignee) for k in own.keps] == [
        (688, "PodOverhead", "done", "graduating", "stable", "SergeyKanzhelev"),
        (281, "DynamicKubeletConfig", "done", "removal", "", "SergeyKanzhelev"),
        (127, "User Namespaces", "removed_from_milestone", "", "alpha", ""),
    ]
    assert any("announces 2 KEPs, the table lists 1" in w for w in notes.warnings)
    assert (retros["1.22"].tracked, retros["1.22"].merged) == (24, 13)
    assert (retros["1.23"].tracked, retros["1.23"].merged) == (14, 8)
    assert [(e.category, e.text) for e in retros["1.23"].entries] == [
        ("went_well", "Planning and tracking is useful"),
        ("to_improve", "Lack of reviewers"),
    ]
    assert [(e.category, e.text) for e in own.entries] == [
        ("went_well", "Collaboration with runc is good"),
        ("action_item", "Build component tests - volunteers needed"),
    ]


def test_action_status_wording():
    assert action_status("write docs") == "not_recorded"
    assert action_status("write docs (open)") == "open"
    assert action_status("write docs (done)") == "done"
    assert action_status("~~write docs~~") == "done"
    assert action_status("write docs - in progress") == "in_progress"
    assert action_status("write docs: dropped") == "dropped"


# -- bad input ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason", "line"),
    [
        ("name,date\nfoo,bar\n", "not meeting notes", None),
        ('{"json": true}', "not meeting notes", None),
        ("## Jan 4, 2022\n\n<table>\n  <tr>\n   <td>Created:", "truncated", 3),
        ("## Jan 4, 2022\n\n```\ncode\n## Jan 11, 2022\n", "truncated", 3),
    ],
)
def test_bad_files_raise_one_located_failure(text, reason, line):
    with pytest.raises(ImportFailure) as failure:
        parse(text)
    assert reason in str(failure.value)
    assert failure.value.line == line
    assert str(failure.value).startswith("meeting-notes-2022.md")
    assert "\n" not in str(failure.value)


def _check(text):
    try:
        notes = parse_meeting_notes(text, source="meeting-notes-2022.md")
    except ImportFailure as failure:
        assert str(failure)
        return
    for meeting in notes.meetings:
        assert 2000 <= meeting.date.year <= 2099
        assert len(meeting.title) <= 300
        for item in meeting.items:
            assert item.title and len(item.title) <= 500 and len(item.presenters_text) <= 300
            assert all(0 < n < 2**31 for n in item.kep_numbers)
        for value in (meeting.open_prs, meeting.prs_created, meeting.prs_merged):
            assert value is None or 0 <= value < 2**31
        for retro in meeting.retros:
            assert retro.merged is None or retro.merged <= retro.tracked


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400))
def test_random_text_gives_a_result_or_an_import_failure(text):
    _check(text)


SAMPLE_LINES = [*NESTED_RETRO.splitlines(), *FLAT_RETRO.splitlines(), *HTML_FLOW.splitlines()]
FRAGMENTS = [
    "## Dec 13th, 2022",
    "Dec 27th [Canceled]",
    "## Feb 30, 2022",
    "## 9999-99-99",
    "* [a/b] KEP-99999999999 item",
    "Total: 99999999999999",
    "<table>",
    "</table>",
    "```",
    "\t* tab",
    "Done (3):",
    "1.22 with 5 tracked and 9 merged",
    "| 1 | x |",
    "* _AIs_",
    "",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(st.sampled_from(SAMPLE_LINES), st.sampled_from(FRAGMENTS), st.text(max_size=40)),
        min_size=1,
        max_size=60,
    )
)
def test_mutated_notes_give_a_result_or_an_import_failure(lines):
    _check("\n".join(lines))


@pytest.mark.parametrize(
    ("title", "release"),
    [
        ("retro and 1.28 planning", None),
        ("retro and 1.28 kick-off", None),
        ("retro for 1.27 and 1.28 planning", "1.27"),
    ],
)
def test_the_next_cycles_planning_is_not_the_retros_release(title, release):
    assert retro_release_of(title) == release
