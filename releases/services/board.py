"""Texts the enhancements team copies out of sigtracker: the weekly numbers the lead posts and the checklist
comment for a KEP's tracking issue. Pure functions over plain rows: the selectors
(`releases.selectors.release_board_counts`, `releases.selectors.checklist_facts`) read the database, these
only write text. Nothing is posted anywhere.

Shapes follow the release team's enhancements handbook (sig-release `release-team/role-handbooks/enhancements/`):
the weekly update is "Release Team Meeting Updates" (a Red / Yellow / Green status, then "KEPs by Stage" and
"KEPs by Status", as the board's insights give them); the checklist comment is the "Enhancements Freeze"
communication template, ❌ or ✅ depending on what is ticked.
"""

import datetime
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from releases.choices import EnhancementStatus, ExceptionDecision, Freeze, TargetStage
from releases.rules import PACIFIC, is_in_play, is_ready_for

RELEASE_PHASES_URL = "https://github.com/kubernetes/sig-release/blob/master/releases/release_phases.md"
EXCEPTIONS_URL = "https://github.com/kubernetes/sig-release/blob/master/releases/EXCEPTIONS.md"
KEP_TEMPLATE_URL = "https://github.com/kubernetes/enhancements/blob/master/keps/NNNN-kep-template/kep.yaml"
PRR_FILE_URL = "https://github.com/kubernetes/enhancements/blob/master/keps/prod-readiness/template/nnnn.yaml"
PRR_PROCESS_URL = (
    "https://github.com/kubernetes/community/blob/master/sig-architecture/production-readiness.md"
    "#submitting-a-kep-for-production-readiness-approval"
)
NO_STAGE = "No stage"

# -- the weekly numbers --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardCount:
    """How many rows of the board share a SIG, status and stage (one row of `release_board_counts`)."""

    sig: str
    status: str
    stage: str
    count: int


@dataclass
class Numbers:
    """Counts of one SIG's rows (or every SIG's): by status over all rows, by stage over the rows in play."""

    total: int = 0
    in_play: int = 0
    by_status: list[tuple[str, int]] = field(default_factory=list)
    by_stage: list[tuple[str, int]] = field(default_factory=list)


@dataclass
class WeeklyNumbers:
    overall: Numbers
    sigs: list[tuple[str, Numbers]]
    exceptions: list[tuple[str, int]] = field(default_factory=list)


def _numbers(rows: list[BoardCount]) -> Numbers:
    statuses, stages = Counter(), Counter()
    for row in rows:
        statuses[row.status] += row.count
        if is_in_play(row.status):
            stages[row.stage] += row.count
    stage_order = [*TargetStage.values, ""]
    return Numbers(
        total=sum(statuses.values()),
        in_play=sum(stages.values()),
        by_status=[(EnhancementStatus(s).label, statuses[s]) for s in EnhancementStatus.values if statuses[s]],
        by_stage=[(TargetStage(s).label if s else NO_STAGE, stages[s]) for s in stage_order if stages[s]],
    )


def weekly_numbers(*, counts: Iterable[BoardCount], exceptions: Iterable[tuple[str, int]] = ()) -> WeeklyNumbers:
    """Counts by status and by stage, overall and per SIG (SIGs by slug). By stage counts only the rows still in
    the release (`rules.is_in_play`), as the board's default view hides deferred and removed KEPs; by status
    counts every row. `exceptions` are (decision, count) pairs of exception requests."""
    counts = list(counts)
    per_sig = defaultdict(list)
    for row in counts:
        per_sig[row.sig].append(row)
    decided = dict(exceptions)
    return WeeklyNumbers(
        overall=_numbers(counts),
        sigs=[(sig, _numbers(per_sig[sig])) for sig in sorted(per_sig)],
        exceptions=[(d.label, decided[d]) for d in ExceptionDecision if decided.get(d)],
    )


def _table(title: str, pairs: list[tuple[str, int]]) -> list[str]:
    lines = [f"| {title} | KEPs |", "|---|---:|"]
    lines += [f"| {label} | {count} |" for label, count in pairs]
    return lines


def _inline(pairs: list[tuple[str, int]]) -> str:
    return ", ".join(f"{label} {count}" for label, count in pairs) or "—"


