"""The schedule parser and its time rules, on wording taken from kubernetes/sig-release release READMEs."""

import datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

from core.importing import ImportFailure
from releases.choices import MilestoneKind
from releases.importers import schedule_time as st
from releases.importers.schedule import classify, milestone_key, parse_schedule

UTC = datetime.UTC


def utc(*args) -> datetime.datetime:
    return datetime.datetime(*args, tzinfo=UTC)


def when(text: str, *, anchor=datetime.date(2022, 1, 10), label: str = "") -> st.Instant:
    """Resolve a "When" text the way the parser does, with a row label for time hints."""
    parsed = st.parse_when(text)
    assert parsed is not None, text
    hint_time, hint_zone, hint_eod = st.parse_hint(label)
    return st.resolve(parsed, anchor=anchor, hint_time=hint_time, hint_zone=hint_zone, hint_eod=hint_eod)


# -- time rules ----------------------------------------------------------------------------------------------------


def test_utc_and_pst_pair_trusts_utc_and_agrees():
    instant = when("02:00 UTC Friday 4th February 2022 / 18:00 PST Thursday 3rd February 2022")
    assert instant.at == utc(2022, 2, 4, 2, 0)
    assert (instant.all_day, instant.quoted_timezone, instant.warnings) == (False, "UTC", ())


def test_markdown_bold_halves_of_the_summary_list():
    instant = when("**02:00 UTC Friday 4th February 2022** / **18:00 PST Thursday 3rd February 2022**")
    assert instant.at == utc(2022, 2, 4, 2, 0)


def test_three_halves_utc_bst_pdt():
    text = (
        "01:00 UTC Wednesday 30th March 2022 / 02:00 BST Wednesday 30th March 2022 / 18:00 PDT Tuesday 29th March 2022"
    )
    instant = when(text)
    assert instant.at == utc(2022, 3, 30, 1, 0)
    assert instant.warnings == ()


def test_linked_pair_from_everytimezone():
    text = "[01:00 UTC Friday 7th October 2022 / 18:00 PDT Thursday 6th October 2022](https://everytimezone.com/s/3a6f71b0)"
    assert when(text, anchor=datetime.date(2022, 9, 5)).at == utc(2022, 10, 7, 1, 0)


def test_halves_that_disagree_trust_utc_and_warn():
    # release-1.26: "17:00 PDT" in November, when California is on PST, names 00:00 UTC, not 01:00.
    instant = when("01:00 UTC Wednesday 9th November 2022 / 17:00 PDT Tuesday 8th November 2022")
    assert instant.at == utc(2022, 11, 9, 1, 0)
    assert any("PDT quoted for 2022-11-08, when Pacific time is PST" in w for w in instant.warnings)
    assert any("disagree; trusting the UTC half" in w for w in instant.warnings)


def test_explicit_pst_is_a_fixed_offset_even_in_summer():
    instant = when("Thu 5 Mar 2020", label="(EOD PST)", anchor=datetime.date(2020, 1, 6))
    assert instant.at == utc(2020, 3, 6, 7, 59)  # PST was still right on 5 March 2020
    summer = when("Tue 17 Mar 2020", label="(EOD PST)", anchor=datetime.date(2020, 1, 6))
    assert summer.at == utc(2020, 3, 18, 7, 59)  # literally UTC-8 ...
    assert any("PST quoted for 2020-03-17, when Pacific time is PDT" in w for w in summer.warnings)  # ... and said


def test_pt_follows_the_los_angeles_calendar():
    assert when("18:00 PT Thursday 3rd February 2022").at == utc(2022, 2, 4, 2, 0)
    assert when("18:00 PT Tuesday 29th March 2022").at == utc(2022, 3, 30, 1, 0)
    assert when("18:00 PT Tuesday 29th March 2022").quoted_timezone == "PT"


def test_eod_pst_label_without_year_takes_the_cycle_year():
    # release-1.18: "| **Begin [Enhancements Freeze]** (EOD PST) | ... | Tue 28 |" under the "Jan" column.
    instant = when("Tue 28 Jan", label="**Begin [Enhancements Freeze]** (EOD PST)", anchor=datetime.date(2020, 1, 6))
    assert instant.at == utc(2020, 1, 29, 7, 59)
    assert (instant.all_day, instant.quoted_timezone) == (False, "PT")


