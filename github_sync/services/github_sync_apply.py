"""A sync's writes: an issue's verdict applied to its tracked enhancement, and the rows of issues the release
does not track yet, made in batches."""

import datetime
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import DatabaseError, IntegrityError, transaction
from django.db.models.functions import Lower
from django.utils import timezone

from community.models import Person, Sig
from github_sync.github import (
    Issue,
    parse_timeline,
)
from github_sync.rules import (
    GitHubVerdict,
    github_issue_verdict,
)
from keps.models import Kep
from releases.choices import HistorySource, TrackedSource
from releases.models import (
    EnhancementStatusChange,
    Release,
    TrackedEnhancement,
)
from releases.services.tracking import (
    HistoryEntry,
    RecordedChange,
    tracked_enhancement_mirror_history,
    tracked_enhancements_create,
)

from .github_sync_base import Cycle, SyncReport
from .github_sync_store import skip_unchanged


@dataclass
class SyncContext:
    release: Release
    rows: dict[int, TrackedEnhancement]
    history: dict[int, set]
    cycle: Cycle
    now: datetime.datetime
    dry_run: bool
    changed: bool = False
    keps: dict[int, Kep] = field(default_factory=dict)


def github_history(release: Release) -> dict[int, set]:
    history: dict[int, set] = {}
    for te_id, at, status, author in EnhancementStatusChange.objects.filter(
        tracked_enhancement__release=release, source=HistorySource.GITHUB
    ).values_list("tracked_enhancement_id", "changed_at", "to_status", "author"):
        history.setdefault(te_id, set()).add((at, status, author))
    return history


def issue_verdict(context: SyncContext, issue: Issue, items) -> GitHubVerdict:
    """What one issue's timeline says about the release (no database; raises MalformedPayload)."""
    return github_issue_verdict(
        version=context.release.version,
        events=parse_timeline(items, issue=issue.number),
        labels_now=issue.labels,
        enhancements_freeze=context.cycle.enhancements_freeze,
        release_day=context.cycle.release_day,
        cycle_start=context.cycle.start,
        now=context.now,
    )


def apply_issue(context: SyncContext, issue: Issue, verdict: GitHubVerdict, report: SyncReport) -> None:
    """Write what one issue says about the release (inside the caller's per-issue transaction): updates of
    rows synced before, and the dry run's plan. New rows are written by `create_batch` (the caller hands only
    the dry run's new rows here)."""
    entries = [HistoryEntry(at=c.at, status=c.status, author=c.author, note=c.note) for c in verdict.changes]
    row = context.rows.get(issue.number)
    if row is None:
        report.created += 1
        report.history_added += len(entries)
        report.planned.append(f"create KEP-{issue.number} ({verdict.status}, {len(entries)} history rows)")
        return
    else:
        wanted = {(e.at, e.status, e.author) for e in entries}
        fields = _field_changes(row, issue, verdict)
        same_history = context.history.get(row.pk, set()) == wanted
        if same_history and not fields:
            report.unchanged += 1
            return
        report.updated += 1
        if context.dry_run:
            have = context.history.get(row.pk, set())
            report.history_added += len(wanted - have)
            report.history_superseded += len(have - wanted)
            report.planned.append(f"update KEP-{issue.number}: {', '.join(fields) or 'history'}")
            return
        for name, value in fields.items():
            setattr(row, name, value)
        if fields:
            row.github_synced_at = timezone.now()
            row.save(update_fields=[*fields, "github_synced_at", "updated_at"])
    context.changed = True
    added, superseded = tracked_enhancement_mirror_history(
        tracked_enhancement=row,
        entries=entries,
        source=HistorySource.GITHUB,
        link=issue.html_url,
        request_stats=False,
        keep_status=bool(row.board_status),  # the board, once read, wins for status
    )
    report.history_added += added
    report.history_superseded += superseded
    context.history[row.pk] = {(e.at, e.status, e.author) for e in entries}


def _person(login: str) -> Person:
    person = Person.objects.filter(github__iexact=login).first()
    return person or Person.objects.create(github=login)


