"""Parse a SIG's yearly meeting-note archive (kubernetes/community `sig-*/archive/meeting-notes-YYYY.md`).

Pure functions: text (and the file's name) in, plain dataclasses out, `ImportFailure` for a file that cannot be
imported at all. No Django ORM here, so every rule is testable without a database. The archives are Google Docs
exported to Markdown over ten years by many hands; each way they stray is handled by exactly one rule, listed in
the docstring of the module that holds it:

* `parse`: the whole file (`parse_meeting_notes`): years, several days in one heading, duplicate dates, which
  lines give a meeting's PR flow, bad input.
* `headings`: meeting headings (`parse_heading`) and their dates (`match_date`, `year_from_filename`).
* `retro`: a release retrospective held or quoted in an agenda item: tallies, went-well / to-improve / action
  lists.
* `retro_tables`: a retrospective's KEP tables ("Done (6):", "Removed from Milestone (17):").
* `agenda`: a meeting's lines split into agenda items (`split_items`), each item's title, body and releases.
* `retro_headers`: the retro an item's title names (`retro_release_of`) and the headings of its lists, which the
  agenda split needs to keep a flattened retro list inside its item.
* `flow`: the week's PR figures (`pr_flow`) and the recording link.
* `cancellation`: a note that the meeting did not take place (`is_cancellation`).
* `presenters`: who presents an item (`split_presenters`) or owns an action item (`owner_of`).
* `references`: KEPs, GitHub issues and PRs, Kubernetes releases an item's text names (`kep_refs`, `item_links`,
  `release_mentions`).
* `structure`: bullets, and the HTML tables and code fences inside which no line is a heading or an item.
* `inline`: one line of Markdown/HTML as plain text (`clean_inline`).
* `records`: the dataclasses the parser returns and the limits on their numbers and texts.

A module imports only modules listed below it, so each part reads without the parts above it. The names other
code uses are re-exported here: callers import from `meetings.importers.notes` alone.
"""

from community.importers.people import PresenterRef
from retros.records import KepRowRecord, RetroEntryRecord, RetroRecord

from .agenda import item_releases, split_items
from .cancellation import is_cancellation
from .flow import pr_flow
from .headings import DateMatch, Heading, match_date, parse_heading, year_from_filename
from .inline import clean_inline
from .parse import parse_meeting_notes
from .presenters import owner_of, split_presenters, split_trailing_presenters
from .records import (
    MAX_INT,
    MEETING_TITLE_MAX,
    PRESENTERS_MAX,
    TITLE_MAX,
    URL_MAX,
    AgendaItemRecord,
    MeetingRecord,
    NotesRecord,
)
from .references import item_links, kep_refs, release_mentions
from .retro import action_status
from .retro_headers import retro_release_of

__all__ = [
    "MAX_INT",
    "MEETING_TITLE_MAX",
    "PRESENTERS_MAX",
    "TITLE_MAX",
    "URL_MAX",
    "AgendaItemRecord",
    "DateMatch",
    "Heading",
    "KepRowRecord",
    "MeetingRecord",
    "NotesRecord",
    "PresenterRef",
    "RetroEntryRecord",
    "RetroRecord",
    "action_status",
    "clean_inline",
    "is_cancellation",
    "item_links",
    "item_releases",
    "kep_refs",
    "match_date",
    "owner_of",
    "parse_heading",
    "parse_meeting_notes",
    "pr_flow",
    "release_mentions",
    "retro_release_of",
    "split_items",
    "split_presenters",
    "split_trailing_presenters",
    "year_from_filename",
]
