"""Time in the synthetic world: the reference instant, seeded random streams, release schedules and the
interpolated growth of KEP and PR numbers."""

import datetime
import functools
import math
import random

from releases.choices import (
    MilestoneKind,
)

from .vocabulary import ACTIVE, KEP_NUMBER_DATES, PR_NUMBER_DATES, PT, RELEASES, UTC


def reference_instant(seed: int) -> datetime.datetime:
    """The fixed "now" of the synthetic data: between the 1.34 enhancements freeze and code freeze.

    Derived from the seed (never from the clock), so the same seed always yields the same board.
    """
    schedule = _milestone_instants(ACTIVE)
    start = schedule[MilestoneKind.ENHANCEMENTS_FREEZE] + datetime.timedelta(days=1)
    span = (schedule[MilestoneKind.CODE_FREEZE] - datetime.timedelta(days=2) - start).days
    return (start + datetime.timedelta(days=seed % max(span, 1))).replace(hour=16, minute=0)


def _rng(seed: int, stream: str) -> random.Random:
    # String seeds are hashed with SHA-512 by `random`, independent of PYTHONHASHSEED.
    return random.Random(f"sigtracker-synthetic:{seed}:{stream}")


def _split(total: int, parts: int) -> list[int]:
    """`total` split into `parts` near-equal integers that sum to it."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _spread(total: int, weights: list[float]) -> list[int]:
    """`total` shared in proportion to `weights` (largest remainder), summing exactly to `total`."""
    if not weights:
        return []
    weight_sum = sum(weights) or 1.0
    raw = [total * w / weight_sum for w in weights]
    counts = [int(x) for x in raw]
    order = sorted(range(len(raw)), key=lambda i: (raw[i] - counts[i], -i), reverse=True)
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


def _interpolate(points, x):
    """Piecewise-linear interpolation over sorted (x, y) points; dates are handled as ordinals."""

    def num(v):
        return v.toordinal() if isinstance(v, datetime.date) else v

    xs = [num(p[0]) for p in points]
    ys = [num(p[1]) for p in points]
    xv = num(x)
    if xv <= xs[0]:
        i = 0
    elif xv >= xs[-1]:
        i = len(xs) - 2
    else:
        i = next(k for k in range(len(xs) - 1) if xs[k] <= xv <= xs[k + 1])
    y = ys[i] + (ys[i + 1] - ys[i]) * (xv - xs[i]) / (xs[i + 1] - xs[i])
    return y


def _kep_created(number: int) -> datetime.date:
    return datetime.date.fromordinal(round(_interpolate(KEP_NUMBER_DATES, number)))


@functools.cache
def _pr_base(day: datetime.date) -> int:
    return round(_interpolate(PR_NUMBER_DATES, day))


def _pr_number(day: datetime.date, rng: random.Random) -> int:
    """A plausible kubernetes/kubernetes PR number for a PR discussed on `day`."""
    return max(1000, _pr_base(day) + rng.randint(-900, 200))


def _release_index_at(day: datetime.date) -> int | None:
    """Index of the release whose cycle `day` falls in (the gap after a release counts towards the next)."""
    if day < RELEASES[0][2]:
        return None
    for index, (_, _, _, release) in enumerate(RELEASES):
        if day <= release:
            return index
    return None


def _minor_at(day: datetime.date) -> int:
    """Minor version developed on `day`; before 1.20 estimated at one release every 120 days."""
    index = _release_index_at(day)
    if index is not None:
        return 20 + index
    first_start = RELEASES[0][2]
    if day > RELEASES[-1][3]:
        return 20 + len(RELEASES)
    return max(1, 20 - math.ceil((first_start - day).days / 120))


def _instant(day: datetime.date, hour: int, minute: int, zone) -> datetime.datetime:
    """Wall-clock time in `zone` (PT follows PDT/PST) as an aware UTC instant."""
    return datetime.datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone).astimezone(UTC)


def _milestone_instants(index: int) -> dict:
    """Instants of one release's milestones (kind -> aware UTC datetime), shaped like the real schedules.

    Releases up to 1.25 quote freezes in UTC (enhancements freeze 02:00 UTC Friday, code freeze 01:00 UTC
    Wednesday, as 1.24 did); later ones in Pacific time (18:00 PT Thursday, 17:00 PT Tuesday), so their
    UTC instants move by an hour between PDT and PST.
    """
    _, _, start, release = RELEASES[index]
    pacific = index >= 6
    enh_day = start + datetime.timedelta(days=24 if pacific else 25)
    code_day = release - datetime.timedelta(days=35 if pacific else 34)
    if pacific:
        enh = _instant(enh_day, 18, 0, PT)
        code = _instant(code_day, 17, 0, PT)
    else:
        enh = _instant(enh_day, 2, 0, UTC)
        code = _instant(code_day, 1, 0, UTC)

    def same_time(instant, days):
        # The same wall-clock time `days` later in the zone the schedule quotes (PT keeps 17:00 across DST).
        zone = PT if pacific else UTC
        local = instant.astimezone(zone)
        return _instant(local.date() + datetime.timedelta(days=days), local.hour, local.minute, zone)

    soft_day = max(code_day - datetime.timedelta(days=26), enh_day + datetime.timedelta(days=7))
    return {
        MilestoneKind.CYCLE_START: _instant(start, 0, 0, UTC),
        MilestoneKind.PRR_FREEZE: _instant(enh_day - datetime.timedelta(days=8), 0, 0, UTC),
        MilestoneKind.ENHANCEMENTS_FREEZE: enh,
        # Four weeks before code freeze (1.24: Mar 4 for Mar 30), but never before the enhancements freeze.
        MilestoneKind.SIG_SOFT_FREEZE: _instant(soft_day, 0, 0, UTC),
        MilestoneKind.FEATURE_BLOG_FREEZE: same_time(code, -14),
        MilestoneKind.CODE_FREEZE: code,
        MilestoneKind.TEST_FREEZE: same_time(code, 7),
        MilestoneKind.DOCS_FREEZE: _instant(release - datetime.timedelta(days=14), 23, 59, PT)
        if pacific
        else _instant(release - datetime.timedelta(days=14), 0, 0, UTC),
        MilestoneKind.RELEASE: _instant(release, 0, 0, UTC),
        MilestoneKind.RETROSPECTIVE: _instant(release + datetime.timedelta(days=9), 10, 0, PT),
    }


#: Milestones quoted as dates only in the schedules (stored at midnight UTC with `all_day`).