def weekly_update_markdown(*, version: str, numbers: WeeklyNumbers, as_of: datetime.date) -> str:
    """The enhancements part of the release team's weekly update, as Markdown to paste into the meeting notes.

    The status colour is the lead's call (the handbook: red when something major blocks tracking, yellow while
    outreach is in progress, green when every KEP has been communicated with): left for them to pick.
    """
    overall = numbers.overall
    lines = [
        f"### Enhancements update — v{version}, {as_of:%Y-%m-%d}",
        "",
        "**Status:** Green / Yellow / Red (pick one)",
        "",
        f"{overall.total} KEPs on the board, {overall.in_play} still in the release.",
        "",
        "**KEPs by Stage** (still in the release)",
        "",
        *_table("Stage", overall.by_stage or [(NO_STAGE, 0)]),
        "",
        "**KEPs by Status**",
        "",
        *_table("Status", overall.by_status),
    ]
    if numbers.exceptions:
        lines += ["", f"**Exception requests:** {_inline(numbers.exceptions)}"]
    lines += [
        "",
        "**By SIG**",
        "",
        "| SIG | KEPs | In the release | By stage | By status |",
        "|---|---:|---:|---|---|",
    ]
    lines += [
        f"| {sig} | {n.total} | {n.in_play} | {_inline(n.by_stage)} | {_inline(n.by_status)} |"
        for sig, n in numbers.sigs
    ]
    return "\n".join(lines) + "\n"


# -- the checklist comment -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChecklistFacts:
    """What sigtracker knows about one KEP tracked in one release (`releases.selectors.checklist_facts`)."""

    kep_number: int
    version: str
    owners: tuple[str, ...]  # GitHub handles of the KEP's authors
    stage: str  # the row's target stage, else the KEP's
    has_kep_yaml: bool  # imported from a kep.yaml (not a stub typed in by hand)
    kep_status: str
    latest_milestone: str
    prr_approver: str  # the PRR approver named for `stage` in the KEP's prod-readiness file; "" if none
    opted_in: bool  # in the release's milestone with `lead-opted-in` (on the board and still in play)
    docs_placeholder: bool
    freeze_at: datetime.datetime | None = None  # the release's enhancements freeze
    prr_approved: bool | None = None  # the PRR rule's answer (`rules.prr_status`); None: from `prr_approver` alone
    status: str = ""  # the row's stored board status; "" when not known


@dataclass(frozen=True)
class ChecklistItem:
    text: str
    done: bool
    todo: str  # what to do when not done, for "we would just need to update the following"
    required: bool = True  # counts for the enhancements freeze (the docs placeholder does not)


def checklist_items(facts: ChecklistFacts) -> list[ChecklistItem]:
    """The handbook's enhancements-freeze checklist, limited to what sigtracker can tell, each ticked or not."""
    milestone = f"v{facts.version}"
    stage = f"`{facts.stage}`" if facts.stage else "the target stage"
    latest = facts.latest_milestone == facts.version
    implementable = facts.kep_status in ("implementable", "implemented")
    return [
        ChecklistItem(
            f"The tracking issue is in the `{milestone}` milestone with the `lead-opted-in` label.",
            facts.opted_in,
            f"have the SIG lead opt in: add the `lead-opted-in` label and `/milestone {milestone}`",
        ),
        ChecklistItem(
            f"[kep.yaml]({KEP_TEMPLATE_URL}) is merged into the k/enhancements repo with the `stage` set"
            + (f" (`{facts.stage}`)." if facts.stage else "."),
            facts.has_kep_yaml and bool(facts.stage),
            "merge kep.yaml into k/enhancements with the `stage` set",
        ),
        ChecklistItem(
            f"KEP status is marked as `implementable` for `latest-milestone: {milestone}`.",
            facts.has_kep_yaml and latest and implementable,
            f"set `status: implementable` and `latest-milestone: {milestone}` in kep.yaml",
        ),
        ChecklistItem(
            f"KEP has a production readiness review that has been completed and merged into k/enhancements "
            f"(a [PRR approval file]({PRR_FILE_URL}) with the PRR approver listed for {stage}"
            + (f": @{facts.prr_approver})." if facts.prr_approver else ")."),
            bool(facts.prr_approver) if facts.prr_approved is None else facts.prr_approved,
            f"get the production readiness review for {stage} approved and merged ([process]({PRR_PROCESS_URL}))",
        ),
        ChecklistItem(
            "A docs placeholder PR is open in kubernetes/website (for the release docs team).",
            facts.docs_placeholder,
            "open a docs placeholder PR in kubernetes/website",
            required=False,
        ),
    ]


