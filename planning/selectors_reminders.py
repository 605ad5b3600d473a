"""What a SIG's leads' digest says about their plan (read by `reminders.content`):

- until the release's PRR freeze, each KEP the leads committed here that is not on the release's board yet (the
  board takes only issues with the `lead-opted-in` label, so: the label is missing) or has no PRR approver for its
  stage;
- after the enhancements freeze (end of freeze day, US Pacific), each KEP whose kep.yaml planned the release at
  the freeze (from the plan history) that the release team did not track (no row on the release's board).

Everything is read as of the digest's instant, so a replayed reminder says what it said then. A fixed number of
queries per SIG; the committed KEPs' lines also go, with each KEP's people (`plan_gap_owners`), into those
people's personal notes.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from community.models import Sig, SigLeadership
from github_sync.rules import OPT_IN_LABEL
from keps.models import Kep
from releases.choices import Freeze
from releases.models import Milestone, Release, TrackedEnhancement
from releases.rules import FREEZE_MILESTONE, end_of_day_pacific

from .choices import PlanDecisionKind
from .models import PlanCandidate, PlanDecision
from .planned import NOT_PLANNED_STATUSES, planned_in, plans_at
from .selectors import PRR_STAGE, history_covers


@dataclass(frozen=True)
class PlanGap:
    number: int
    title: str
    sig: str
    needs: str
    url: str


def _freeze_instant(release: Release, freeze: str) -> datetime.datetime | None:
    milestone = (
        Milestone.objects.filter(release=release, kind=FREEZE_MILESTONE[freeze], sig__isnull=True)
        .order_by("at")
        .first()
    )
    # The end of freeze day, US Pacific: the instant the plan's kep.yaml candidates are read at.
    return end_of_day_pacific(milestone.at, all_day=milestone.all_day) if milestone else None


def plan_gaps(*, release: Release, sig_ids, as_of: datetime.datetime, base_url: str = "") -> list[PlanGap]:
    """The plan lines of the digest for the SIGs `sig_ids` in `release` at `as_of`, by SIG then KEP."""
    gaps: list[PlanGap] = []
    prr_freeze = _freeze_instant(release, Freeze.PRR)
    enhancements_freeze = _freeze_instant(release, Freeze.ENHANCEMENTS)
    on_board = _on_board(release, as_of)
    committed: dict[str, list[PlanGap]] = {}
    if prr_freeze is not None and as_of < prr_freeze:
        for gap, _kep in _committed_gaps(
            release=release, sig_ids=sig_ids, as_of=as_of, on_board=on_board, base_url=base_url
        ):
            committed.setdefault(gap.sig, []).append(gap)
    for sig in Sig.objects.filter(pk__in=list(sig_ids)).order_by("slug"):
        gaps += committed.get(sig.slug, [])
        if enhancements_freeze is not None and as_of >= enhancements_freeze and history_covers(sig):
            url = _plan_url(base_url, release, sig.slug)
            planned = planned_in(
                plans_at(numbers=Kep.objects.filter(owning_sig=sig).values("number"), cutoff=enhancements_freeze),
                release.version,
            )
            counted = [number for number, change in planned.items() if change.status not in NOT_PLANNED_STATUSES]
            for kep in Kep.objects.filter(number__in=counted).exclude(pk__in=on_board).order_by("number"):
                needs = "planned in kep.yaml at the enhancements freeze, not tracked"
                gaps.append(PlanGap(kep.number, kep.title, sig.slug, needs, url))
    return gaps


@dataclass(frozen=True)
class OwnedPlanGap:
    """A committed KEP's gap with the people it concerns: (person, role) with role `author`, `assignee` or
    `contact` (of its row on the board, when it has one), `chair` or `tech_lead` (of the SIG whose plan it is)."""

    gap: PlanGap
    people: tuple


def plan_gap_owners(*, release: Release, sig_ids, as_of: datetime.datetime, base_url: str = "") -> list[OwnedPlanGap]:
    """Until the release's PRR freeze, the committed KEPs of the SIGs `sig_ids` with a gap (not on the board, or no
    PRR approver for the stage), each with its people: the same lines as the leads' digest (`plan_gaps`), for the
    personal notes. A fixed number of queries whatever the number of SIGs and KEPs; [] from the PRR freeze on."""
    prr_freeze = _freeze_instant(release, Freeze.PRR)
    if prr_freeze is None or as_of >= prr_freeze:
        return []
    found = _committed_gaps(
        release=release, sig_ids=sig_ids, as_of=as_of, on_board=_on_board(release, as_of), base_url=base_url
    )
    if not found:
        return []
    rows = {
        row.kep_id: row
        for row in TrackedEnhancement.objects.filter(
            release=release, kep_id__in=[kep.pk for _gap, kep in found], created_at__lte=as_of
        ).select_related("assignee", "enhancements_contact")
    }
    leaders: dict[str, list] = {}
    for leadership in SigLeadership.objects.filter(sig__slug__in={gap.sig for gap, _kep in found}).select_related(
        "person", "sig"
    ):
        leaders.setdefault(leadership.sig.slug, []).append((leadership.person, leadership.role))
    owned = []
    for gap, kep in found:
        people = [(person, "author") for person in kep.authors.all()]
        row = rows.get(kep.pk)
        if row is not None and row.assignee_id:
            people.append((row.assignee, "assignee"))
        if row is not None and row.enhancements_contact_id:
            people.append((row.enhancements_contact, "contact"))
        people += leaders.get(gap.sig, [])
        owned.append(OwnedPlanGap(gap, tuple(people)))
    return owned


def committed_sig_ids(*, release: Release, as_of: datetime.datetime) -> set[int]:
    """The SIGs whose leads have a KEP committed to `release` at `as_of` (current decision `commit`), while the
    PRR freeze is ahead: their leads' digests and their KEPs' owners have plan lines to read even when no row of
    theirs is on the board. Two queries; empty from the PRR freeze on."""
    prr_freeze = _freeze_instant(release, Freeze.PRR)
    if prr_freeze is None or as_of >= prr_freeze:
        return set()
    return {sig_id for (sig_id, _kep_id) in _committed(release=release, sig_ids=None, as_of=as_of)}


def _plan_url(base_url: str, release: Release, slug: str) -> str:
    return f"{base_url}/releases/{release.version}/plan/{slug}/"


def _on_board(release: Release, as_of) -> set[int]:
    return set(
        TrackedEnhancement.objects.filter(release=release, kep__isnull=False, created_at__lte=as_of).values_list(
            "kep_id", flat=True
        )
    )


def _committed(*, release: Release, sig_ids, as_of) -> set[tuple[int, int]]:
    """(SIG id, KEP id) of each KEP whose current decision in the SIG's plan at `as_of` is `commit`. One query."""
    decisions = PlanDecision.objects.filter(release=release.version, at__lte=as_of)
    if sig_ids is not None:
        decisions = decisions.filter(sig_id__in=list(sig_ids))
    current: dict[tuple[int, int], str] = {}
    for sig_id, kep_id, decision in decisions.order_by("at", "pk").values_list("sig_id", "kep_id", "decision"):
        current[(sig_id, kep_id)] = decision
    return {key for key, decision in current.items() if decision == PlanDecisionKind.COMMIT}


