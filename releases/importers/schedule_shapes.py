"""The shapes sig-release READMEs state dates in: tables, dated bullets, headings over bullets, the tl;dr sentence."""

import re
import unicodedata

from core.importing import ImportFailure
from releases.choices import MilestoneKind

from . import schedule_time as st
from .schedule_labels import classify, display_label
from .schedule_records import (
    _BULLET,
    _BULLET_START,
    _DOCUMENT_WORDS,
    _FRONT_TITLE,
    _H1,
    _HEADING,
    _LIST_ITEM,
    _MONTH_HEADER,
    _NAMED,
    _SENTENCE_END,
    _TABLE_SEPARATOR,
    _TLDR,
    _VERSION_IN_TEXT,
    SOURCE_TEXT_MAX,
    MilestoneData,
    ScheduleWarning,
    _Entry,
)

# -- reading the file --------------------------------------------------------------------------------------------


def _title_and_version(lines: list[str], version_hint: str | None) -> tuple[str, str, str, list[ScheduleWarning]]:
    """(version, name, title) from the folder name and the first `#` heading (or the front matter's title)."""
    warnings = []
    title, title_line, front_title = "", None, ""
    in_front = bool(lines) and lines[0].strip() == "---"
    for number, line in enumerate(lines, 1):
        if in_front:
            if number > 1 and line.strip() == "---":
                in_front = False
            elif match := _FRONT_TITLE.match(line):
                front_title = match.group("title")
            continue
        if match := _H1.match(line):
            title, title_line = st.clean_markdown(match.group("title")), number
            break
    found = _VERSION_IN_TEXT.search(title) or _VERSION_IN_TEXT.search(front_title)
    title_version = f"{found.group(1)}.{int(found.group(2))}" if found else None
    version = version_hint or title_version
    if not version:
        raise ImportFailure("no release version: neither the folder name (release-1.NN) nor the title gives one")
    if version_hint and title_version and title_version != version_hint:
        warnings.append(
            ScheduleWarning(title_line, f"title says {title_version} but the folder is release-{version_hint}")
        )
    name = ""
    if title:
        match = _VERSION_IN_TEXT.search(title)
        parts = [title[: match.start()], title[match.end() :]] if match else [title]
        parts = [part.strip(" :-,") for part in parts]
        parts = [
            part
            for part in parts
            if part and part.lower() not in ("kubernetes", "k8s", "release") and not _DOCUMENT_WORDS.search(part)
        ]
        name = ": ".join(parts)
        name = re.sub(r"\s*release information$", "", name, flags=re.IGNORECASE)
        name = _strip_symbols(name)
    if not name:
        text = "\n".join(lines)
        if match := _NAMED.search(text):
            name = match.group("name").strip()
    return version, name[:100], title, warnings


def _strip_symbols(text: str) -> str:
    """A release name without decoration: emoji and other pictographs go, words stay.

    release-1.29: ``# Kubernetes 1.29: Mandala (The Universe) ✨🌌`` is named "Mandala (The Universe)". Symbols
    (Unicode categories So and Sk, which hold emoji and their skin-tone modifiers), emoji variation
    selectors and joiners are dropped; letters in any script are kept.
    """
    kept = "".join(
        char for char in text if unicodedata.category(char) not in ("So", "Sk") and char not in "\ufe0e\ufe0f\u200d"
    )
    return re.sub(r"\s+", " ", kept).strip(" :-,")


def _split_row(line: str) -> list[str]:
    line = line.strip().replace("\\|", "\u2016")
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [cell.replace("\u2016", "|").strip() for cell in line.split("|")]


