"""What a reminder says, before it is an email or a Slack message: each KEP as an entry, grouped by what it still
needs; each freeze with its times and requirements; the board as of the instant, read once per batch; and the whole
context of a SIG digest (`digest_context`), which both channels render."""

import datetime
from collections import defaultdict

from django.db.models import F
from django.urls import reverse

from community.models import Sig
from core.text import one_line
from planning.selectors_reminders import plan_gap_owners, plan_gaps
from releases.choices import EnhancementStatus, ExceptionDecision
from releases.models import EnhancementException
from releases.rules import AT_RISK_STATUSES, MILESTONE_FREEZE, OUT_OF_PLAY, REQUIREMENTS
from releases.selectors_published import release_enhancements_lead
from retros.selectors import is_overdue, open_action_items

from .due import Anchor, DueReminder, board_at, due_order, is_ready, people_of
from .wording import ROLE_LABELS, and_list, base_url, freeze_name, headline_of, needs_of, quoted_times, role_order


def kep_entry(row) -> dict:
    status = row.status_then
    return {
        "row": row.pk,
        "number": row.kep.number,
        "title": row.kep.title,
        "sig": row.sig.slug,
        "status": EnhancementStatus(status).label,
        "at_risk": status in AT_RISK_STATUSES,
        "out": status in OUT_OF_PLAY,
        "done": status == EnhancementStatus.DONE,
        "needs": [],
        "roles": set(),
        "url": base_url() + reverse("keps:kep_detail", kwargs={"number": row.kep.number}),
        "stage": row.get_target_stage_display(),
    }


def _sort_key(entry: dict):
    # At risk first, then everything else still in play, then what is done, then what left the release.
    return (0 if entry["at_risk"] else 3 if entry["out"] else 2 if entry["done"] else 1, entry["number"])


def kep_blocks(entries: list[dict], *, ready_title: str) -> list[dict]:
    """The KEPs grouped by what they still need: one block per distinct need (blocks holding a KEP at risk
    first), then those ready, done, and no longer in the release. A need is said once, above its KEPs."""
    needing: dict[tuple, list[dict]] = {}
    ready, done, out = [], [], []
    for entry in sorted(entries, key=_sort_key):
        if entry["out"]:
            out.append(entry)
        elif entry["needs"]:
            needing.setdefault(tuple(entry["needs"]), []).append(entry)
        else:
            (done if entry["done"] else ready).append(entry)
    blocks = [
        {"title": "Still needs", "needs": list(needs), "keps": keps, "at_risk": any(k["at_risk"] for k in keps)}
        for needs, keps in needing.items()
    ]
    blocks.sort(key=lambda block: not block["at_risk"])  # stable: otherwise in order of their first KEP
    for title, keps in ((ready_title, ready), ("Done", done), ("No longer in this release", out)):
        if keps:
            blocks.append({"title": title, "needs": [], "keps": keps, "at_risk": False})
    for block in blocks:
        for entry in block["keps"]:
            entry["roles"] = ", ".join(ROLE_LABELS[r] for r in sorted(entry["roles"]))
            # "At risk" is said of a KEP not ready for these freezes: one ready for them (at risk only for a later
            # freeze) is not listed as "Ready — AT RISK".
            entry["at_risk"] = entry["at_risk"] and bool(entry["needs"])
    return blocks


def _freeze_context(due: DueReminder) -> dict:
    milestone = due.milestone
    return {
        "milestone": milestone,
        "name": freeze_name(milestone),
        "version": milestone.release.version,
        "exception_close": due.anchor == Anchor.EXCEPTION_CLOSE,
        "when": quoted_times(due.anchor_at, milestone),
        "freeze_when": quoted_times(milestone.at, milestone),
        "requirements": list(REQUIREMENTS[milestone.kind]),
    }


def common_context(dues: list[DueReminder]) -> dict:
    releases = list({due.milestone.release_id: due.milestone.release for due in dues}.values())
    return {
        "release": releases[0],
        "versions": and_list([f"v{release.version}" for release in releases]),
        "headline": headline_of(dues),
        "freezes": [_freeze_context(due) for due in dues],
        "several": len(dues) > 1,
        "release_urls": [(f"v{r.version}", base_url() + r.get_absolute_url()) for r in releases],
        "base_url": base_url(),
        # Signed by the cycle's enhancements lead, naming a shadow (the enhancements contacts) to ask, when the
        # release's roster is imported.
        **dict(zip(("signer", "contacts"), release_enhancements_lead(release_id=releases[0].pk), strict=True)),
    }