def freeze_when(at: datetime.datetime) -> str:
    """An instant as the release team quotes it: UTC, then US Pacific ("02:00 UTC Friday 4 February 2022 /
    18:00 PST Thursday 3 February 2022")."""
    utc, pacific = at.astimezone(datetime.UTC), at.astimezone(PACIFIC)
    return (
        f"{utc:%H:%M} UTC {utc:%A} {utc.day} {utc:%B %Y} / "
        f"{pacific:%H:%M} {pacific.tzname()} {pacific:%A} {pacific.day} {pacific:%B %Y}"
    )


def checklist_comment(facts: ChecklistFacts) -> str:
    """The enhancements team's comment for the KEP's tracking issue: the handbook's enhancements-freeze template
    with each item sigtracker can check ticked or not, the ✅ wording when every required item is ticked and the
    ❌ wording (with what is left to do) otherwise. Markdown, to copy; nothing is posted."""
    items = checklist_items(facts)
    ready = all(item.done for item in items if item.required)
    # The board's stored status is what the release team decided: a KEP they marked tracked (or beyond) is not
    # called "at risk" because a file sigtracker reads says otherwise, and one at risk is not called tracked.
    marked_ready = is_in_play(facts.status) and is_ready_for(facts.status, Freeze.ENHANCEMENTS)
    if facts.status:
        # Ready: the board says so, or every item is ticked on a KEP still in the release (to be marked now).
        ready = marked_ready or (ready and is_in_play(facts.status))
    marked = EnhancementStatus(facts.status).label if facts.status in EnhancementStatus.values else None
    owners = " ".join(f"@{owner}" for owner in facts.owners) or "{enhancement owner}"
    release = f"v{facts.version}"
    freeze = f"**{freeze_when(facts.freeze_at)}**" if facts.freeze_at else "**{ ENHANCEMENTS_FREEZE_DATETIME }**"
    lines = [
        f"Hello {owners} 👋, {release} Enhancements team here.",
        "",
        f"Just checking in as we approach [enhancements freeze]({RELEASE_PHASES_URL}#enhancements-freeze) on {freeze}.",
        "",
        f"This enhancement is targeting stage `{facts.stage or '{stage}'}` for {release} (correct me, if otherwise)",
        "",
        "Here's where this enhancement currently stands:",
        "",
        *(f"- [{'x' if item.done else ' '}] {item.text}" for item in items),
        "",
    ]
    todo = [item.todo for item in items if not item.done]
    if ready:
        lines += [
            "With all the KEP requirements in place and merged into k/enhancements, this enhancement is all good "
            "for the upcoming enhancements freeze. 🚀",
            "",
        ]
        unticked = [item.todo for item in items if not item.done and item.required]
        if unticked:
            lines += ["Not yet in the files sigtracker has read:", *(f"- {line}" for line in unticked), ""]
        docs = [item.todo for item in items if not item.done and not item.required]
        if docs:
            lines += ["Still to do, for the release docs team:", *(f"- {line}" for line in docs), ""]
        if marked and marked_ready:
            lines.append(f"The status of this enhancement is marked as `{marked}`. ")
        else:
            tracked = EnhancementStatus.TRACKED_ENHANCEMENTS.label
            lines.append(f"The status of this enhancement can now be marked as `{tracked}`. ")
        lines[-1] += "Please keep the issue description up-to-date with appropriate stages as well. Thank you!"
        lines += ["", "/label tracked/yes"]
    else:
        lines += [
            "For this KEP, we would just need to update the following:",
            *(f"- {line}" for line in todo),
            "",
            f"The status of this enhancement is marked as `{marked or EnhancementStatus.AT_RISK_ENHANCEMENTS.label}`. "
            "Please keep the issue description up-to-date with appropriate stages as well.",
            "",
            f"If you anticipate missing enhancements freeze, you can file an [exception request]({EXCEPTIONS_URL}) "
            "in advance. Thank you!",
        ]
    return "\n".join(lines) + "\n"
