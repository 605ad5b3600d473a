"""Chart geometry as a reader sees it: dates spaced by time, no label on top of another (nor on a bar) on a wide
screen or a phone, "no data" where a release has none, one meeting as one whole bar, colours from the stylesheet."""

import datetime
import re
from itertools import combinations
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from core.charts import FONT, MAX_BAR_GROUP, NO_DATA, PHONE_FONT, Series, chart_layout, line_bar_chart, tick_box

CSS = Path(__file__).resolve().parents[2] / "core" / "static" / "sigtracker" / "site.css"


def release_series(tracked, done):
    rate = [d / t if t else None for t, d in zip(tracked, done, strict=True)]
    return [
        Series("Tracked", tracked, kind="bar"),
        Series("Done", done, kind="bar"),
        Series("Merge rate", rate, kind="line", percent=True),
    ]


def pr_flow_series(created, merged, open_prs):
    return [
        Series("PRs created that week", created, kind="bar"),
        Series("PRs merged that week", merged, kind="bar"),
        Series("Open PRs", open_prs, kind="line"),
    ]


def visible_boxes(layout, size):
    """Every label shown at font `size` (FONT: wide screen, PHONE_FONT: phone), as (label, box)."""
    attr = "wide" if size == FONT else "narrow"
    return [
        (label, tick_box(label, size) if label.kind == "tick" else label.box(size))
        for label in layout.labels
        if getattr(label, attr)
    ]


def assert_nothing_overlaps(layout):
    for size in (FONT, PHONE_FONT):
        shown = visible_boxes(layout, size)
        for (a, box_a), (b, box_b) in combinations(shown, 2):
            assert not box_a.overlaps(box_b), f"at {size}: {a.text!r} ({a.kind}) overlaps {b.text!r} ({b.kind})"
        for label, box in shown:
            if label.kind in ("value", "no-data"):
                assert not any(box.overlaps(bar.box) for bar in layout.bars), f"at {size}: {label.text!r} on a bar"
            assert box.x >= 0 and box.x + box.w <= layout.width, f"at {size}: {label.text!r} sticks out sideways"
            assert box.y >= 0 and box.y + box.h <= layout.height, f"at {size}: {label.text!r} sticks out"


def test_meeting_dates_are_spaced_by_time_not_by_rank():
    """Weekly meetings in January, then one in March and one in June: the gaps show the months without meetings."""
    dates = [
        datetime.date(2022, 1, 4),
        datetime.date(2022, 1, 11),
        datetime.date(2022, 3, 1),
        datetime.date(2022, 6, 7),
    ]
    layout = chart_layout(
        labels=[d.isoformat() for d in dates],
        dates=dates,
        series=pr_flow_series([20, 21, 30, 25], [18, 19, 20, 22], [210, 205, 190, 192]),
        bars="overlaid",
    )
    xs = layout.x_of
    per_day = (xs[1] - xs[0]) / 7
    for (d1, x1), (d2, x2) in zip(zip(dates, xs, strict=True), zip(dates[1:], xs[1:], strict=True), strict=False):
        assert abs((x2 - x1) - (d2 - d1).days * per_day) < 0.01
    # Month ticks sit where their first day falls on the same scale.
    ticks = {t.text: t.x for t in layout.labels if t.kind == "tick"}
    assert abs((ticks["Apr"] - ticks["Mar"]) - 31 * per_day) < 0.01
    assert abs(ticks["Mar"] - xs[2]) < 0.01  # 1 March is a meeting day
    # The line's points are at the dates, not at evenly spaced slots.
    ((series, segments),) = layout.lines
    assert [round(x, 1) for x, _, _ in segments[0]] == [round(x, 1) for x in xs]


def test_one_meeting_is_one_whole_bar():
    day = datetime.date(2022, 3, 1)
    layout = chart_layout(
        labels=[day.isoformat()], dates=[day], series=pr_flow_series([31], [25], [214]), bars="overlaid"
    )
    outer, inner = sorted(layout.bars, key=lambda bar: -bar.w)
    centre = layout.left + layout.plot_w / 2
    # One bar, centred on the meeting's date and inside the plot, not two halves at its edges.
    assert abs(outer.x + outer.w / 2 - centre) < 0.01 and abs(inner.x + inner.w / 2 - centre) < 0.01
    assert outer.x > layout.left and outer.x + outer.w < layout.left + layout.plot_w
    assert 0 < outer.w <= MAX_BAR_GROUP
    # The merged figure is drawn inside the created one.
    assert outer.x < inner.x and inner.x + inner.w < outer.x + outer.w and inner.h < outer.h
    svg = line_bar_chart(
        title="PR flow",
        labels=[day.isoformat()],
        dates=[day],
        series=pr_flow_series([31], [25], [214]),
        bars="overlaid",
    )
    assert "1 Mar 2022" in svg