def load_board(*, due: DueReminder, as_of: datetime.datetime) -> list:
    """The rows of the SIGs sending `due`, as the board stood at `as_of`, with KEPs, SIGs and people
    loaded: one query plus one for authors, shared by every email of a batch."""
    return list(
        board_at(release_id=due.milestone.release_id, as_of=as_of, sig_ids=due.sig_ids)
        .select_related("kep", "sig", "assignee", "enhancements_contact")
        .prefetch_related("kep__authors", "sig__leaderships__person")
        .order_by("kep__number")
    )


def people_index(rows: list) -> dict[str, dict[int, set[str]]]:
    """email (lower case) -> {row id: that person's roles on it}, built once per board."""
    index: dict[str, dict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for row in rows:
        for person, role in people_of(row):
            if person.email:
                index[person.email.lower()][row.pk].add(role)
    return index


def board_of(boards: dict | None, due: DueReminder, as_of: datetime.datetime) -> tuple[list, dict]:
    """The board of `due` and its people index, from `boards` (a cache shared by a batch) when given."""
    boards = {} if boards is None else boards
    key = (due.milestone.release_id, tuple(sorted(due.sig_ids)), as_of)
    if key not in boards:
        rows = load_board(due=due, as_of=as_of)
        boards[key] = (rows, people_index(rows))
    return boards[key]


def as_due_list(dues) -> list[DueReminder]:
    dues = [dues] if isinstance(dues, DueReminder) else list(dues)
    return sorted(dues, key=due_order)


def _digest_sigs(dues: list[DueReminder], *, recipient: str, sig_ids: list[int] | None) -> dict[int, list[int]]:
    """id(due) -> the SIGs of that reminder the digest is for: those in `sig_ids` (a Slack channel's SIG), else those
    whose mailing list is `recipient`."""
    wanted = set(sig_ids) if sig_ids is not None else None
    sigs_of: dict[int, list[int]] = {}
    for due in dues:
        sigs = Sig.objects.filter(pk__in=due.sig_ids)
        sigs_of[id(due)] = [
            sig.pk
            for sig in sigs
            if (sig.pk in wanted if wanted is not None else sig.mailing_list.lower() == recipient.lower())
        ]
    return sigs_of


def _digest_entries(dues: list[DueReminder], sigs_of: dict[int, list[int]], *, as_of, boards) -> list[dict]:
    """One entry per KEP of the digest's SIGs on the board, with what it still needs for each of the freezes."""
    entries: dict[int, dict] = {}
    for due in dues:
        rows, _people = board_of(boards, due, as_of)
        level = MILESTONE_FREEZE[due.milestone.kind]
        for row in rows:
            if row.sig_id not in sigs_of[id(due)]:
                continue
            entry = entries.setdefault(row.pk, kep_entry(row))
            if row.status_then not in OUT_OF_PLAY and not is_ready(row, level, due.anchor):
                need = needs_of(row.status_then, due)
                if need not in entry["needs"]:
                    entry["needs"].append(need)
    return list(entries.values())


def _earliest(releases) -> object:
    return min(releases, key=lambda release: (release.major, release.minor))


def _open_items(*, releases: list, sig_ids: list[int]) -> tuple:
    """The retro action items of these SIGs still open, split into those due in these releases and those overdue
    (due in an earlier release), and their exception requests still waiting for the release team (earliest
    deadline first)."""
    items = open_action_items(sig_ids=sig_ids)
    release_ids = {release.pk for release in releases}
    actions = [item for item in items if item.due_release_id in release_ids]
    overdue = [item for item in items if is_overdue(item, _earliest(releases))]
    pending_exceptions = (
        EnhancementException.objects.filter(
            decision=ExceptionDecision.PENDING,
            tracked_enhancement__release__in=release_ids,
            tracked_enhancement__sig__in=sig_ids,
            tracked_enhancement__kep__isnull=False,
        )
        .select_related("tracked_enhancement__kep", "tracked_enhancement__sig")
        .order_by(F("deadline").asc(nulls_last=True), "requested_at", "pk")
    )
    return actions, overdue, pending_exceptions


def board_url(item) -> str:
    """The absolute link of the retro board an action item was made on."""
    retro = item.retrospective
    return base_url() + reverse("retros:board", kwargs={"version": retro.release.version, "sig_slug": retro.sig.slug})


def personal_extras(*, dues: list[DueReminder], recipient: str, as_of: datetime.datetime, boards: dict | None) -> tuple:
    """What a personal note says besides the KEPs on the board, at a freeze's own reminders: the committed KEPs of
    the reminders' SIGs with a plan gap that concern `recipient` (until the PRR freeze), as {"gap", "roles"}; and
    their open retro action items `recipient` owns, as {"item", "overdue", "board_url"}. Read once per batch
    (`boards` caches them beside the boards)."""
    boards = {} if boards is None else boards
    address = recipient.lower()
    plan: dict[tuple, dict] = {}
    actions: dict[int, dict] = {}
    freezes = [due for due in dues if due.anchor == Anchor.FREEZE]
    for due in freezes:
        release = due.milestone.release
        key = ("plan", release.pk, tuple(sorted(due.sig_ids)), as_of)
        if key not in boards:
            boards[key] = plan_gap_owners(release=release, sig_ids=due.sig_ids, as_of=as_of, base_url=base_url())
        for owned in boards[key]:
            roles = {role for person, role in owned.people if person.email and person.email.lower() == address}
            if roles:
                entry = plan.setdefault((owned.gap.sig, owned.gap.number), {"gap": owned.gap, "roles": set()})
                entry["roles"] |= roles
        key = ("actions", tuple(sorted(due.sig_ids)))
        if key not in boards:
            boards[key] = open_action_items(sig_ids=due.sig_ids, owned=True)
        for item in boards[key]:
            if item.owner.email and item.owner.email.lower() == address:
                actions[item.pk] = {"item": item, "overdue": is_overdue(item, release), "board_url": board_url(item)}
    for entry in plan.values():
        entry["roles_label"] = ", ".join(ROLE_LABELS[role] for role in sorted(entry["roles"], key=role_order))
    return list(plan.values()), list(actions.values())


def digest_context(
    *, dues, recipient: str, as_of: datetime.datetime, sig_ids: list[int] | None = None, boards: dict | None = None
) -> dict | None:
    """What the digest to one mailing list (or one SIG's Slack channel) says for the reminders `dues` (one, or
    several falling at the same instant): each freeze with its time and requirements, the KEPs of the list's SIGs
    grouped by what they still need (at risk first), the retro action items due in the release that are still
    open, and those still open that were due in an earlier release (overdue). `sig_ids` defaults to the SIGs whose
    mailing list is `recipient`; None when no SIG of the reminders is left on that list."""
    dues = as_due_list(dues)
    sigs_of = _digest_sigs(dues, recipient=recipient, sig_ids=sig_ids)
    all_sig_ids = sorted({pk for pks in sigs_of.values() for pk in pks})
    if not all_sig_ids:
        return None
    sigs = list(Sig.objects.filter(pk__in=all_sig_ids).order_by("slug"))
    keps = _digest_entries(dues, sigs_of, as_of=as_of, boards=boards)
    releases = list({due.milestone.release_id: due.milestone.release for due in dues}.values())
    actions, overdue, pending_exceptions = _open_items(releases=releases, sig_ids=all_sig_ids)
    blocks = kep_blocks(keps, ready_title="Ready")
    plan = []
    for release in releases:
        plan += plan_gaps(release=release, sig_ids=all_sig_ids, as_of=as_of, base_url=base_url())
    at_risk = sum(1 for k in keps if k["at_risk"])
    not_ready = sum(1 for k in keps if k["needs"])
    context = common_context(dues)
    context.update(
        pending_exceptions=pending_exceptions,
        sigs=sigs,
        sig_names=", ".join(sig.slug for sig in sigs),
        recipient=recipient,
        blocks=blocks,
        at_risk=at_risk,
        not_ready=not_ready,
        in_play=sum(1 for k in keps if not k["out"]),
        actions=actions,
        overdue_actions=overdue,
        overdue_before=f"v{_earliest(releases).version}",
        plan_gaps=plan,
    )
    subject = "[" + ", ".join(sig.slug for sig in sigs) + "] " + context["headline"]
    if not_ready:
        subject += f": {not_ready} KEP{'s' if not_ready != 1 else ''} not ready"
    context["subject"] = one_line(subject)
    return context