def _table_rows(lines: list[str]):
    """Yield (line number, what, when) for every row of every timeline table in the file."""
    index = 0
    while index < len(lines) - 1:
        line = lines[index]
        if not (line.lstrip().startswith("|") and _TABLE_SEPARATOR.match(lines[index + 1])):
            index += 1
            continue
        header = [st.clean_markdown(cell).lower() for cell in _split_row(line)]
        when_col = next((i for i, cell in enumerate(header) if "when" in cell or cell == "date"), None)
        month_cols = {i: cell for i, cell in enumerate(header) if _MONTH_HEADER.match(cell)}
        # The "What" column, else the first column that is not a date column.
        what_col = next(
            (i for i, cell in enumerate(header) if re.search(r"\b(what|event|milestone)\b", cell)),
            next((i for i in range(len(header)) if i != when_col and i not in month_cols), 0),
        )
        index += 2
        while index < len(lines) and lines[index].lstrip().startswith("|"):
            cells = _split_row(lines[index])
            what = cells[what_col] if what_col < len(cells) else ""
            when = ""
            if when_col is not None and when_col < len(cells):
                when = cells[when_col]
            elif month_cols:
                # Old layout (1.18 and before): the day sits in its month's column, e.g. "Tue 28" under "Jan".
                for col, month in month_cols.items():
                    if col < len(cells) and cells[col].strip():
                        when = f"{cells[col]} {month}"
                        break
            if what and (when_col is not None or month_cols):
                yield index + 1, what, when
            index += 1


def _bullets(lines: list[str]):
    """Yield (line number, when, what) for every summary bullet that starts with a bold date."""
    for number, line in enumerate(lines, 1):
        if not _BULLET_START.match(line):
            continue
        # A bullet may wrap onto indented lines (release-1.34: "- **Thursday 12th June 2025**:\n  Week 4 — ...").
        for follow in [] if _BULLET.match(line) else lines[number : number + 3]:
            if not follow.strip() or not follow[:1].isspace() or _BULLET_START.match(follow):
                break
            line = f"{line.rstrip()} {follow.strip()}"
        if match := _BULLET.match(line):
            yield number, match.group("when"), match.group("what")


def _plain(line: str) -> str:
    """A list item's or heading's text without Markdown emphasis or links."""
    return st.clean_markdown(line)


def _dated_bullets(lines: list[str], taken: set[int]):
    """Yield (line number, when, what) for bullets that start with a plain date (releases 1.5-1.9).

    ``- Aug 1 (Tues): Feature Freeze``, ``* **Fri Oct 27: [Feature Freeze](#feature-freeze)**``; a bullet that is a
    date alone takes the words of the first more-indented item below it (``- [x] **Monday, November 7, 2016**`` /
    ``  - Feature Complete Date``). Lines in `taken` (read as bold-date bullets already) are left out.
    """
    for number, line in enumerate(lines, 1):
        if number in taken or not (item := _LIST_ITEM.match(line)):
            continue
        found = st.leading_date(_plain(item.group("text")))
        if not found:
            continue
        when, what = found
        if not what:
            depth = len(item.group("indent").expandtabs())
            for follow in lines[number : number + 3]:
                child = _LIST_ITEM.match(follow)
                if child and len(child.group("indent").expandtabs()) > depth:
                    what = _plain(child.group("text"))
                break
        if what:
            yield number, when, what


def _heading_bullets(lines: list[str], taken: set[int]):
    """Yield (line number, when, what) for undated bullets under a dated heading (release-1.3, 2016:
    ``###Jun 20 - Jun 24`` over ``- release 1.3 Final``): such a bullet happens in its heading's week, which is
    dated by its first day. Only top-level bullets count; a bullet with a date of its own is read by
    `_dated_bullets`."""
    heading_date = None
    for number, line in enumerate(lines, 1):
        if heading := _HEADING.match(line):
            found = st.leading_date(_plain(heading.group("text")))
            heading_date = found[0] if found else None
            continue
        item = _LIST_ITEM.match(line)
        if heading_date is None or not item or item.group("indent") or number in taken:
            continue
        text = _plain(item.group("text"))
        if st.leading_date(text):
            continue
        # "Release 1.4 on Sept 20", "Feature Complete due end of day May 20 (slipped ... to May 23)": a date in
        # the bullet's words is its own (the last one: a slip names the new date after the old).
        inside = st.dates_in_text(text)
        if inside:
            a, b = inside[-1]
            words = re.sub(r"\s+(?:on|by|at)$", "", text[:a].rstrip(" ,(")) + " " + text[b:].lstrip(" ,)")
            yield number, text[a:b], words.strip()
        else:
            yield number, heading_date, text


