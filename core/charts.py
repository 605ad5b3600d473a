"""Small server-side SVG charts: readable at a glance, accessible, no JavaScript and no network.

`line_bar_chart` returns a safe SVG string (with a <title> and <desc> for screen readers) followed by an HTML
legend; values are numbers and labels are escaped. The geometry is computed first, as plain data
(`chart_layout`), so that tests can check it without parsing SVG:

- the SVG has a viewBox and no fixed size: the stylesheet gives it `width: 100%`, so it is never cut off;
- on a phone (the stylesheet's `max-width: 640px` query) its text is drawn at `PHONE_FONT` user units instead of
  `FONT`, so it stays readable once the chart is scaled down; every label carries a `wide-only` or `narrow-only`
  class when it fits at one of the two sizes only, so no two labels overlap (nor a value label a bar) at either;
- colours are classes (`series-0`…, `grid`, `axis`, `no-data`) that the stylesheet maps to CSS variables, with a
  dark palette under `prefers-color-scheme: dark`; the fill/stroke attributes are only a fallback;
- with `dates`, x positions are proportional to time (a month is a month, however many meetings it had) and the
  ticks are month starts; without, labels are evenly spaced categories and a category where no series draws
  anything (no value, or only bars of height 0) says "no data" instead of being a blank slot;
- `bars="overlaid"` draws all bar series of one x as one bar (the later, narrower ones inside the first).
"""

import datetime
import math
from dataclasses import dataclass, field

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

#: Fallback colours, in the order of the stylesheet's --chart-1… variables.
PALETTE = ["#0b5cad", "#cf6a00", "#1a7f37", "#8250df", "#cf222e"]
#: Font sizes in user units: on a wide screen, and on a phone where the chart is scaled down about 2.4 times.
FONT = 12
PHONE_FONT = 24
#: Average advance of a character of system-ui digits and lower case, as a share of the font size (generous: in
#: bold DejaVu Sans, Debian's default, a digit is 0.7 em), and the font's ascent and descent, so that estimated
#: boxes contain the ones a browser draws.
CHAR_WIDTH = 0.7
ASCENT, DESCENT = 0.93, 0.24
#: Space between the x axis and the top of its tick labels' line.
TICK_GAP = 10
NO_DATA = "no data"
#: The widest a single bar (or group of bars) gets, so one meeting is not drawn as a slab across the chart.
MAX_BAR_GROUP = 56


def text_width(text: str, size: float) -> float:
    """An estimate, a little generous, of the advance of `text` at font `size` in system-ui."""
    wide = sum(1 for c in text if c in "%mwMW@")
    upper = sum(1 for c in text if c.isupper() and c not in "MW")
    return size * (CHAR_WIDTH * (len(text) - wide - upper) + 0.95 * wide + 0.75 * upper)