def test_first_and_last_meetings_are_whole_bars():
    dates = [datetime.date(2022, 1, 4) + datetime.timedelta(weeks=w) for w in range(30)]
    layout = chart_layout(
        labels=[d.isoformat() for d in dates],
        dates=dates,
        series=pr_flow_series([20] * 30, [10] * 30, [100] * 30),
        bars="overlaid",
    )
    assert min(bar.x for bar in layout.bars) >= layout.left
    assert max(bar.x + bar.w for bar in layout.bars) <= layout.left + layout.plot_w


def test_release_without_data_says_no_data():
    labels = ["v1.22", "v1.23", "v1.24", "v1.25"]
    series = release_series([24, 14, 23, None], [13, 8, 6, None])
    layout = chart_layout(labels=labels, series=series)
    marks = [label for label in layout.labels if label.kind == "no-data"]
    assert len(marks) == 1 and marks[0].text == NO_DATA and marks[0].wide and marks[0].narrow
    assert abs(marks[0].x - layout.x_of[3]) < PHONE_FONT  # in v1.25's slot
    assert layout.no_data == ["v1.25"]
    svg = line_bar_chart(title="Merge rate", labels=labels, series=series)
    assert f">{NO_DATA}</text>" in svg
    assert "no data for v1.25" in svg.split("<desc")[1].split("</desc>")[0]
    assert_nothing_overlaps(layout)


def test_release_whose_stats_are_zero_is_not_a_blank_slot():
    """compute_stats stores 0 tracked and no merge rate for a release nobody opted in to yet."""
    layout = chart_layout(labels=["v1.24", "v1.25"], series=release_series([23, 0], [6, 0]))
    assert layout.no_data == ["v1.25"]


def test_many_releases_without_data_get_vertical_marks_that_do_not_collide():
    labels = [f"v1.{n}" for n in range(10, 40)]
    tracked = [None if n % 3 else 20 + n % 7 for n in range(30)]
    done = [None if t is None else t // 2 for t in tracked]
    layout = chart_layout(labels=labels, series=release_series(tracked, done))
    marks = [label for label in layout.labels if label.kind == "no-data"]
    assert len(marks) == 20 and all(mark.rotate == -90 for mark in marks)
    assert all(mark.wide for mark in marks)
    assert_nothing_overlaps(layout)


def test_a_year_of_weekly_meetings_thins_its_ticks_on_a_phone():
    dates = [datetime.date(2022, 1, 4) + datetime.timedelta(weeks=w) for w in range(52)]
    layout = chart_layout(
        labels=[d.isoformat() for d in dates],
        dates=dates,
        series=pr_flow_series(list(range(52)), list(range(52)), [200 - w for w in range(52)]),
        bars="overlaid",
    )
    ticks = [label for label in layout.labels if label.kind == "tick"]
    wide = [t.text for t in ticks if t.wide]
    narrow = [t.text for t in ticks if t.narrow]
    assert len(wide) >= 11 and 3 <= len(narrow) < len(wide)
    assert_nothing_overlaps(layout)
    # A long line of values keeps only the labels that fit.
    values = [label for label in layout.labels if label.kind == "value"]
    assert 0 < sum(v.narrow for v in values) < sum(v.wide for v in values) < 52


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=400),
            st.one_of(st.none(), st.integers(min_value=0, max_value=500)),
            st.one_of(st.none(), st.integers(min_value=0, max_value=500)),
            st.one_of(st.none(), st.integers(min_value=0, max_value=5000)),
        ),
        min_size=1,
        max_size=60,
        unique_by=lambda row: row[0],
    )
)
def test_no_two_labels_overlap_whatever_the_meetings(rows):
    rows.sort()
    dates = [datetime.date(2021, 1, 1) + datetime.timedelta(days=row[0]) for row in rows]
    layout = chart_layout(
        labels=[d.isoformat() for d in dates],
        dates=dates,
        series=pr_flow_series([r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows]),
        bars="overlaid",
    )
    assert_nothing_overlaps(layout)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 80)), st.integers(0, 80)), min_size=1, max_size=40))
def test_no_two_labels_overlap_whatever_the_releases(rows):
    tracked = [t for t, _ in rows]
    done = [None if t is None else min(d, t) for t, d in rows]
    layout = chart_layout(labels=[f"v1.{n}" for n in range(len(rows))], series=release_series(tracked, done))
    assert_nothing_overlaps(layout)


def test_svg_scales_and_takes_its_colours_from_the_stylesheet():
    svg = line_bar_chart(title="Merge rate", labels=["v1.22"], series=release_series([24], [13]))
    opening = svg[: svg.index(">")]
    assert 'viewBox="0 0 ' in opening and " width=" not in opening and " height=" not in opening
    assert 'class="bar series-0"' in svg and 'class="bar series-1"' in svg and 'class="point series-2"' in svg
    assert '<ul class="chart-legend">' in svg
    css = CSS.read_text()
    assert re.search(r"\.chart svg \.bar[^{]*\{ fill: var\(--series\)", css)
    dark = css[css.index("@media (prefers-color-scheme: dark)") :]
    assert "--chart-1:" in dark and "--chart-text:" in dark
