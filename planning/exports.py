"""What a SIG takes away from its plan: the Markdown for its planning document, the commands each committed KEP's
tracking issue needs (copied by hand, never posted), and the CSV. Text people typed goes out escaped."""

from __future__ import annotations

import csv
import io

from core.tables import neutralise_formula
from github_sync.rules import OPT_IN_LABEL, STAGE_LABEL_PREFIX, github_milestone_title

#: kep.yaml's stage -> the word of its `stage/*` label on the tracking issue (the enhancements handbook:
#: "Ensure issue has correct labels (`stage/xxx` is accurate)"; the board's stages, `releases.choices.TargetStage`).
_STAGE_LABEL = {"alpha": "alpha", "beta": "beta", "stable": "stable", "deprecated": "deprecation", "removed": "removal"}

CSV_COLUMNS = [
    "kep",
    "title",
    "stage",
    "owning_sig",
    "participating_sigs",
    "sources",
    "decision",
    "decided_by",
    "flags",
    "slips",
    "last_release_outcome",
    "authors",
    "reviewers",
    "approvers",
    "prr_approver",
    "prr_file",
]


def issue_commands(*, version: str, stage: str) -> list[str]:
    """The comments a committed KEP's tracking issue needs for `version` (prow commands)."""
    commands = [f"/milestone {github_milestone_title(version)}", f"/label {OPT_IN_LABEL}"]
    if stage in _STAGE_LABEL:
        commands.append(f"/label {STAGE_LABEL_PREFIX}{_STAGE_LABEL[stage]}")
    return commands


def _md(text: str) -> str:
    """One table cell of text someone typed: no line breaks, no HTML, no cell breaks, no link or image syntax."""
    text = " ".join(str(text).split())
    for char, escaped in (("\\", "\\\\"), ("|", "\\|"), ("<", "&lt;"), (">", "&gt;"), ("[", "\\["), ("]", "\\]")):
        text = text.replace(char, escaped)
    for char in "*_`#!":
        text = text.replace(char, "\\" + char)
    return text


def plan_markdown(plan) -> str:
    """The plan as Markdown for the SIG's planning document."""
    lines = [
        f"# {plan.sig.slug} plan for v{plan.version}",
        "",
        "| KEP | Title | Stage | Sources | Decision | Flags | Note |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in plan.candidates:
        note = c.decision.note if c.decision else (c.proposal.note if c.proposal else "")
        lines.append(
            f"| [KEP-{c.kep.number}](https://github.com/kubernetes/enhancements/issues/{c.kep.number}) "
            f"| {_md(c.kep.title)} | {c.stage or '?'} | {', '.join(c.sources)} "
            f"| {c.decision_value or '—'} | {', '.join(c.flags) or '—'} | {_md(note) or '—'} |"
        )
    if plan.capacity:
        lines += ["", "## Load", "", "| Person | Role | Planned | Limit | Basis |", "|---|---|---|---|---|"]
        for row in plan.capacity:
            over = " **over**" if row.over else ""
            lines.append(
                f"| @{_md(row.person)} | {row.role_label} | {row.planned}{over} | {row.limit} | {_md(row.basis)} |"
            )
    return "\n".join(lines) + "\n"


def plan_csv(plan) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for c in plan.candidates:
        writer.writerow(
            [
                c.kep.number,
                neutralise_formula(c.kep.title),
                c.stage,
                c.kep.owning_sig.slug,
                " ".join(c.participating),
                " ".join(c.sources),
                c.decision_value,
                c.decision.by.username if c.decision else "",
                " ".join(c.flags),
                c.slips,
                c.last_outcome,
                " ".join(c.authors),
                " ".join(c.reviewers),
                " ".join(c.approvers),
                c.prr_approver,
                "yes" if c.prr_file else "no",
            ]
        )
    return out.getvalue()