@dataclass
class Series:
    name: str
    values: list[float | None]
    kind: str = "line"  # "line" or "bar"
    percent: bool = False


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in user units."""

    x: float
    y: float
    w: float
    h: float

    def overlaps(self, other: "Box", gap: float = 0) -> bool:
        return (
            self.x < other.x + other.w + gap
            and other.x < self.x + self.w + gap
            and self.y < other.y + other.h + gap
            and other.y < self.y + self.h + gap
        )


@dataclass
class Label:
    """A text of the chart. `x, y` is the anchor point (baseline); `rotate` is -90 for vertical text."""

    text: str
    x: float
    y: float
    kind: str  # "tick", "value", "no-data", "axis"
    anchor: str = "middle"
    rotate: int = 0
    css: str = ""
    wide: bool = True  # shown on a wide screen
    narrow: bool = True  # shown on a phone

    def box(self, size: float) -> Box:
        """The box the text covers at font `size`."""
        length = text_width(self.text, size)
        if self.rotate:
            # Rotated -90° about its anchor: it runs upwards from (x, y); the glyphs sit left of x.
            along = {"start": (0, length), "middle": (length / 2, length / 2), "end": (length, 0)}[self.anchor]
            return Box(self.x - size * ASCENT, self.y - along[1], size * (ASCENT + DESCENT), length)
        start = {"start": 0, "middle": length / 2, "end": length}[self.anchor]
        return Box(self.x - start, self.y - size * ASCENT, length, size * (ASCENT + DESCENT))


@dataclass
class Bar:
    series: int
    x: float
    y: float
    w: float
    h: float
    tooltip: str

    @property
    def box(self) -> Box:
        return Box(self.x, self.y, self.w, self.h)


@dataclass
class Layout:
    width: int
    height: int
    left: float
    top: float
    plot_w: float
    plot_h: float
    x_of: list[float]  # the centre of each label's slot
    bars: list[Bar] = field(default_factory=list)
    lines: list[tuple[int, list[list[tuple[float, float, str]]]]] = field(default_factory=list)  # (series, segments)
    labels: list[Label] = field(default_factory=list)
    grid: list[float] = field(default_factory=list)
    no_data: list[str] = field(default_factory=list)


def _fmt(value: float, percent: bool) -> str:
    return f"{value * 100:.0f}%" if percent else f"{value:g}"


def _nice_step(raw: float) -> float:
    """A round step of at least `raw` (1, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten; whole numbers: counts)."""
    if raw <= 1:
        return 1
    power = 10 ** math.floor(math.log10(raw))
    steps = (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if power > 1 else (1, 2, 3, 4, 5, 6, 8, 10)
    return next(m * power for m in steps if m * power >= raw)


def _nothing_drawn(s: Series, i: int) -> bool:
    """No mark at slot i: no value, or a bar of height zero (a release with no stats computed has 0 tracked)."""
    value = s.values[i] if i < len(s.values) else None
    return value is None or (s.kind == "bar" and value == 0)


def _place(
    labels: list[Label], *, against: list[Box] = (), gap: float = 4, within: tuple[float, float] | None = None
) -> None:
    """Greedily keep each label, at each font size, unless it overlaps a label kept before it or a box, or leaves
    the horizontal band `within`."""
    for attr, size in (("wide", FONT), ("narrow", PHONE_FONT)):
        kept: list[Box] = []
        for label in labels:
            if not getattr(label, attr):
                continue
            box = label.box(size)
            outside = within is not None and (box.x < within[0] or box.x + box.w > within[1])
            if outside or any(box.overlaps(other, gap) for other in kept) or any(box.overlaps(b) for b in against):
                setattr(label, attr, False)
            else:
                kept.append(box)


def _month_ticks(start: datetime.date, end: datetime.date) -> list[datetime.date]:
    month = datetime.date(start.year, start.month, 1)
    ticks = []
    while month <= end:
        if month >= start:
            ticks.append(month)
        month = datetime.date(month.year + month.month // 12, month.month % 12 + 1, 1)
    return ticks


@dataclass
class _Plot:
    """The plot area and its scales, which every kind of mark of `chart_layout` is placed by."""

    left: float
    top: float
    plot_w: float
    plot_h: float
    tick_step: float
    x_of: list[float]
    group_w: float
    # A time axis only: the padded domain in day ordinals and user units per day, which ticks are placed by.
    lo: float = 0
    hi: float = 0
    scale: float = 0

    @property
    def bottom(self) -> float:
        return self.top + self.plot_h

    def y_of(self, value: float, percent: bool) -> float:
        return self.top + self.plot_h - (value / (1.0 if percent else self.tick_step * 4)) * self.plot_h


def _plot_area(
    *, labels: list[str], series: list[Series], dates: list[datetime.date] | None, width: int, height: int
) -> _Plot:
    """Margins that fit the axis labels, the value scale, and the x of each slot (by time or by category)."""
    plain = [v for s in series if not s.percent for v in s.values if v is not None]
    tick_step = _nice_step(max(plain, default=0) / 4)
    # The left margin fits the longest axis label at the phone's font size.
    left = 10 + max(text_width(f"{tick_step * i:g}", PHONE_FONT) for i in range(5))
    right = 10 + text_width("100%", PHONE_FONT) if any(s.percent for s in series) else 24
    top, bottom = 36, TICK_GAP + PHONE_FONT * (1 + DESCENT) + 4
    plot_w, plot_h = width - left - right, height - top - bottom
    if dates:
        # Time axis: pad the domain by half the shortest gap so the first and last bars are whole.
        ordinals = [d.toordinal() for d in dates]
        gaps = [b - a for a, b in zip(ordinals, ordinals[1:], strict=False) if b > a]
        pad = (min(gaps) if gaps else 7) / 2
        lo, hi = min(ordinals) - pad, max(ordinals) + pad
        scale = plot_w / (hi - lo)
        x_of = [left + (o - lo) * scale for o in ordinals]
        group_w = min(2 * pad * scale * 0.8, MAX_BAR_GROUP)
        return _Plot(left, top, plot_w, plot_h, tick_step, x_of, group_w, lo, hi, scale)
    step = plot_w / max(len(labels), 1)
    x_of = [left + step * (i + 0.5) for i in range(len(labels))]
    bar_count = sum(1 for s in series if s.kind == "bar")
    group_w = min(step * 0.8, MAX_BAR_GROUP * max(bar_count, 1))
    return _Plot(left, top, plot_w, plot_h, tick_step, x_of, group_w)


def _axis_labels(plot: _Plot, *, has_percent: bool) -> list[Label]:
    """The value axis on the left, and the percent axis on the right when a series is a share."""
    labels: list[Label] = []
    for i in range(5):
        y = plot.y_of(plot.tick_step * i, False)
        labels.append(Label(f"{plot.tick_step * i:g}", plot.left - 6, y + 4, "axis", anchor="end"))
        if has_percent:
            y = plot.y_of(i / 4, True)
            labels.append(Label(f"{i * 25}%", plot.left + plot.plot_w + 6, y + 4, "axis", anchor="start"))
    _place(labels, gap=0)
    return labels


def _bars(plot: _Plot, *, labels: list[str], series: list[Series], bars: str) -> list[Bar]:
    """The bars of every bar series: side by side in each slot, or (`overlaid`) each narrower inside the one before."""
    bar_series = [i for i, s in enumerate(series) if s.kind == "bar"]
    drawn: list[Bar] = []
    for n, index in enumerate(bar_series):
        s = series[index]
        if bars == "overlaid":
            w = plot.group_w * (1 - 0.45 * n / max(len(bar_series) - 1, 1))
            offset = -w / 2
        else:
            w = plot.group_w / len(bar_series)
            offset = -plot.group_w / 2 + n * w
        for i, value in enumerate(s.values):
            if value is None:
                continue
            y = plot.y_of(value, s.percent)
            tooltip = f"{s.name} {labels[i]}: {_fmt(value, s.percent)}"
            drawn.append(Bar(index, plot.x_of[i] + offset, y, w, plot.bottom - y, tooltip))
    return drawn


def _value_label(text: str, x: float, y: float, *, css: str, bar_boxes: list[Box]) -> Label:
    """A point's value label, above the bars it would cover; dropped at a size where that pushes it out of the chart."""
    label = Label(text, x, y - 8, "value", css=css)
    for _ in range(len(bar_boxes) + 1):
        box = label.box(PHONE_FONT)
        covered = [b.y for b in bar_boxes if box.overlaps(b)]
        if not covered:
            break
        label.y = min(covered) - PHONE_FONT * DESCENT - 2
    if label.box(PHONE_FONT).y < 0:
        label.narrow = False
    if label.box(FONT).y < 0:
        label.wide = False
    return label