def _labelled_sig(verdict: GitHubVerdict) -> Sig | None:
    """The SIG the issue's first `sig/*` label names (created when the catalogue lacks it)."""
    if not verdict.sigs:
        return None
    return Sig.objects.get_or_create(slug=verdict.sigs[0])[0]


def _field_changes(row: TrackedEnhancement, issue: Issue, verdict: GitHubVerdict) -> dict:
    wanted = {"github_issue_number": issue.number, "github_issue_url": issue.html_url}
    # A row on the tracking board takes its stage and SIG from the board's columns: labels saying otherwise would
    # flip them back and forth at every sync.
    on_board = bool(row.board_status)
    if verdict.target_stage and not on_board:
        wanted["target_stage"] = verdict.target_stage
    if verdict.sigs and row.sig.slug not in verdict.sigs and not on_board:
        wanted["sig"] = _labelled_sig(verdict)
    if issue.assignees and (row.assignee is None or row.assignee.github.lower() != issue.assignees[0].lower()):
        wanted["assignee"] = _person(issue.assignees[0])
    return {name: value for name, value in wanted.items() if getattr(row, name) != value}


def create_batch(
    context: SyncContext, batch: list[tuple[Issue, GitHubVerdict]], report: SyncReport, echo: Callable | None
) -> None:
    """Write new tracked enhancements (with their stub KEPs and history) for a batch of issues, in one
    transaction. Issues that failed to parse never reach a batch, so each batch holds only issues that parsed
    whole. If the database refuses the batch (e.g. a concurrent edit), each issue is written again in its own
    transaction, so only the one at fault is skipped, with one line, and writes nothing."""
    try:
        _create_group(context, batch, report, echo)
    except (ValueError, IntegrityError, DatabaseError) as exc:
        if len(batch) == 1:
            skip_unchanged(report, f"issue #{batch[0][0].number}: {exc}", echo)
            return
        for one in batch:
            try:
                _create_group(context, [one], report, echo)
            except (ValueError, IntegrityError, DatabaseError) as exc_one:
                skip_unchanged(report, f"issue #{one[0].number}: {exc_one}", echo)


def _create_group(context: SyncContext, batch, report: SyncReport, echo) -> None:
    """Write a batch's new rows in one transaction; only once it has committed does the context hold them."""
    now = timezone.now()
    with transaction.atomic():
        plan, skipped, slugs = _file_under_sigs(context, batch)
        sigs = _sigs_by_slug(slugs)
        people = _people_by_login({login for issue, *_ in plan for login in issue.assignees})
        stubs = _create_stub_keps(plan, sigs=sigs, people=people)
        rows = [
            _new_row(
                context, issue, verdict, kep=kep or stubs[issue.number], slug=slug, sigs=sigs, people=people, now=now
            )
            for issue, verdict, kep, slug in plan
        ]
        changes = _recorded_changes(rows, plan)
        # The tracking service writes the rows and their history (one stats request for the sync, at its end).
        tracked_enhancements_create(rows=rows, changes=changes, source=HistorySource.GITHUB, request_stats=False)
    # Committed: only now does the sync's picture of the database include them.
    for line in skipped:
        skip_unchanged(report, line, echo)
    for row, (issue, verdict, *_) in zip(rows, plan, strict=True):
        context.rows[issue.number] = row
        context.history[row.pk] = {(change.at, change.status, change.author) for change in verdict.changes}
    context.keps.update(stubs)
    context.changed = context.changed or bool(rows)
    report.created += len(rows)
    report.history_added += len(changes)


def _file_under_sigs(context: SyncContext, batch) -> tuple[list[tuple], list[str], set[str]]:
    """Where each new issue's row is filed: (issue, verdict, its KEP or None, the SIG's slug) per issue; the lines
    of those with neither a `sig/*` label nor a KEP; the slugs of the labelled SIGs, which may need creating."""
    plan, skipped = [], []
    slugs: set[str] = set()
    for issue, verdict in batch:
        kep = context.keps.get(issue.number)
        if kep is not None and (not verdict.sigs or kep.owning_sig.slug in verdict.sigs):
            plan.append((issue, verdict, kep, kep.owning_sig.slug))
        elif verdict.sigs:
            plan.append((issue, verdict, kep, verdict.sigs[0]))
            slugs.add(verdict.sigs[0])
        else:
            skipped.append(f"issue #{issue.number}: no sig/* label and no KEP in the catalogue to file it under")
    return plan, skipped, slugs


