"""What the meetings add to lower apps' pages (core/panels.py; registered in SIGTRACKER_PAGE_PANELS)."""

from . import selectors as meeting_selectors


def kep_detail(*, kep, **_) -> dict:
    """A KEP's page: the newest agenda items that mention it, and how many there are."""
    mentions, mention_total = meeting_selectors.kep_mentions(kep=kep)
    return {"mentions": mentions, "mention_total": mention_total, "mentions_url": f"/meetings/?kep={kep.number}"}


def perma_beta_rows(*, rows, **_) -> None:
    """The perma-beta list's rows shown: authors, gates and the latest meeting mention of each KEP."""
    meeting_selectors.perma_beta_enrich(rows=[row for row in rows if not hasattr(row.kep, "last_mention_date")])


def home(*, now, **_) -> dict:
    """The home page: the most recent meeting held."""
    return {"latest_meeting": meeting_selectors.meeting_latest(on_or_before=now.date())}


def release_detail(*, start, end, **_) -> dict:
    """A release's page: the meetings held during its cycle."""
    meetings, meeting_total = meeting_selectors.meetings_between(start=start, end=end, limit=20)
    return {"meetings": meetings, "meeting_total": meeting_total}
