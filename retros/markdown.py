"""A board as Markdown, shaped like a SIG's retro notes (went well / to improve / to discuss / action items) and
action items like sig-release's umbrella issues: `- [ ] text (@owner, due v1.NN, #issue)`.

People's text is plain text: each line is flattened to one line and Markdown's active characters at its start are
escaped, so a pasted item cannot open a heading, a list or an HTML block in the notes it is pasted into.
"""

from __future__ import annotations

import re

from django.conf import settings

from .choices import ActionStatus, RetroCategory
from .github_issues import issue_ref
from .selectors import Board

_LEADING = re.compile(r"^([#>*+\-=|`<]|\d+[.)])")


def _plain(text: str) -> str:
    line = " ".join(text.split())
    line = _LEADING.sub(lambda m: "\\" + m.group(1), line)
    return line.replace("<", "&lt;").replace(">", "&gt;")


def sig_repository(slug: str) -> str:
    """The repository where a SIG's retro action items are filed (SIGTRACKER_RETRO_ISSUE_REPOSITORIES)."""
    repos = settings.SIGTRACKER_RETRO_ISSUE_REPOSITORIES
    return repos.get(slug) or repos.get("*", "kubernetes/kubernetes")


def _issue(url: str, home: str) -> str:
    ref = issue_ref(url)
    if ref is None:
        return ""
    repo = f"{ref.owner}/{ref.repo}"
    return f"#{ref.number}" if repo.lower() == home.lower() else f"{repo}#{ref.number}"


def action_line(item, *, home: str) -> str:
    done = "x" if item.status == ActionStatus.DONE else " "
    facts = []
    if item.owner_id:
        facts.append(f"@{item.owner.github}")
    if item.due_release_id:
        facts.append(f"due v{item.due_release.version}")
    if item.issue_url:
        facts.append(_issue(item.issue_url, home))
    if item.status == ActionStatus.DROPPED:
        facts.append("dropped")
    suffix = f" ({', '.join(f for f in facts if f)})" if facts else ""
    return f"- [{done}] {_plain(item.text)}{suffix}"


def board_markdown(board: Board) -> str:
    home = sig_repository(board.sig.slug)
    lines = [f"## {board.sig.slug} v{board.release.version} retrospective", ""]
    for category, items in board.columns.items():
        lines.append(f"### {RetroCategory(category).label}")
        lines += [f"- {_plain(i.text)}" + (f" (+{i.vote_count})" if i.vote_count else "") for i in items] or [
            "- (nothing)"
        ]
        lines.append("")
    lines.append("### Action items")
    lines += [action_line(item, home=home) for item in board.actions] or ["- (none)"]
    return "\n".join(lines) + "\n"
