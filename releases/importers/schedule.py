"""Parser for a release schedule: kubernetes/sig-release `releases/release-1.NN/README.md` -> `Schedule`.

A schedule README gives the same milestones twice: a summary list near the top
(``- **02:00 UTC Friday 4th February 2022** / **18:00 PST ...** : Week 4 — [Enhancements Freeze](...)``)
and a timeline table (``| **Begin [Enhancements Freeze]** | Enhancements Lead | 02:00 UTC ... | week 4 |``;
before 1.19 with one column per month, ``| Mon 6 | | |``). Both are read; entries for the same
milestone are merged (see `_merge`).

Milestone identity (`milestone_key`): ``(kind, slot)``. Kinds that happen once a cycle (cycle start, PRR,
enhancements, feature-blog, code and test freezes, release day) have the empty slot, so a renamed row
still updates the same milestone. Docs deadlines use ``placeholder`` / ``review`` / ``freeze``,
retrospectives ``part N`` (or empty), and `other` events their normalised label. The service looks
milestones up by ``(release, kind, slot)``, the slot computed from the stored label with the same function.

Older schedules have other shapes, each read as well (one place per shape, all merged the same way):

- 2016 (1.3): ``###Mar 21 - Mar 25`` headings over undated bullets (``- release 1.3 Final``): a bullet without a
  date of its own takes its heading's first day (`_heading_bullets`).
- 2016–2017 (1.5–1.9): bullets that start with a plain date (``- July 5 (Weds) coding start (7w)``,
  ``* **Wed Dec 13: v1.9.0**``), or a bold date alone with its words on the sub-bullet below
  (``- [x] **Monday, September 19, 2016**`` / ``  - 7 week coding period begins``) (`_dated_bullets`).
- 2018 (1.10–1.13): the "tl;dr" paragraph, one sentence per milestone (``begins on **Monday, July 2nd, 2018**,
  and ends on release day, ~~Tuesday, September 25, 2018~~ **Thursday, September 27, 2018**``); a struck date
  was moved and is not read; a date without a year takes the cycle start's (`_tldr`). Their month-column tables
  say ``v1.12.0`` for release day and ``1.13 Release Cycle Begins`` for the next cycle: a row that names the
  release's own version alone is its release day, a cycle start of another version is not this one's.
- 2019–2020 (1.14–1.20): a "## tl;dr" heading over "The 1.17 release cycle is proposed as follows:" and bold-date
  bullets (``- **Monday, September 23**  - Release Cycle Begins``) read as the summary list; no date there or in
  the table gives a year, which comes from the cycle start's weekday and the release number.

A README with no dated milestone at all yields a `Schedule` without milestones and one warning (the service
writes nothing for it): it is not a failure.

Rows of no milestone kind are imported as `other` only when they are events worth showing on the release
page (`_OTHER_EVENTS`: calls for exceptions, burndown, thaw, cherry-pick deadline, KubeCon); alpha/beta/rc
builds, branch creation and team chores are not. A row that names no date ("TBC") is not imported; for a
freeze, a warning says so.

Pure: text in, dataclasses out, `ImportFailure` for input that is not a schedule. Time rules live in
`schedule_time`, label rules in `schedule_labels`, the shapes of the file (tables, dated bullets, headings over
bullets, the tl;dr sentence) in `schedule_shapes`, and the records in `schedule_records`.
"""

import datetime

from core.importing import ImportFailure
from releases.choices import MilestoneKind

from . import schedule_time as st
from .schedule_labels import classify
from .schedule_records import (
    _FOLDER_VERSION,
    _THIS_DOCUMENT,
    VERSION_PART_MAX,
    MilestoneData,
    Schedule,
    ScheduleWarning,
    _Entry,
    milestone_key,
)
from .schedule_shapes import (
    _bullets,
    _dated_bullets,
    _heading_bullets,
    _merge,
    _other_release_sections,
    _read_entry,
    _table_rows,
    _title_and_version,
    _tldr,
)

__all__ = [
    "MilestoneData",
    "Schedule",
    "ScheduleWarning",
    "check_version",
    "classify",
    "milestone_key",
    "parse_schedule",
    "version_from_path",
]


