"""Every shape of release README sig-release has used since 1.3, read by the schedule parser.

The real samples (1.8: dated bullets; 1.12: tl;dr with a struck date and month columns) come from the shared
upstream folder; the shapes they lack are small hand-made files in tests/releases/data/schedules/
(laid out as release directories by the `hand_made_schedules` fixture).
"""

import datetime
import io
from pathlib import Path

import pytest
from django.core.management import call_command
from hypothesis import given
from hypothesis import strategies as hs

from releases.choices import MilestoneKind
from releases.importers.schedule import classify, parse_schedule, version_from_path
from releases.models import Release

D = datetime.date


def parsed(path: Path):
    return parse_schedule(path.read_text(), version_hint=version_from_path(path))


def days(schedule) -> dict[str, datetime.date]:
    return {m.kind: m.at.date() for m in schedule.milestones if m.kind != MilestoneKind.OTHER}


@pytest.fixture
def releases_dir(upstream_dir):
    return upstream_dir / "sig-release" / "releases"


def test_tldr_sentence_with_a_struck_release_day(releases_dir):
    schedule = parsed(releases_dir / "release-1.12" / "README.md")
    found = days(schedule)
    assert (schedule.cycle_start, schedule.planned_release_date) == (D(2018, 7, 2), D(2018, 9, 27))
    # The tl;dr's struck "Tuesday, September 25, 2018" was moved; the table's "~~25~~ moved to **27**" agrees.
    assert found[MilestoneKind.RELEASE] == D(2018, 9, 27)
    assert any("September 25, 2018 struck through" in str(w) for w in schedule.warnings)
    # "Feature Freeze begins (EOD PST)" on 31 July: 23:59 Pacific is the next day in UTC.
    assert found[MilestoneKind.ENHANCEMENTS_FREEZE] == D(2018, 8, 1)
    assert found[MilestoneKind.CODE_FREEZE] == D(2018, 9, 5)
    # "1.13 Release Cycle Begins" in its table is the next release's, and the end of code freeze is no freeze.
    assert [m.label for m in schedule.milestones if m.kind == MilestoneKind.CYCLE_START] == ["Release cycle begins"]
    assert all(m.at.date() != D(2018, 10, 1) for m in schedule.milestones)


def test_plain_date_bullets_of_1_8(releases_dir):
    schedule = parsed(releases_dir / "release-1.8" / "README.md")
    assert days(schedule) == {
        MilestoneKind.CYCLE_START: D(2017, 7, 5),  # "July 5 (Weds) coding start (7w)"; 2017 from weekday and number
        MilestoneKind.ENHANCEMENTS_FREEZE: D(2017, 8, 1),
        MilestoneKind.CODE_FREEZE: D(2017, 9, 1),
        MilestoneKind.RELEASE: D(2017, 9, 27),  # "Sept 27th (Weds):  v1.8.0 release!"
    }


@pytest.mark.parametrize(
    "version,expected",
    [
        # Week headings: "###Jun 20 - Jun 24" over "- release 1.3 Final"; no year anywhere (2016 from the number).
        ("1.3", {MilestoneKind.CYCLE_START: D(2016, 3, 21), MilestoneKind.RELEASE: D(2016, 6, 20)}),
        # Bold dates with checkboxes, their words on the sub-bullet below.
        (
            "1.5",
            {
                MilestoneKind.CYCLE_START: D(2016, 9, 19),
                MilestoneKind.ENHANCEMENTS_FREEZE: D(2016, 10, 10),
                MilestoneKind.CODE_FREEZE: D(2016, 11, 8),
                MilestoneKind.RELEASE: D(2016, 12, 12),
            },
        ),
        # "* **Wed Dec 13: v1.9.0**": weekday-first bullets, bold and links around the whole item.
        (
            "1.9",
            {
                MilestoneKind.CYCLE_START: D(2017, 10, 2),
                MilestoneKind.ENHANCEMENTS_FREEZE: D(2017, 10, 27),
                MilestoneKind.CODE_FREEZE: D(2017, 11, 22),
                MilestoneKind.RELEASE: D(2017, 12, 13),
            },
        ),
        # tl;dr where only the cycle start gives a year: every other date carries it.
        (
            "1.10",
            {
                MilestoneKind.CYCLE_START: D(2018, 1, 2),
                MilestoneKind.ENHANCEMENTS_FREEZE: D(2018, 1, 22),
                MilestoneKind.CODE_FREEZE: D(2018, 2, 26),
                MilestoneKind.DOCS_FREEZE: D(2018, 3, 9),
                MilestoneKind.RELEASE: D(2018, 3, 21),
            },
        ),
        # 1.4/1.6 summaries: "(Tues)" after the date, "Lift code freeze" is its end, a section about the next
        # release ("###1.7 Overview") is not this one's, "Release 1.6 on March 22" under a week heading.
        (
            "1.6",
            {
                MilestoneKind.CYCLE_START: D(2017, 1, 3),
                MilestoneKind.ENHANCEMENTS_FREEZE: D(2017, 1, 24),
                MilestoneKind.CODE_FREEZE: D(2017, 2, 27),
                MilestoneKind.RELEASE: D(2017, 3, 22),
            },
        ),
        # "## tl;dr" over "... as follows:" and, with no blank line between, bullets of dates without a year: the
        # bullets are the summary list's, each date with its own words (not with the words of the bullet above).
        (
            "1.17",
            {
                MilestoneKind.CYCLE_START: D(2019, 9, 23),
                MilestoneKind.ENHANCEMENTS_FREEZE: D(2019, 10, 16),  # EOD Pacific on the 15th
                MilestoneKind.CODE_FREEZE: D(2019, 11, 15),
                MilestoneKind.DOCS_FREEZE: D(2019, 11, 22),
                MilestoneKind.RELEASE: D(2019, 12, 9),
            },
        ),
        # Two struck dates in one tl;dr, the new release day without a year.
        (
            "1.11",
            {
                MilestoneKind.CYCLE_START: D(2018, 4, 2),
                MilestoneKind.ENHANCEMENTS_FREEZE: D(2018, 4, 26),
                MilestoneKind.CODE_FREEZE: D(2018, 5, 29),
                MilestoneKind.RELEASE: D(2018, 6, 27),
            },
        ),
    ],
)
def test_hand_made_shapes(hand_made_schedules, version, expected):
    schedule = parsed(hand_made_schedules / f"release-{version}" / "README.md")
    assert days(schedule) == expected
    assert (schedule.cycle_start, schedule.planned_release_date) == (
        expected[MilestoneKind.CYCLE_START],
        expected[MilestoneKind.RELEASE],
    )