def test_label_time_in_pdt_and_am_pm():
    # release-1.22: "Release retrospective 10:00am PDT | ... | Thu August 19".
    instant = when("Thu August 19", label="Release retrospective 10:00am PDT", anchor=datetime.date(2021, 4, 26))
    assert instant.at == utc(2021, 8, 19, 17, 0)
    late = when("Thur May 13", label="**Begin [Enhancements Freeze]** (23:59 PDT)", anchor=datetime.date(2021, 4, 26))
    assert late.at == utc(2021, 5, 14, 6, 59)


def test_aoe_date_means_the_end_of_that_day():
    instant = when("Wednesday 18th March 2026 (AoE)", anchor=datetime.date(2026, 1, 12))
    assert instant.at == utc(2026, 3, 19, 12, 0)
    assert (instant.all_day, instant.quoted_timezone) == (False, "AoE")


def test_aoe_pair_with_its_utc_equivalent_agrees():
    instant = when("Thursday 9th October 2025 (AoE) / Friday 10th October 2025, 12:00 UTC")
    assert instant.at == utc(2025, 10, 10, 12, 0)
    assert instant.warnings == ()
    assert instant.quoted_timezone == "AoE"


def test_utc_half_without_a_date_borrows_it_from_the_pacific_half():
    # release-1.26: "[17:00 UTC / 09:00 PDT Tuesday 13th December](...)" — no year either.
    instant = when("[17:00 UTC / 09:00 PDT Tuesday 13th December](https://everytimezone.com/s/5ec45da4)",
                   anchor=datetime.date(2022, 9, 5))  # fmt: skip
    assert instant.at == utc(2022, 12, 13, 17, 0)


def test_date_only_is_all_day_at_midnight_utc():
    instant = when("Tuesday 3rd May 2022")
    assert instant.at == utc(2022, 5, 3, 0, 0)
    assert (instant.all_day, instant.quoted_timezone) == (True, "")


def test_weekday_that_disagrees_with_the_date_warns_and_trusts_the_date():
    instant = when("Monday 4th February 2022")
    assert instant.at == utc(2022, 2, 4)
    assert any("is a Friday, not a Monday; trusting the date" in w for w in instant.warnings)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Tuesday 1st November 2022", datetime.date(2022, 11, 1)),
        ("Tuesday 22nd March 2022", datetime.date(2022, 3, 22)),
        ("Tuesday 23rd July 2024", datetime.date(2024, 7, 23)),
        ("Friday 21th October 2022", datetime.date(2022, 10, 21)),  # release-1.26 typo
        ("Tuesday 28st March 2023", datetime.date(2023, 3, 28)),  # the "28st" typo
        ("Tueday 11th April 2023", datetime.date(2023, 4, 11)),  # release-1.27 typo
        ("Thursday 16th March  2023", datetime.date(2023, 3, 16)),
        ("Mon August 23, 2021", datetime.date(2021, 8, 23)),
        ("Tue, April  14", datetime.date(2022, 4, 14)),
        ("Tuesday, Oct 6th", datetime.date(2022, 10, 6)),
        ("Monday 24th – Friday 28th October 2022", datetime.date(2022, 10, 24)),  # en dash range
        ("Monday 24th — Friday 28th October 2022", datetime.date(2022, 10, 24)),  # em dash range
        ("May 16-20 2022", datetime.date(2022, 5, 16)),
        ("Sept 6", datetime.date(2022, 9, 6)),
    ],
)
def test_date_spellings(text, expected):
    instant = when(text, anchor=datetime.date(2022, 1, 10))
    assert instant.at.date() == expected


def test_missing_year_is_the_date_nearest_after_the_cycle_start():
    anchor = datetime.date(2021, 8, 23)  # release-1.23 started in August; its December is 2021, its January 2022
    assert st.year_near(st.PartialDate(month=12, day=7), anchor) == datetime.date(2021, 12, 7)
    assert st.year_near(st.PartialDate(month=1, day=12), anchor) == datetime.date(2022, 1, 12)
    # A month of slack before the start, for "week 0" events such as KubeCon before the cycle.
    assert st.year_near(st.PartialDate(month=8, day=1), anchor) == datetime.date(2021, 8, 1)