def _lines(
    plot: _Plot, *, labels: list[str], series: list[Series], bar_boxes: list[Box]
) -> tuple[list[tuple[int, list[list[tuple[float, float, str]]]]], list[Label]]:
    """Each line series as segments broken where a value is missing, and the value labels above its points."""
    lines: list[tuple[int, list[list[tuple[float, float, str]]]]] = []
    value_labels: list[Label] = []
    for index, s in enumerate(series):
        if s.kind != "line":
            continue
        segments: list[list[tuple[float, float, str]]] = [[]]
        for i, value in enumerate(s.values):
            if value is None:
                if segments[-1]:
                    segments.append([])
                continue
            x, y = plot.x_of[i], plot.y_of(value, s.percent)
            segments[-1].append((x, y, f"{s.name} {labels[i]}: {_fmt(value, s.percent)}"))
            text = _fmt(value, s.percent)
            value_labels.append(_value_label(text, x, y, css=f"series-{index}", bar_boxes=bar_boxes))
        lines.append((index, [seg for seg in segments if seg]))
    _place(value_labels, against=bar_boxes, within=(plot.left, plot.left + plot.plot_w))
    return lines, value_labels


def _no_data_labels(plot: _Plot, *, empty: list[int], slots: int, against: list[Box]) -> list[Label]:
    """A "no data" label in each `empty` category slot (of `slots`), upright when it fits the slot."""
    slot = plot.plot_w / max(slots, 1)
    no_data: list[Label] = []
    for i in empty:
        text = Label(NO_DATA, plot.x_of[i], plot.bottom - 6, "no-data")
        if text_width(NO_DATA, PHONE_FONT) > slot * 0.9:
            text.rotate, text.anchor, text.x = -90, "start", plot.x_of[i] + PHONE_FONT * 0.35
        no_data.append(text)
    _place(no_data, against=against, within=(plot.left, plot.left + plot.plot_w))
    return no_data


