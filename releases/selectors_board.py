"""Reads of the tracking board against the labels: where they tell different stories.

The enhancements handbook asks the team to keep the board, the `tracked/*` labels and the milestone consistent;
sigtracker takes the board's status (it wins) and lists here where the labels' last word, as the GitHub sync
recorded it, says otherwise (`releases.rules.board_labels_disagree`). Two queries whatever the board's size.
"""

import datetime
from dataclasses import dataclass

from django.db.models import OuterRef, Subquery

from .choices import EnhancementStatus, HistorySource
from .models import EnhancementStatusChange, Release, TrackedEnhancement
from .rules import board_labels_disagree, board_status


@dataclass(frozen=True)
class BoardLabelDisagreement:
    kep_number: int
    kep_title: str
    issue_url: str
    board: str  # the board's Status as written
    labels: str  # the status the labels and milestone imply, in words
    since: datetime.datetime | None  # since both said what they say


def _latest(source: str, column: str):
    return Subquery(
        EnhancementStatusChange.objects.filter(tracked_enhancement=OuterRef("pk"), source=source)
        .order_by("-changed_at", "-pk")
        .values(column)[:1]
    )


def board_label_disagreements(*, release: Release) -> list[BoardLabelDisagreement]:
    """Rows of `release` whose board status and labels disagree, by KEP number."""
    rows = (
        # Only the tracking board writes `board_status`, and it leaves KEP-less rows alone.
        TrackedEnhancement.objects.filter(release=release, kep__isnull=False)
        .exclude(board_status="")
        .annotate(
            label_status=_latest(HistorySource.GITHUB, "to_status"),
            label_at=_latest(HistorySource.GITHUB, "changed_at"),
            board_at=_latest(HistorySource.BOARD, "changed_at"),
        )
        .select_related("kep")
        .order_by("kep__number")
    )
    labels = dict(EnhancementStatus.choices)
    found = []
    for row in rows:
        board = board_status(row.board_status) or ""
        if not board_labels_disagree(board=board, labels=row.label_status or ""):
            continue
        instants = [at for at in (row.label_at, row.board_at) if at is not None]
        found.append(
            BoardLabelDisagreement(
                kep_number=row.kep.number,
                kep_title=row.kep.title,
                issue_url=row.github_issue_url,
                board=row.board_status,
                labels=labels.get(row.label_status, row.label_status),
                since=max(instants) if instants else None,
            )
        )
    return found