def test_anchor_without_any_year_uses_weekday_and_release_number():
    cycle = st.parse_date("Monday, April 26th")
    anchor, warning = st.anchor_date(cycle, [], major=1, minor=22)
    assert anchor == datetime.date(2021, 4, 26)
    assert "took 2021" in warning
    # 1.18: Monday 6 January is 2020; the weekday picks it even when the estimate is a year off.
    anchor, _ = st.anchor_date(st.parse_date("Monday, January 06"), [], major=1, minor=19)
    assert anchor == datetime.date(2020, 1, 6)


def test_anchor_from_a_later_dated_entry():
    anchor, warning = st.anchor_date(
        st.parse_date("Monday 5th September"), [datetime.date(2022, 12, 9)], major=1, minor=26
    )
    assert (anchor, warning) == (datetime.date(2022, 9, 5), None)


@pytest.mark.parametrize(
    "minor,year", [(18, 2020), (20, 2020), (21, 2021), (24, 2022), (27, 2023), (36, 2026), (14, 2019), (10, 2018)]
)
def test_estimate_cycle_year(minor, year):
    assert st.estimate_cycle_year(1, minor) == year


@pytest.mark.parametrize(
    "text", ["Friday 30th February 2022", "31st April 2023", "Tuesday 32nd May 2022", "25:00 UTC 4th May 2022"]
)
def test_impossible_dates_and_times_fail(text):
    with pytest.raises(ImportFailure):
        st.resolve(st.parse_when(text), anchor=datetime.date(2022, 1, 10))


@pytest.mark.parametrize("text", ["TBC", "TBD", "", "week 4", "Schedule finalized"])
def test_no_date_is_none(text):
    assert st.parse_when(text) is None


# -- kinds and identity --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "label,kinds",
    [
        ("**Begin [Enhancements Freeze]** (23:59 PDT)", [MilestoneKind.ENHANCEMENTS_FREEZE]),
        ('"Feature Freeze" begins (EOD PST)', [MilestoneKind.ENHANCEMENTS_FREEZE]),
        ("**Begin Feature blog freeze**", [MilestoneKind.FEATURE_BLOG_FREEZE]),
        ("Production Readiness Soft Freeze", [MilestoneKind.PRR_FREEZE]),
        ("**Begin [Code Freeze] and [Test Freeze]**", [MilestoneKind.CODE_FREEZE, MilestoneKind.TEST_FREEZE]),
        ("Brace Yourself, Code Freeze is Coming", []),
        ("Call for PRR and Enhancement Freeze [Exceptions]", [MilestoneKind.OTHER]),
        ("Docs deadline — Open placeholder PRs", [MilestoneKind.DOCS_FREEZE]),
        ("Week 15 - Kubernetes v1.22.0 released", [MilestoneKind.RELEASE]),
        ("1.24.0-alpha.2 released", []),
        ("Start of Release Cycle", [MilestoneKind.CYCLE_START]),
        ("Release retrospective part 2 (**Time TBC**)", [MilestoneKind.RETROSPECTIVE]),
        ("Start Enhancements Tracking", []),
    ],
)
def test_classify(label, kinds):
    assert classify(label)[0] == kinds


def test_exception_deadline_is_not_the_freeze_itself():
    assert classify("Enhancements Freeze exception requests due") == ([], [MilestoneKind.ENHANCEMENTS_FREEZE])


def test_milestone_key_is_stable_across_wordings():
    assert milestone_key("enhancements_freeze", "Begin Enhancements Freeze") == milestone_key(
        "enhancements_freeze", "Enhancements Freeze"
    )
    assert milestone_key("docs_freeze", "Docs must be completed and reviewed") == milestone_key(
        "docs_freeze", "Docs complete - All PRs reviewed and ready to merge"
    )
    assert milestone_key("docs_freeze", "Docs deadline - PRs ready for review") == ("docs_freeze", "review")
    assert milestone_key("retrospective", "Release Retrospective Part 1 - Midcycle") == ("retrospective", "part 1")


