"""Small server-side SVG charts: readable at a glance, accessible, no JavaScript and no network.

Each function returns a safe SVG string with a <title> and <desc> for screen readers; values are
numbers and labels are escaped.
"""

from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

PALETTE = ["#0b5cad", "#cf6a00", "#1a7f37", "#8250df", "#cf222e"]


@dataclass
class Series:
    name: str
    values: list[float | None]
    kind: str = "line"  # "line" or "bar"
    percent: bool = False


def _fmt(value: float, percent: bool) -> str:
    return f"{value * 100:.0f}%" if percent else f"{value:g}"


def line_bar_chart(
    *,
    title: str,
    labels: list[str],
    series: list[Series],
    width: int = 860,
    height: int = 280,
    max_labels: int = 16,
) -> SafeString:
    """Bars and lines over shared x labels. Percent series (0..1) use their own right-hand axis."""
    if not labels:
        return mark_safe("")
    left, right, top, bottom = 48, 48, 40, 48  # top leaves room for value labels under the legend
    plot_w, plot_h = width - left - right, height - top - bottom
    count = len(labels)
    step = plot_w / count
    plain = [v for s in series if not s.percent for v in s.values if v is not None]
    plain_max = max(plain, default=0) or 1
    bar_series = [s for s in series if s.kind == "bar"]
    bar_w = step * 0.8 / max(len(bar_series), 1)

    def y_of(value: float, percent: bool) -> float:
        top_value = 1.0 if percent else plain_max
        return top + plot_h - (value / top_value) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="chart-title chart-desc" font-family="system-ui, sans-serif" font-size="11">',
        f'<title id="chart-title">{escape(title)}</title>',
    ]
    desc = "; ".join(
        f"{escape(s.name)}: "
        + ", ".join(
            f"{escape(lbl)} {_fmt(v, s.percent)}" for lbl, v in zip(labels, s.values, strict=False) if v is not None
        )
        for s in series
    )
    parts.append(f'<desc id="chart-desc">{desc}</desc>')
    # Grid and left axis.
    for i in range(5):
        value = plain_max * i / 4
        y = y_of(value, False)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e7eb"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#57606a">{value:.0f}</text>')
    if any(s.percent for s in series):
        for i in range(5):
            y = y_of(i / 4, True)
            parts.append(f'<text x="{left + plot_w + 6}" y="{y + 4:.1f}" fill="#57606a">{i * 25}%</text>')
    every = max(1, -(-count // max_labels))
    for i, label in enumerate(labels):
        if i % every == 0:
            x = left + step * (i + 0.5)
            parts.append(
                f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle" fill="#1b1f24">{escape(label)}</text>'
            )
    # Bars, then lines on top.
    for b, s in enumerate(bar_series):
        color = PALETTE[series.index(s) % len(PALETTE)]
        for i, value in enumerate(s.values):
            if value is None:
                continue
            x = left + step * i + step * 0.1 + b * bar_w
            y = y_of(value, s.percent)
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{top + plot_h - y:.1f}" fill="{color}" '
                f'opacity="0.85"><title>{escape(s.name)} {escape(labels[i])}: {_fmt(value, s.percent)}</title></rect>'
            )
    for s in series:
        if s.kind != "line":
            continue
        color = PALETTE[series.index(s) % len(PALETTE)]
        points = [
            (left + step * (i + 0.5), y_of(v, s.percent), v, labels[i]) for i, v in enumerate(s.values) if v is not None
        ]
        if len(points) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in points)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2.5"/>')
        for x, y, v, lbl in points:
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{color}">'
                f"<title>{escape(s.name)} {escape(lbl)}: {_fmt(v, s.percent)}</title></circle>"
            )
            if count <= max_labels:
                parts.append(
                    f'<text x="{x:.1f}" y="{y - 8:.1f}" text-anchor="middle" fill="{color}" font-weight="600">'
                    f"{_fmt(v, s.percent)}</text>"
                )
    # Legend.
    for i, s in enumerate(series):
        x = left + i * 170
        color = PALETTE[i % len(PALETTE)]
        parts.append(f'<rect x="{x}" y="6" width="12" height="12" fill="{color}"/>')
        parts.append(f'<text x="{x + 16}" y="16" fill="#1b1f24">{escape(s.name)}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))
