"""A tracked KEP's PRR status for its release, as every page, email and the API show it (`rules.prr_status`): the
board's where it says something, else what the KEP's prod-readiness file says for the row's target stage.

`with_prr` annotates a queryset of tracked enhancements with the file's approver for that stage (one subquery,
no query per row); `prr_of` and `prr_approver_of` read a row so annotated.
"""

from django.db.models import Case, F, OuterRef, QuerySet, Subquery, When

from keps.models import PrrApproval

from .choices import DocsStatus, PrrStatus, TrackedSource
from .rules import prr_status


def with_prr(queryset: QuerySet) -> QuerySet:
    """Annotate `prr_stage` (the row's target stage, else the KEP's) and `prr_file_approver` (the GitHub handle the
    KEP's prod-readiness file names for that stage; None without one)."""
    stage = Case(When(target_stage="", then=F("kep__stage")), default=F("target_stage"))
    approvals = PrrApproval.objects.filter(kep=OuterRef("kep_id"), stage=OuterRef("prr_stage")).order_by()
    return queryset.annotate(prr_stage=stage).annotate(
        prr_file_approver=Subquery(approvals.values("approver__github")[:1])
    )


def prr_of(row) -> str:
    """The row's PRR status by the rule (needs `with_prr`; without it, the board's alone)."""
    return prr_status(board_status=row.prr_status, file_approver=getattr(row, "prr_file_approver", None) or "")


def prr_approver_of(row) -> str:
    """Who approved the row's PRR: the board's approver, else the file's when the rule says approved; "" if none.
    Reads `row.prr_approver` only when the row has one (select it with the row)."""
    if row.prr_approver_id:
        return row.prr_approver.github
    return (getattr(row, "prr_file_approver", None) or "") if prr_of(row) == PrrStatus.APPROVED else ""


def prr_is_todays(row, *, release_over: bool) -> bool:
    """Whether the row's PRR status and approver come from today's prod-readiness file rather than from the
    release's own record: nothing on the board (no status past "not started", no approver) and the release over.
    The files' history is not kept here, so an approval shown for a past release is today's, and says so (v1.24's
    KEP-127 had no kep.yaml then, yet today's file names @wojtek-t)."""
    return (
        release_over
        and not row.prr_approver_id
        and row.prr_status == PrrStatus.NOT_STARTED
        and bool(getattr(row, "prr_file_approver", None))
    )


#: Rows whose origin records the docs column (the board, or a curator's edits); meeting notes, feature sheets and
#: exception files say nothing about docs.
_DOCS_RECORDED_BY = (TrackedSource.SYNC, TrackedSource.ADMIN)


def docs_recorded(row) -> bool:
    """Whether anything about the row's docs is recorded: a docs status or PR, or an origin that records docs."""
    return row.docs_status != DocsStatus.NONE or bool(row.docs_pr_link_list) or row.source in _DOCS_RECORDED_BY