# -- whole schedules -----------------------------------------------------------------------------------------------

# Excerpts in the shape of releases/release-1.24/README.md (summary list + timeline table).
SCHEDULE_124 = """\
---
title: "Kubernetes 1.24 Release Information"
---

# Kubernetes 1.24 Stargazer

* [This document](https://git.k8s.io/sig-release/releases/release-1.24/README.md)

## Summary

- **Monday 10th January 2022**: Week 1 — Release cycle begins
- **Thursday 27th January 2022**: Week 3 — [Production Readiness Soft Freeze](https://groups.google.com/g/x)
- **02:00 UTC Friday 4th February 2022** / **18:00 PST Thursday 3rd February 2022** : Week 4 — [Enhancements Freeze](../release_phases.md#enhancements-freeze)
- **Wednesday 23rd March 2022**: Week 11 — [Release Retrospective][Retrospective Document] part 1
- **01:00 UTC Wednesday 30th March 2022** / **02:00 BST Wednesday 30th March 2022** / **18:00 PDT Tuesday 29th March 2022**: Week 12 — [Code Freeze](../release_phases.md#code-freeze)
- **Tuesday 3rd May 2022**: Week 17 — Kubernetes v1.24.0 released

## Timeline

| **What** | **Who** | **When** | **Week** | **CI Signal** |
|---|---|-------|---|---|
| Start of Release Cycle | Lead | Monday 10th January 2022 | week 1 | [master-blocking] |
| **Begin [Enhancements Freeze]** | Enhancements Lead | 02:00 UTC Friday 4th February 2022 / 18:00 PST Thursday 3rd February 2022 | week 4 | |
| Release retrospective part 1 | Community | 17:00 UTC Wednesday 23rd March 2022 / 10:00 PDT Wednesday 23rd March 2022 | week 11 | |
| Brace Yourself, Code Freeze is Coming | Comms / Bug Triage | Monday 21st March 2022 | week 11 | |
| **[Test Freeze]** | Branch Manager | 01:00 UTC Wednesday 6th April 2022 / 02:00 BST Wednesday 6th April 2022 / 18:00 PDT Tuesday 5th April 2022 | week 13 | |
| **v1.24.0 released** | Branch Manager | Tuesday 3rd May 2022 | week 17 | |
"""  # noqa: E501


def test_schedule_release_fields():
    schedule = parse_schedule(SCHEDULE_124)
    assert (schedule.version, schedule.name) == ("1.24", "Stargazer")
    assert (schedule.cycle_start, schedule.planned_release_date) == (
        datetime.date(2022, 1, 10),
        datetime.date(2022, 5, 3),
    )
    assert schedule.source_url == "https://git.k8s.io/sig-release/releases/release-1.24/README.md"


def test_schedule_merges_list_and_table_preferring_the_timed_entry():
    schedule = parse_schedule(SCHEDULE_124)
    by_kind = {}
    for milestone in schedule.milestones:
        by_kind.setdefault(milestone.kind, []).append(milestone)
    assert len(by_kind[MilestoneKind.ENHANCEMENTS_FREEZE]) == 1
    assert by_kind[MilestoneKind.ENHANCEMENTS_FREEZE][0].at == utc(2022, 2, 4, 2, 0)
    retro = by_kind[MilestoneKind.RETROSPECTIVE]
    assert [(m.at, m.all_day, m.origin) for m in retro] == [(utc(2022, 3, 23, 17, 0), False, "table")]
    assert by_kind[MilestoneKind.TEST_FREEZE][0].at == utc(2022, 4, 6, 1, 0)
    assert by_kind[MilestoneKind.CODE_FREEZE][0].at == utc(2022, 3, 30, 1, 0)
    release = by_kind[MilestoneKind.RELEASE][0]
    assert (release.at, release.all_day) == (utc(2022, 5, 3), True)
    assert "Brace Yourself" not in " ".join(m.label for m in schedule.milestones)
    assert schedule.warnings == []


