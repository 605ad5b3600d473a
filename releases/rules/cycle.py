"""Where the release cycle stands: a release's state, its span of days, and the current release.

A release's state is read from its own dates at the moment of asking, never frozen when it was imported: the
stored `Release.state` is only a copy kept current by the import and by beat (`release_states_refresh`).
"""

import datetime
from dataclasses import dataclass

from releases.choices import ReleaseState

from .zones import UTC

#: How long a cycle runs at most, for a release whose schedule gives no release day (a proposal, a README
#: whose dates were never filled in): it is over once this long has passed since its last known date. Cycles ran
#: 10-16 weeks since 1.10 (1.19's 20 weeks are the one outlier); 16 weeks keeps such a release "current" no
#: longer than a real one could be, so a schedule abandoned in 2018 is not today's release.
TYPICAL_CYCLE = datetime.timedelta(weeks=16)


def _day(value) -> datetime.date | None:
    if value is None or not isinstance(value, datetime.datetime):
        return value
    return value.astimezone(UTC).date()


def release_span(release) -> tuple[datetime.date | None, datetime.date | None, datetime.date | None]:
    """(first day, release day, last known day) of a release, read from `cycle_start`, `release_date` and, when
    the object carries them, `first_milestone` / `last_milestone` (instants of its earliest and latest milestone)
    and `first_exception` / `last_exception` (its exception requests: the first asked, the last decided).

    Exception requests are asked and decided inside a cycle (after its enhancements freeze, before release day), so
    their days are days of the cycle: a release known only from its exceptions.yaml and roster (v1.35 in the
    samples: asked 17 Oct, decided by 10 Nov 2025) was in its cycle then, and is over `TYPICAL_CYCLE` after."""
    first_milestone = _day(getattr(release, "first_milestone", None))
    last_milestone = _day(getattr(release, "last_milestone", None))
    first_exception = _day(getattr(release, "first_exception", None))
    last_exception = _day(getattr(release, "last_exception", None))
    start = release.cycle_start or first_milestone or first_exception
    end = release.release_date
    known = [day for day in (start, end, last_milestone, last_exception) if day is not None]
    return start, end, max(known) if known else None


def release_state(release, *, now: datetime.datetime) -> str:
    """Planning, active (in its cycle) or released, at `now` (UTC days):

    - released from its release day (the actual one, else the planned one);
    - active from its cycle start (else its first milestone; with neither, `TYPICAL_CYCLE` before its release day);
    - with no release day known, over (released, day unknown) once `TYPICAL_CYCLE` has passed since its last
      known date;
    - with no date at all, the state curated by hand (a release added in the admin before its schedule is
      published), else planning.
    """
    today = now.astimezone(UTC).date()
    start, end, last = release_span(release)
    if last is None:
        return getattr(release, "state", None) or ReleaseState.PLANNING
    if end is not None:
        if end <= today:
            return ReleaseState.RELEASED
        begins = start or end - TYPICAL_CYCLE
        return ReleaseState.ACTIVE if begins <= today else ReleaseState.PLANNING
    if start is None or start > today:
        return ReleaseState.PLANNING
    return ReleaseState.RELEASED if last + TYPICAL_CYCLE < today else ReleaseState.ACTIVE


def release_states(releases, *, now: datetime.datetime) -> list[tuple[object, str]]:
    """(release, state) for each of `releases` at `now`: `release_state` of its own dates, and one rule across them:
    minors ship in order, so a release with no date at all that is older than one whose cycle has begun (active or
    released) is released too (day unknown). v1.4, known only from its features sheet, is not "planning" while v1.8
    is out. A dateless release newer than every begun one keeps its curated state: nothing says when it runs."""
    states = [(release, release_state(release, now=now)) for release in releases]
    begun = (ReleaseState.ACTIVE, ReleaseState.RELEASED)
    newest = max(((r.major, r.minor) for r, state in states if state in begun), default=None)
    return [
        (
            release,
            ReleaseState.RELEASED
            if newest is not None
            and state == ReleaseState.PLANNING
            and release_span(release)[2] is None
            and (release.major, release.minor) < newest
            else state,
        )
        for release, state in states
    ]


def release_state_label(*, state: str, release_day: datetime.date | None, has_dates: bool) -> str:
    """How a page names a release's state, saying what is not known rather than guessing it: "Released (day not
    published)" for a release over with no release day on record (v1.4, v1.35), "Planning (no dates published)"
    for a planned release with no date at all, else the state's label."""
    if state == ReleaseState.RELEASED and release_day is None:
        return "Released (day not published)"
    if state == ReleaseState.PLANNING and not has_dates:
        return "Planning (no dates published)"
    return ReleaseState(state).label


@dataclass(frozen=True)
class CurrentRelease:
    """The answer to "which release is it?" at an instant, and how to say it.

    `release` is the release whose cycle contains the instant (`in_cycle`); between cycles, the latest released
    one, with `next_release` the one whose schedule is published (or None when it is not yet)."""

    release: object
    state: str
    in_cycle: bool
    next_release: object | None = None

    @property
    def summary(self) -> str:
        """ "v1.37 released 26 Aug 2026; the v1.38 schedule is not published yet", or "v1.38 in its cycle ..."."""
        release = self.release
        day = release.release_date
        if self.in_cycle:
            text = f"v{release.version} is in its cycle"
            return text + (f", release day {day:%-d %b %Y}" if day else ", release day not published")
        if self.state == ReleaseState.PLANNING:
            start = release_span(release)[0]
            return f"v{release.version} begins {start:%-d %b %Y}" if start else f"v{release.version} is planned"
        said = f"v{release.version} released {day:%-d %b %Y}" if day else f"v{release.version} is over"
        following = self.next_release
        if following is not None:
            start = release_span(following)[0]
            return said + (
                f"; v{following.version} begins {start:%-d %b %Y}" if start else f"; v{following.version} is planned"
            )
        return said + f"; the v{release.major}.{release.minor + 1} schedule is not published yet"


def current_release(releases, *, now: datetime.datetime) -> CurrentRelease | None:
    """The current release at `now`, among `releases` (objects with version, major, minor, cycle_start,
    release_date, and optionally first_milestone / last_milestone): the one in its cycle (the newest, should two
    overlap); between cycles, the latest released one and the next planned; before any release, the first planned
    one. Every page, selector, task and the API ask this, through `Release.objects.current()`."""
    states = release_states(releases, now=now)
    if not states:
        return None

    def version(item):
        return (item[0].major, item[0].minor)

    active = [item for item in states if item[1] == ReleaseState.ACTIVE]
    if active:
        release, state = max(active, key=version)
        return CurrentRelease(release=release, state=state, in_cycle=True)
    planned = sorted((item for item in states if item[1] == ReleaseState.PLANNING), key=version)
    released = [item for item in states if item[1] == ReleaseState.RELEASED]
    if released:
        release, state = max(released, key=version)
        # The next release is the one whose schedule is published, or the very next minor added by hand before it
        # is: v1.35, known only from its exception requests and roster, is not what follows v1.27.
        following = next(
            (
                r
                for r, _ in planned
                if (r.major, r.minor) > (release.major, release.minor)
                and (release_span(r)[2] is not None or (r.major, r.minor) == (release.major, release.minor + 1))
            ),
            None,
        )
        return CurrentRelease(release=release, state=state, in_cycle=False, next_release=following)
    release, state = planned[0]
    return CurrentRelease(release=release, state=state, in_cycle=False)