def _create_stub_keps(plan: list[tuple], *, sigs: dict[str, Sig], people: dict[str, Person]) -> dict[int, Kep]:
    """A stub KEP, by number, for each planned issue with no KEP in the catalogue, authored by its assignees."""
    # A stub until import_keps reads its kep.yaml (which then updates this same row by number).
    stubs = {
        issue.number: Kep(
            number=issue.number,
            title=(issue.title or f"KEP {issue.number}")[:300],
            owning_sig=sigs[slug],
            tracking_issue_url=issue.html_url,
            is_stub=True,
        )
        for issue, _, kep, slug in plan
        if kep is None
    }
    Kep.objects.bulk_create(stubs.values())
    authors = Kep.authors.through
    authors.objects.bulk_create(
        [
            authors(kep_id=stub.pk, person_id=people[login.lower()].pk)
            for number, stub in stubs.items()
            for login in dict.fromkeys(next(i for i, *_ in plan if i.number == number).assignees)
        ],
        ignore_conflicts=True,
    )
    return stubs


def _new_row(context: SyncContext, issue: Issue, verdict: GitHubVerdict, *, kep, slug, sigs, people, now):
    """The unsaved tracked enhancement of a new issue, filed under SIG `slug`."""
    return TrackedEnhancement(
        release=context.release,
        kep=kep,
        sig=kep.owning_sig if kep.owning_sig.slug == slug else sigs[slug],
        source=TrackedSource.SYNC,
        target_stage=verdict.target_stage,
        # The latest change (tracked_enhancements_create sets the same), with no other source.
        status=sorted(verdict.changes, key=lambda change: change.at)[-1].status,
        assignee=people[issue.assignees[0].lower()] if issue.assignees else None,
        created_at=verdict.opted_in_at,
        github_issue_number=issue.number,
        github_issue_url=issue.html_url,
        github_synced_at=now,
    )


def _recorded_changes(rows: list[TrackedEnhancement], plan: list[tuple]) -> list[RecordedChange]:
    """Each new row's history, its verdict's changes oldest first, each from the status before it."""
    changes = []
    for row, (issue, verdict, *_) in zip(rows, plan, strict=True):
        before = ""
        for change in sorted(verdict.changes, key=lambda change: change.at):
            changes.append(
                RecordedChange(
                    row, before, change.status, change.at, author=change.author, note=change.note, link=issue.html_url
                )
            )
            before = change.status
    return changes


def _sigs_by_slug(slugs: set[str]) -> dict[str, Sig]:
    """The SIGs named, created (bare, by slug) where missing; two queries at most, three when creating."""
    found = {sig.slug: sig for sig in Sig.objects.filter(slug__in=slugs)} if slugs else {}
    missing = slugs - set(found)
    if missing:
        Sig.objects.bulk_create([Sig(slug=slug) for slug in sorted(missing)], ignore_conflicts=True)
        found.update({sig.slug: sig for sig in Sig.objects.filter(slug__in=missing)})
    return found


def _people_by_login(logins: set[str]) -> dict[str, Person]:
    """People by lower-cased GitHub handle (handles are unique regardless of case), created where missing."""
    wanted = {login.lower(): login for login in logins}
    if not wanted:
        return {}
    query = Person.objects.alias(handle=Lower("github"))
    found = {person.github.lower(): person for person in query.filter(handle__in=list(wanted))}
    missing = set(wanted) - set(found)
    if missing:
        Person.objects.bulk_create([Person(github=wanted[key]) for key in sorted(missing)], ignore_conflicts=True)
        found.update({person.github.lower(): person for person in query.filter(handle__in=list(missing))})
    return found