def test_version_from_the_folder_wins_over_the_title_and_warns():
    schedule = parse_schedule(SCHEDULE_124, version_hint="1.25")
    assert schedule.version == "1.25"
    assert any("title says 1.24" in str(w) for w in schedule.warnings)


@pytest.mark.parametrize(
    "title,name",
    [
        ("# Kubernetes 1.23: The Next Frontier", "The Next Frontier"),
        ("# Kubernetes v1.33: Octarine (The Color of Magic)", "Octarine (The Color of Magic)"),
        ("# Timbernetes v1.35 - World Tree Release", "Timbernetes: World Tree Release"),
        ("# Kubernetes 1.22", ""),
        # release-1.29 decorates its title with emoji; the name keeps only the words.
        ("# Kubernetes 1.29: Mandala (The Universe) \u2728\U0001f30c", "Mandala (The Universe)"),
        ("# Kubernetes 1.99: \U0001f44b\U0001f3fd Wave \u2764\ufe0f", "Wave"),
        # release-1.8's title says what the document is, not what the release is called.
        ("# Proposed timeline for 1.8", ""),
        ("# 1.10 Release Schedule", ""),
    ],
)
def test_release_name_from_the_title(title, name):
    text = SCHEDULE_124.replace("# Kubernetes 1.24 Stargazer", title)
    assert parse_schedule(text, version_hint="1.24").name == name


MONTH_COLUMNS_118 = """\
# Kubernetes 1.18

- **Monday, January 06**: Week 1 - Release cycle begins
- **Tuesday, March 24**: Week 12 - Kubernetes v1.18.0 released

| **What** | **Who** | **Jan** | **Feb** | **Mar** | **Apr** | **WEEK** | **CI SIGNAL** |
| --- | --- | --- | --- | --- | --- | --- | --- |
| Start of Release Cycle | Lead | Mon 6 | | | | week 1 | [master-blocking] |
| **Begin [Enhancements Freeze]** (EOD PST) | Enhancements Lead | Tue 28 | | | | week 4 | |
| **Begin [Code Freeze]** (EOD PST) | Branch Manager | | | Thu 5 | | week 9 | |
| **v1.18.0 released** | Branch Manager | | | Tue 24 | | week 12 | |
| Release retrospective | Community | | | | Thu 16 | | | | |
"""


def test_month_column_table_without_any_year():
    schedule = parse_schedule(MONTH_COLUMNS_118)
    at = {m.kind: m.at for m in schedule.milestones}
    assert at[MilestoneKind.CYCLE_START] == utc(2020, 1, 6)
    assert at[MilestoneKind.ENHANCEMENTS_FREEZE] == utc(2020, 1, 29, 7, 59)
    assert at[MilestoneKind.CODE_FREEZE] == utc(2020, 3, 6, 7, 59)
    assert at[MilestoneKind.RETROSPECTIVE] == utc(2020, 4, 16)
    assert any("took 2020" in str(w) for w in schedule.warnings)


AOE_136 = """\
# Kubernetes v1.36

- **Monday 12th January 2026**: Week 1 — Release cycle begins
- **Wednesday 11th February 2026 (AoE) / Thursday 12th February 2026, 12:00 UTC**: Week 5 — [Enhancements Freeze][Enhancements Freeze]
- **Thursday 19th March 2026 (AoE) / Friday 20th March 2026, 12:00 UTC**: Week 10 — [Code Freeze][Code Freeze] and [Test Freeze][Test Freeze]
- **Wednesday 22nd April 2026**: Week 15 — Kubernetes v1.36.0 released

| **What** | **Who** | **When** | **Week** | **Release Signal** |
|---|---|---|---|---|
| **Begin [Code Freeze] and [Test Freeze]** | Branch Manager | Wednesday 18th March 2026 (AoE) / Thursday 19th March 2026, 12:00 UTC | week 10 | |
| Enhancements Freeze exception requests due | Lead | Friday 13th February 2026 (AoE) | week 5 | |
"""  # noqa: E501