def test_struck_dates_are_reported_as_moved(hand_made_schedules):
    schedule = parsed(hand_made_schedules / "release-1.11" / "README.md")
    moved = [str(w) for w in schedule.warnings if "struck through" in str(w)]
    assert moved == [
        "line 3: Tuesday, June 19, 2018 struck through; Wednesday, June 27th holds (moved)",
        "line 3: Tuesday, April 24, 2018 struck through; Thursday, April 26, 2018 holds (moved)",
    ]


@pytest.mark.parametrize(
    "label,version,kinds",
    [
        ("v1.12.0", "1.12", [MilestoneKind.RELEASE]),
        ("v1.7.0 (release!)", "1.7", [MilestoneKind.RELEASE]),
        ("release 1.3 Final", "1.3", [MilestoneKind.RELEASE]),
        ("v1.14.0-alpha.0", "1.13", []),
        ("1.13 Release Cycle Begins", "1.12", []),
        ("Start of Release Cycle", "1.12", [MilestoneKind.CYCLE_START]),
        ("End of code freeze (EOD PST): Master branch re-opens", "1.12", [MilestoneKind.OTHER]),
        ("Notify kubernetes-dev of lifting code freeze", "1.12", []),
        ("Begin code and test freeze (EOD PST)", "1.12", [MilestoneKind.CODE_FREEZE, MilestoneKind.TEST_FREEZE]),
        ("May 1 (Mon) features repo freeze", "1.7", [MilestoneKind.ENHANCEMENTS_FREEZE]),
        ("release", "1.4", [MilestoneKind.RELEASE]),
        ("1st stability evaluation to shorten Code Freeze", "1.11", []),
        ("Lift code freeze and v1.6.0-rc.1", "1.6", [MilestoneKind.OTHER]),
    ],
)
def test_old_wordings(label, version, kinds):
    assert classify(label, version=version)[0] == kinds


@pytest.mark.django_db
def test_hand_made_folder_imports_with_exit_0_and_one_line_for_a_readme_without_dates(hand_made_schedules):
    out, err = io.StringIO(), io.StringIO()
    call_command("import_schedule", str(hand_made_schedules), stdout=out, stderr=err)
    assert err.getvalue() == ""
    assert "8 files read" in out.getvalue() and "0 skipped" in out.getvalue()
    assert "release-1.2/README.md: states no dated milestone; nothing imported" in out.getvalue()
    assert list(Release.objects.values_list("version", flat=True)) == [
        "1.3",
        "1.5",
        "1.6",
        "1.9",
        "1.10",
        "1.11",
        "1.17",
    ]
    assert all(r.planned_release_date and r.cycle_start for r in Release.objects.all())


# -- properties ----------------------------------------------------------------------------------------------------

_STYLES = (
    "{d:%B} {day}",  # "July 5"
    "{d:%b} {day}{ord}",  # "Jul 5th"
    "{d:%a} {d:%b} {day}",  # "Wed Jul 5"
    "{d:%A}, {d:%B} {day}{ord}, {d:%Y}",  # "Wednesday, July 5th, 2017"
    "{day}{ord} {d:%B} {d:%Y}",  # "5th July 2017"
    "{d:%B} {day} ({d:%a})",  # "July 5 (Wed)"
)


def _ordinal(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


@given(
    day=hs.dates(min_value=D(2015, 1, 1), max_value=D(2030, 12, 31)),
    style=hs.sampled_from(_STYLES),
    label=hs.sampled_from(["Code Freeze", "coding start (7w)", "v1.8.0 release!"]),
)
def test_a_bullet_starting_with_any_date_style_reads_that_date(day, style, label):
    from releases.importers import schedule_time as st

    written = style.format(d=day, day=day.day, ord=_ordinal(day.day))
    found = st.leading_date(f"{written}: {label}")
    assert found == (written, label)
    partial = st.parse_date(written)
    assert (partial.month, partial.day) == (day.month, day.day)
    assert partial.year in (None, day.year)


@given(
    old=hs.dates(min_value=D(2015, 1, 1), max_value=D(2030, 12, 31)),
    new=hs.dates(min_value=D(2015, 1, 1), max_value=D(2030, 12, 31)),
)
def test_a_struck_date_never_wins_over_the_date_after_it(old, new):
    start = min(old, new) - datetime.timedelta(days=90)
    text = (
        f"# Kubernetes 1.12\n\n**tl;dr** The 1.12 release cycle begins on **{start:%A, %B %d, %Y}**, "
        f"and ends on release day, ~~{old:%A, %B %d, %Y}~~ **{max(old, new):%A, %B %d, %Y}**.\n"
    )
    schedule = parse_schedule(text, version_hint="1.12")
    assert schedule.planned_release_date == max(old, new)