def _ticks(plot: _Plot, *, labels: list[str], dates: list[datetime.date] | None, width: int) -> list[Label]:
    """Ticks under the axis: month starts on a time axis (each date when it spans under two), else the labels."""
    # Hanging text is emulated: the baseline is one font size below the axis.
    base = plot.bottom + TICK_GAP
    if dates:
        months = _month_ticks(datetime.date.fromordinal(int(plot.lo + 0.5)), datetime.date.fromordinal(int(plot.hi)))
        if len(months) >= 2:
            points = [(m, f"{m:%b}" if m.month != 1 and i else f"{m:%b %Y}") for i, m in enumerate(months)]
        else:
            points = [(d, f"{d.day} {d:%b %Y}") for d in dates]
        ticks = [
            Label(text, plot.left + (day.toordinal() - plot.lo) * plot.scale, base, "tick") for day, text in points
        ]
    else:
        ticks = [Label(label, plot.x_of[i], base, "tick") for i, label in enumerate(labels)]
    for tick in ticks:
        # Baselines per size: wide ticks sit one FONT below the axis, phone ticks one PHONE_FONT below.
        tick.y = base + FONT
    _place_ticks(ticks, left=0, right=width)
    return ticks


def chart_layout(
    *,
    labels: list[str],
    series: list[Series],
    dates: list[datetime.date] | None = None,
    width: int = 860,
    height: int = 300,
    bars: str = "grouped",
) -> Layout:
    """Where everything goes: bars, line segments, tick/value/"no data" labels, in user units.

    The order is the precedence: a value label gives way to the bars, a "no data" label to both.
    """
    plot = _plot_area(labels=labels, series=series, dates=dates, width=width, height=height)
    layout = Layout(width, height, plot.left, plot.top, plot.plot_w, plot.plot_h, plot.x_of)
    layout.grid = [plot.y_of(plot.tick_step * i, False) for i in range(5)]
    axis_labels = _axis_labels(plot, has_percent=any(s.percent for s in series))
    layout.bars = _bars(plot, labels=labels, series=series, bars=bars)
    # Worked out once, not once per label and try: with ~50 points and ~100 bars, the boxes were most of a page's
    # time (meeting search).
    bar_boxes = [b.box for b in layout.bars]
    layout.lines, value_labels = _lines(plot, labels=labels, series=series, bar_boxes=bar_boxes)
    no_data_labels: list[Label] = []
    # A category axis only: a time axis has no empty slots.
    if not dates:
        empty = [i for i in range(len(labels)) if all(_nothing_drawn(s, i) for s in series)]
        layout.no_data = [labels[i] for i in empty]
        shown_values = [lbl.box(PHONE_FONT) for lbl in value_labels if lbl.wide or lbl.narrow]
        against = bar_boxes + shown_values
        no_data_labels = _no_data_labels(plot, empty=empty, slots=len(labels), against=against)
    ticks = _ticks(plot, labels=labels, dates=dates, width=width)
    layout.labels = axis_labels + value_labels + no_data_labels + ticks
    return layout


def _place_ticks(ticks: list[Label], *, left: float, right: float) -> None:
    """Keep ticks that stay inside the chart and clear of the previous kept tick, at each font size."""
    for attr, size in (("wide", FONT), ("narrow", PHONE_FONT)):
        last: Box | None = None
        for tick in ticks:
            box = tick.box(size)
            if box.x < left or box.x + box.w > right or (last is not None and box.overlaps(last, 6)):
                setattr(tick, attr, False)
            else:
                last = box