def parse_schedule(text: str, *, version_hint: str | None = None) -> Schedule:
    """Read one release schedule README. Raises ImportFailure when it has no version or a date that cannot be;
    a README without any dated milestone gives a Schedule with none and a warning.

    `version_hint` is the version from the folder name (``release-1.24`` -> ``"1.24"``), trusted over the title.
    """
    if not text.strip():
        raise ImportFailure("empty file")
    lines = text.splitlines()
    version, name, _title, warnings = _title_and_version(lines, version_hint)
    major, minor = check_version(version)
    entries = _entries(lines, version, warnings)
    if not entries:
        return Schedule(
            version=version,
            name=name,
            cycle_start=None,
            planned_release_date=None,
            source_url="",
            milestones=[],
            warnings=[*warnings, ScheduleWarning(None, "states no dated milestone; nothing imported")],
        )
    anchor = _anchor(entries, major=major, minor=minor, warnings=warnings)
    milestones, deadlines = _milestones(entries, anchor, warnings)
    _set_exception_deadlines(milestones, deadlines, warnings)
    cycle_start, planned = _cycle_start_and_release_day(milestones)
    url = _THIS_DOCUMENT.search(text)
    return Schedule(
        version=version,
        name=name,
        cycle_start=cycle_start,
        planned_release_date=planned,
        source_url=url.group("url")[:200] if url else "",
        milestones=milestones,
        warnings=warnings,
    )


def _entries(lines: list[str], version: str, warnings: list[ScheduleWarning]) -> list[_Entry]:
    """Every dated row of every shape of the file, in the order the shapes are read: summary list, dated
    bullets, headings over bullets, the tl;dr sentence, then the timeline table."""
    entries: list[_Entry] = []
    # Lines under a heading about another release ("###1.5 Overview" in the 1.4 schedule) are not this one's.
    taken: set[int] = _other_release_sections(lines, version)
    for number, when_text, what_text in _bullets(lines):
        if number in taken:
            continue
        taken.add(number)
        wording = st.clean_markdown(lines[number - 1].strip().lstrip("-*+ "))
        if entry := _read_entry(number, "list", what_text, when_text, wording, warnings, version):
            entries.append(entry)
    for reader in (_dated_bullets, _heading_bullets):
        for number, when_text, what_text in reader(lines, taken):
            taken.add(number)
            wording = f"{when_text}: {what_text}"
            if entry := _read_entry(number, "list", what_text, when_text, wording, warnings, version):
                entries.append(entry)
    entries.extend(_tldr_entries(lines, version, warnings))
    for number, what_text, when_text in _table_rows(lines):
        wording = f"{st.clean_markdown(what_text)} | {st.clean_markdown(when_text)}"
        if entry := _read_entry(number, "table", what_text, when_text, wording, warnings, version):
            entries.append(entry)
    return entries


def _tldr_entries(lines: list[str], version: str, warnings: list[ScheduleWarning]) -> list[_Entry]:
    """The milestones of the 2018 tl;dr paragraph, one per sentence; a struck (moved) date is named in a warning."""
    entries: list[_Entry] = []
    for number, when_text, what_text, struck in _tldr(lines):
        wording = f"{what_text} {when_text}".strip()
        if entry := _read_entry(number, "list", what_text, when_text, wording, warnings, version):
            # The sentence is no label ("and ends on release day,"): each kind is shown by its own name.
            entry.kinds = [(kind, str(MilestoneKind(kind).label)) for kind, _label in entry.kinds]
            entries.append(entry)
            if struck:
                warnings.append(
                    ScheduleWarning(number, f"{', '.join(struck)} struck through; {when_text} holds (moved)")
                )
    return entries


def _anchor(entries: list[_Entry], *, major: int, minor: int, warnings: list[ScheduleWarning]) -> datetime.date:
    """The cycle start as a full date (the first row's when no row is a cycle start): dates written without a
    year take theirs from it (schedule_time.anchor_date)."""
    cycle = (
        next(
            (e.when.date for e in entries if any(k == MilestoneKind.CYCLE_START for k, _ in e.kinds)),
            None,
        )
        or min((e for e in entries), key=lambda e: e.line).when.date
    )
    explicit = [half.date for e in entries for half in e.when.halves if half.date and half.date.year is not None]
    try:
        explicit_dates = [partial.with_year(partial.year) for partial in explicit]
        anchor, warning = st.anchor_date(cycle, explicit_dates, major=major, minor=minor)
    except ImportFailure as failure:
        failure.field = "date"
        raise
    if warning:
        warnings.append(ScheduleWarning(None, warning))
    return anchor