def test_aoe_schedule_with_list_and_table_disagreeing():
    schedule = parse_schedule(AOE_136, version_hint="1.36")
    by_kind = {m.kind: m for m in schedule.milestones}
    freeze = by_kind[MilestoneKind.ENHANCEMENTS_FREEZE]
    assert (freeze.at, freeze.quoted_timezone) == (utc(2026, 2, 12, 12, 0), "AoE")
    assert freeze.exception_deadline == utc(2026, 2, 14, 12, 0)
    # The summary list is preferred when both give a time; the disagreement is reported with both lines.
    assert by_kind[MilestoneKind.CODE_FREEZE].at == utc(2026, 3, 20, 12, 0)
    assert by_kind[MilestoneKind.TEST_FREEZE].at == utc(2026, 3, 20, 12, 0)
    assert by_kind[MilestoneKind.CODE_FREEZE].label == "Code freeze"
    assert any(
        "line 5 says 2026-03-20 12:00 UTC, line 10 says 2026-03-19 12:00 UTC" in str(w) for w in schedule.warnings
    )


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "empty file"),
        ("just some notes\nwithout a title\n", "no release version"),
        (
            "# Kubernetes 1.30\n- **Monday 15th January 2024**: Week 1 - Release cycle begins\n"
            "- **Tuesday 2nd January 2024**: Week 15 - Kubernetes v1.30.0 released\n",
            "before the cycle start",
        ),
        ("# Kubernetes 1.30\n- **Friday 30th February 2024**: Week 5 - [Enhancements Freeze]\n", "impossible date"),
    ],
)
def test_bad_schedules_fail_with_one_line(text, message):
    with pytest.raises(ImportFailure) as caught:
        parse_schedule(text)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_bad_date_names_its_line():
    text = "# Kubernetes 1.30\n\n- **Friday 30th February 2024**: Week 5 - [Enhancements Freeze]\n"
    with pytest.raises(ImportFailure) as caught:
        parse_schedule(text)
    assert caught.value.line == 3


# -- property-based: only a Schedule or an ImportFailure, never another exception ----------------------------------

_VOCABULARY = [
    "|", "**", "/", " / ", ":", "-", "—", "\n", "# Kubernetes 1.24 ", "(AoE)", "(EOD PST)", "UTC", "PDT", "PST",
    "02:00", "25:99", "10:00am", "Friday", "Tueday", "4th", "31st", "30th", "February", "Feb", "2022", "0",
    "Code Freeze", "[Enhancements Freeze](x)", "v1.24.0 released", "Release cycle begins", "|---|", "TBC",
    "exception deadline", "| **What** | **When** |", "- **", "week 3", "\u00a0", "part 2", "Docs Freeze",
]  # fmt: skip


def _parse_or_fail(text: str) -> None:
    try:
        result = parse_schedule(text)
    except ImportFailure as failure:
        assert str(failure)
        return
    # A README without any dated milestone is a warning, not a schedule of nothing.
    assert result.milestones or [str(w) for w in result.warnings][-1] == "states no dated milestone; nothing imported"
    for milestone in result.milestones:
        assert milestone.at.tzinfo is not None
        assert milestone.exception_deadline is None or milestone.exception_deadline > milestone.at


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.text(max_size=400))
def test_random_text_gives_a_schedule_or_import_failure(text):
    _parse_or_fail(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.lists(hs.sampled_from(_VOCABULARY) | hs.text(max_size=5), max_size=60))
def test_schedule_like_tokens_give_a_schedule_or_import_failure(tokens):
    _parse_or_fail("".join(tokens))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.data())
def test_mutated_real_schedules_give_a_schedule_or_import_failure(data):
    text = data.draw(hs.sampled_from([SCHEDULE_124, MONTH_COLUMNS_118, AOE_136]))
    for _ in range(data.draw(hs.integers(1, 6))):
        position = data.draw(hs.integers(0, len(text)))
        action = data.draw(hs.sampled_from(["delete", "insert", "duplicate"]))
        if action == "delete":
            text = text[:position] + text[position + data.draw(hs.integers(1, 40)) :]
        elif action == "insert":
            text = text[:position] + data.draw(hs.sampled_from(_VOCABULARY) | hs.text(max_size=8)) + text[position:]
        else:
            text = text[:position] + text[position : position + 80] + text[position:]
    _parse_or_fail(text)


