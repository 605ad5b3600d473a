"""A tracked KEP's PRR status for its release, as every page, email and the API show it (`rules.prr_status`): the
board's where it says something, else what the KEP's prod-readiness file says for the row's target stage.

`with_prr` annotates a queryset of tracked enhancements with the file's approver for that stage (one subquery,
no query per row); `prr_of` and `prr_approver_of` read a row so annotated.
"""

from django.db.models import Case, F, OuterRef, QuerySet, Subquery, When

from keps.models import PrrApproval

from .choices import PrrStatus
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
