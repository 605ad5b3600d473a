"""What the meeting-notes parser returns: one record per archive file, per meeting and per agenda item, and the
limits their numbers and texts are held to."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field

from community.importers.people import PresenterRef
from retros.records import RetroRecord

#: Largest value a PositiveIntegerField holds on every database; larger numbers in the notes are typos.
MAX_INT = 2**31 - 1
TITLE_MAX = 500
MEETING_TITLE_MAX = 300
PRESENTERS_MAX = 300
URL_MAX = 500


@dataclass
class AgendaItemRecord:
    order: int
    title: str
    presenters_text: str
    presenters: tuple[PresenterRef, ...]
    body: str
    kep_numbers: tuple[int, ...]
    links: tuple[str, ...]
    releases: tuple[str, ...]
    line: int


@dataclass
class MeetingRecord:
    date: datetime.date
    title: str
    line: int
    cancelled: bool = False
    recording_url: str = ""
    open_prs: int | None = None
    prs_created: int | None = None
    prs_updated: int | None = None
    prs_closed: int | None = None
    prs_merged: int | None = None
    items: list[AgendaItemRecord] = field(default_factory=list)
    retros: list[RetroRecord] = field(default_factory=list)
    fingerprint: str = ""  # of the section it was read from ("" when merged from several: never skipped)


@dataclass
class NotesRecord:
    source: str
    meetings: list[MeetingRecord]
    warnings: list[str] = field(default_factory=list)
    #: (date, line) of the meetings whose section was left unparsed because its fingerprint was already known.
    unchanged: list[tuple[datetime.date, int]] = field(default_factory=list)