def test_summary_bullet_with_a_dash_instead_of_a_colon_and_a_date_column_table():
    text = (
        "# Kubernetes 1.32\n\n"
        "- **Monday 9th September 2024** — Week 1 — Release cycle begins\n"
        "- **02:00 UTC Friday 11th October 2024 / 19:00 PDT Thursday 10th October 2024** - [Enhancements Freeze]\n\n"
        "| **Date** | **Event** |\n|---|---|\n"
        "| Wednesday 11th December 2024 | **v1.32.0 released** |\n"
    )
    schedule = parse_schedule(text)
    at = {m.kind: m.at for m in schedule.milestones}
    assert at == {
        MilestoneKind.CYCLE_START: utc(2024, 9, 9),
        MilestoneKind.ENHANCEMENTS_FREEZE: utc(2024, 10, 11, 2, 0),
        MilestoneKind.RELEASE: utc(2024, 12, 11),
    }


def test_anywhere_on_earth_in_words_with_a_utc_note():
    # release-1.35 (an earlier revision): the AoE time is spelled out and the UTC time follows in parentheses.
    instant = when("Friday 17th October 2025 at 12:00am anywhere on Earth time (12:00 UTC)")
    assert instant.at == utc(2025, 10, 17, 12, 0)
    assert (instant.quoted_timezone, instant.warnings) == ("AoE", ())


def test_summary_bullets_wrapped_onto_a_second_line():
    # release-1.34 wraps long bullets; the description continues on an indented line.
    text = (
        "# Kubernetes v1.34\n\n"
        "- **Monday 19th May 2025**: Week 1 — Release cycle begins\n"
        "- **Thursday 12th June 2025**:\n"
        "  Week 4 — [Production Readiness Freeze][Production Readiness Freeze]\n"
        "- **[21:00 UTC Friday 20th June 2025 / 14:00 PST Friday 20th June 2025](https://everytimezone.com/s/a17d0bdd)**:\n"
        "  Week 5 — [Enhancements Freeze][Enhancements Freeze]\n"
        "- **Wednesday 27th August 2025**: Week 15 — Kubernetes v1.34.0 released\n"
    )
    schedule = parse_schedule(text)
    by_kind = {m.kind: m for m in schedule.milestones}
    assert by_kind[MilestoneKind.PRR_FREEZE].at == utc(2025, 6, 12)
    assert by_kind[MilestoneKind.ENHANCEMENTS_FREEZE].at == utc(2025, 6, 20, 21, 0)
    assert by_kind[MilestoneKind.ENHANCEMENTS_FREEZE].label == "Enhancements Freeze"
    warnings = " ".join(str(w) for w in schedule.warnings)
    assert "line 6:" in warnings and "PST quoted for 2025-06-20, when Pacific time is PDT" in warnings


@settings(max_examples=200, deadline=None)
@given(hs.lists(hs.sampled_from(_VOCABULARY) | hs.text(max_size=6), max_size=20), hs.text(max_size=30))
def test_time_rules_give_an_instant_or_import_failure(tokens, label):
    try:
        parsed = st.parse_when(" ".join(tokens))
        if parsed is None:
            return
        hint_time, hint_zone, hint_eod = st.parse_hint(label)
        instant = st.resolve(
            parsed, anchor=datetime.date(2022, 1, 10), hint_time=hint_time, hint_zone=hint_zone, hint_eod=hint_eod
        )
    except ImportFailure as failure:
        assert str(failure)
        return
    assert instant.at.utcoffset() == datetime.timedelta(0)
    assert instant.all_day == (instant.at.time() == datetime.time(0) and instant.quoted_timezone == "")


def test_a_readme_without_dates_is_one_warning_not_a_failure():
    schedule = parse_schedule("# Kubernetes 1.30\n\nNo dates here at all.\n", version_hint="1.30")
    assert (schedule.version, schedule.milestones) == ("1.30", [])
    assert [str(w) for w in schedule.warnings] == ["states no dated milestone; nothing imported"]