def tick_box(tick: Label, size: float) -> Box:
    """A tick's box at `size`: its baseline is `size` below the axis (the `dy` the SVG gives it)."""
    box = tick.box(size)
    return Box(box.x, box.y + (size - FONT), box.w, box.h)


def _classes(label: Label) -> str:
    classes = [label.kind, label.css]
    if not label.narrow:
        classes.append("wide-only")
    if not label.wide:
        classes.append("narrow-only")
    return " ".join(c for c in classes if c)


def _description(labels: list[str], series: list[Series], no_data: list[str]) -> str:
    """The chart as text for a screen reader: every value of every series, then the slots with no data."""
    desc = "; ".join(
        f"{escape(s.name)}: "
        + ", ".join(
            f"{escape(lbl)} {_fmt(v, s.percent)}" for lbl, v in zip(labels, s.values, strict=False) if v is not None
        )
        for s in series
    )
    if no_data:
        desc += f"; no data for {escape(', '.join(no_data))}"
    return desc


def _svg_marks(layout: Layout) -> list[str]:
    """Grid lines, bars, line segments and their points, each mark with its tooltip."""
    parts = []
    right = layout.left + layout.plot_w
    for y in layout.grid:
        parts.append(f'<line class="grid" x1="{layout.left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e7eb"/>')
    for bar in layout.bars:
        color = PALETTE[bar.series % len(PALETTE)]
        parts.append(
            f'<rect class="bar series-{bar.series}" x="{bar.x:.1f}" y="{bar.y:.1f}" width="{bar.w:.1f}" '
            f'height="{bar.h:.1f}" fill="{color}"><title>{escape(bar.tooltip)}</title></rect>'
        )
    for index, segments in layout.lines:
        color = PALETTE[index % len(PALETTE)]
        for segment in segments:
            if len(segment) > 1:
                path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in segment)
                parts.append(
                    f'<polyline class="line series-{index}" points="{path}" fill="none" stroke="{color}" '
                    'stroke-width="2.5"/>'
                )
            for x, y, tooltip in segment:
                parts.append(
                    f'<circle class="point series-{index}" cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{color}">'
                    f"<title>{escape(tooltip)}</title></circle>"
                )
    return parts


def _svg_labels(layout: Layout) -> list[str]:
    """The labels shown at either size, classed by the size they are shown at."""
    parts = []
    for label in layout.labels:
        if not (label.wide or label.narrow):
            continue
        attrs = f'x="{label.x:.1f}" y="{label.y:.1f}"'
        if label.kind == "tick":
            attrs = f'x="{label.x:.1f}" y="{layout.top + layout.plot_h + TICK_GAP:.1f}" dy="1em"'
        if label.rotate:
            attrs += f' transform="rotate({label.rotate} {label.x:.1f} {label.y:.1f})"'
        parts.append(
            f'<text class="{_classes(label)}" {attrs} text-anchor="{label.anchor}">{escape(label.text)}</text>'
        )
    return parts


def line_bar_chart(
    *,
    title: str,
    labels: list[str],
    series: list[Series],
    dates: list[datetime.date] | None = None,
    bars: str = "grouped",
    width: int = 860,
    height: int = 300,
) -> SafeString:
    """Bars and lines over shared x labels (or dates). Percent series (0..1) use their own right-hand axis."""
    if not labels:
        return mark_safe("")
    layout = chart_layout(labels=labels, series=series, dates=dates, width=width, height=height, bars=bars)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" class="chart-svg" '
        f'aria-labelledby="chart-title chart-desc" font-family="system-ui, sans-serif" font-size="{FONT}">',
        f'<title id="chart-title">{escape(title)}</title>',
        f'<desc id="chart-desc">{_description(labels, series, layout.no_data)}</desc>',
        *_svg_marks(layout),
        *_svg_labels(layout),
        "</svg>",
    ]
    legend = "".join(
        format_html('<li><span class="swatch {} series-{}" aria-hidden="true"></span>{}</li>', s.kind, i, s.name)
        for i, s in enumerate(series)
    )
    parts.append(f'<ul class="chart-legend">{legend}</ul>')
    return mark_safe("".join(parts))