def _milestones(
    entries: list[_Entry], anchor: datetime.date, warnings: list[ScheduleWarning]
) -> tuple[list[MilestoneData], list[tuple[_Entry, datetime.datetime]]]:
    """Each entry's instant as one milestone per kind it names, entries of one milestone merged, in time order;
    and each exception deadline with its entry, to be set on its freeze once every freeze is known."""
    found: dict[tuple[str, str], MilestoneData] = {}
    deadlines: list[tuple[_Entry, datetime.datetime]] = []
    for entry in entries:
        hint_time, hint_zone, hint_eod = st.parse_hint(st.clean_markdown(entry.what))
        try:
            instant = st.resolve(entry.when, anchor=anchor, hint_time=hint_time, hint_zone=hint_zone, hint_eod=hint_eod)
            st.check_year(instant.at.year)  # also when the year was inferred (the cycle's, the release number's)
        except ImportFailure as failure:
            failure.line, failure.field = entry.line, failure.field or "date"
            raise
        warnings.extend(ScheduleWarning(entry.line, message) for message in instant.warnings)
        if entry.exception_for:
            deadlines.append((entry, instant.at))
        for kind, label in entry.kinds:
            item = MilestoneData(
                kind=kind,
                label=label,
                at=instant.at,
                all_day=instant.all_day,
                quoted_timezone=instant.quoted_timezone,
                source_text=entry.wording,
                line=entry.line,
                origin=entry.origin,
                disagreements=len(instant.warnings),
            )
            key = item.key
            found[key] = _merge(found[key], item, warnings) if key in found else item
    return sorted(found.values(), key=lambda m: (m.at, m.kind, m.label)), deadlines


def _set_exception_deadlines(
    milestones: list[MilestoneData],
    deadlines: list[tuple[_Entry, datetime.datetime]],
    warnings: list[ScheduleWarning],
) -> None:
    """Each exception deadline on the first milestone of its freeze's kind, when it falls after the freeze."""
    for entry, at in deadlines:
        for kind in entry.exception_for:
            target = next((m for m in milestones if m.kind == kind), None)
            if target is None:
                warnings.append(
                    ScheduleWarning(entry.line, f"exception deadline for a {kind} the schedule does not give")
                )
            elif at <= target.at:
                warnings.append(
                    ScheduleWarning(entry.line, f"exception deadline {at:%Y-%m-%d %H:%M} UTC is not after the freeze")
                )
            else:
                target.exception_deadline = at


def _cycle_start_and_release_day(
    milestones: list[MilestoneData],
) -> tuple[datetime.date | None, datetime.date | None]:
    """The days of the cycle start and of release day; an ImportFailure when release day comes first."""
    cycle_start = next((m.at.date() for m in milestones if m.kind == MilestoneKind.CYCLE_START), None)
    release_day = next((m for m in milestones if m.kind == MilestoneKind.RELEASE), None)
    planned = release_day.at.date() if release_day else None
    if cycle_start and planned and planned < cycle_start:
        raise ImportFailure(
            f"release day {planned} is before the cycle start {cycle_start}", line=release_day.line, field="date"
        )
    return cycle_start, planned


def check_version(version: str) -> tuple[int, int]:
    """(major, minor) of a version the Release model can hold, else an ImportFailure on the `version` field.

    A folder named ``release-1.99999999999999999999`` gave a version longer than `Release.version`
    and the database refused it mid-import. The rule is the format's: MAJOR.MINOR, each part a number of at most
    VERSION_PART_MAX, the whole within the field's max_length (read from the model, so the two cannot drift).
    """
    from releases.models import Release  # here, not at the top: the parser module stays importable on its own

    max_length = Release._meta.get_field("version").max_length
    major, _, minor = version.partition(".")
    fits = (
        len(version) <= max_length
        and major.isascii()
        and major.isdigit()
        and minor.isascii()
        and minor.isdigit()
        and int(major) <= VERSION_PART_MAX
        and int(minor) <= VERSION_PART_MAX
    )
    if not fits:
        shown = version if len(version) <= 40 else version[:40] + "…"
        raise ImportFailure(
            f"{shown!r} does not fit a release version (MAJOR.MINOR, each at most {VERSION_PART_MAX}, "
            f"{max_length} characters in all)",
            field="version",
        )
    return int(major), int(minor)


def version_from_path(path) -> str | None:
    """``.../release-1.24/README.md`` -> ``"1.24"``; None when the folder is not named like a release."""
    match = _FOLDER_VERSION.match(path.parent.name) if path.parent else None
    return f"{int(match.group(1))}.{int(match.group(2))}" if match else None