def _other_release_sections(lines: list[str], version: str) -> set[int]:
    """Line numbers under a heading that names another release than `version` (up to the next heading)."""
    inside, found = False, set()
    for number, line in enumerate(lines, 1):
        if heading := _HEADING.match(line):
            named = _VERSION_IN_TEXT.search(_plain(heading.group("text")))
            inside = bool(named and f"{named.group(1)}.{int(named.group(2))}" != version)
        elif inside:
            found.add(number)
    return found


def _tldr(lines: list[str]):
    """Yield (line number, when, what, struck) for each date of the "tl;dr" paragraph (releases 1.10-1.13, 2018).

    The words of a date are those since the previous date or the start of its sentence ("Feature freeze is",
    "and ends on release day,"). Struck-through text is dropped first: a struck date was moved, and the date
    after it is the one that holds; `struck` lists what was struck before this date, for the report.
    """
    start = next((i for i, line in enumerate(lines) if _TLDR.search(line)), None)
    if start is None:
        return
    end = start
    # The paragraph ends at a blank line, a heading or a list: from 1.14 on, "## tl;dr" heads a sentence ending in
    # "as follows:" over bold-date bullets, which are the summary list's and are read as such (`_bullets`); read
    # as one run of prose, each bullet's date would take the words of the bullet before it.
    while (
        end + 1 < len(lines)
        and lines[end + 1].strip()
        and not _HEADING.match(lines[end + 1])
        and not _LIST_ITEM.match(lines[end + 1])
    ):
        end += 1
    paragraph = " ".join(line.strip() for line in lines[start : end + 1])
    paragraph = _TLDR.sub(" ", paragraph)
    # Struck parts become a marker that no date pattern reads, so that their place is still known.
    paragraph, struck = st.strike_out(paragraph, marker="\ufffc")
    previous = 0
    for a, b in st.dates_in_text(paragraph):
        before = paragraph[previous:a]
        moved = [struck.pop(0) for _ in range(before.count("\ufffc")) if struck]
        before = before.replace("\ufffc", " ")
        sentence = _SENTENCE_END.split(before)[-1] if before.strip() else before
        previous = b
        yield start + 1, paragraph[a:b], st.clean_markdown(sentence), moved


def _read_entry(number, origin, what_text, when_text, wording, warnings, version=None) -> _Entry | None:
    kinds, exception_for = classify(what_text, version=version)
    if not kinds and not exception_for:
        return None
    try:
        when = st.parse_when(when_text)
    except ImportFailure as failure:
        failure.line = number
        failure.field = failure.field or "date"
        raise
    label = display_label(what_text) or st.clean_markdown(what_text)[:200]
    if when is None:
        if any(kind != MilestoneKind.OTHER for kind in kinds):
            warnings.append(
                ScheduleWarning(
                    number, f"{label!r} has no date ({st.clean_markdown(when_text) or 'empty'}); not imported"
                )
            )
        return None
    return _Entry(
        line=number,
        origin=origin,
        what=what_text,
        wording=wording[:SOURCE_TEXT_MAX],
        when=when,
        # "Code Freeze and Test Freeze" becomes two milestones, each under its own kind's name.
        kinds=[(kind, label if len(kinds) == 1 else str(MilestoneKind(kind).label)) for kind in kinds],
        exception_for=exception_for,
    )


def _merge(found: MilestoneData, other: MilestoneData, warnings: list[ScheduleWarning]) -> MilestoneData:
    """One milestone from a list entry and a table row (or two rows) naming the same thing.

    Preference: a time over a bare date; then the entry whose halves agree; then the summary list.
    A real disagreement (two different times, or dates more than a day apart) is reported.
    """

    def rank(item: MilestoneData):
        return (item.all_day, item.disagreements, item.origin != "list", item.line)

    best, worse = sorted([found, other], key=rank)
    differs = (
        best.at != worse.at if not (best.all_day or worse.all_day) else abs((best.at.date() - worse.at.date()).days) > 1
    )
    if differs:
        warnings.append(
            ScheduleWarning(
                worse.line,
                f"{best.label!r}: line {best.line} says {best.at:%Y-%m-%d %H:%M} UTC, line {worse.line} says "
                f"{worse.at:%Y-%m-%d %H:%M} UTC; using line {best.line}",
            )
        )
    return best