def _committed_gaps(*, release: Release, sig_ids, as_of, on_board: set[int], base_url: str) -> list[tuple]:
    """(gap, KEP with its authors loaded) for each committed KEP of these SIGs not on the board or without a PRR
    approver for its stage, by SIG then KEP. Five queries whatever the number of SIGs."""
    committed = _committed(release=release, sig_ids=sig_ids, as_of=as_of)
    if not committed:
        return []
    proposed = {
        (sig_id, kep_id): stage
        for sig_id, kep_id, stage in PlanCandidate.objects.filter(
            release=release.version, sig_id__in={s for s, _k in committed}, kep_id__in={k for _s, k in committed}
        ).values_list("sig_id", "kep_id", "stage")
    }
    keps = Kep.objects.filter(pk__in={k for _s, k in committed}).prefetch_related("prr_approvals", "authors")
    keps = {kep.pk: kep for kep in keps}
    slugs = dict(Sig.objects.filter(pk__in={s for s, _k in committed}).values_list("pk", "slug"))
    gaps = []
    for sig_id, kep_id in sorted(committed, key=lambda key: (slugs[key[0]], keps[key[1]].number)):
        kep = keps[kep_id]
        stage = proposed.get((sig_id, kep_id)) or kep.stage
        needs = []
        if kep.pk not in on_board:
            needs.append(f"the {OPT_IN_LABEL} label (not on the v{release.version} board)")
        prr_stage = PRR_STAGE.get(stage)
        if prr_stage and not any(approval.stage == prr_stage for approval in kep.prr_approvals.all()):
            needs.append(f"a PRR approver for {stage}")
        if needs:
            url = _plan_url(base_url, release, slugs[sig_id])
            gap = PlanGap(kep.number, kep.title, slugs[sig_id], "committed; needs " + " and ".join(needs), url)
            gaps.append((gap, kep))
    return gaps
