"""Writes for release retrospectives as SIG meeting notes record them.

Called by the meeting-notes import (`meetings.services.meeting_notes_import`) with what the parser
(`meetings.importers.notes`) read from a meeting that held or quoted a retro:

* the release (created, version only, when missing) and the SIG's `Retrospective` for it: the date of the
  meeting that held it, the retro document's link, and a quoted tally ("24 KEPs tracked and 13 merged") as
  `recorded_tracked` / `recorded_merged`, kept apart from figures computed from tracked rows;
* `RetroItem`s, identified by (retro, category, text) so that two meetings quoting the same retro add each line
  once and a curator's own items are never touched; an existing action item's status only moves away from "open"
  when the notes say so (a curator's "done" is not reset by a weekly re-import);
* `TrackedEnhancement` rows from the retro's KEP tables ("Done (6)", "Removed from Milestone (17)"), each
  with one `EnhancementStatusChange` dated at the meeting; a KEP the database does not know yet is created with
  its number, the table's title and the notes' SIG (import_keps later completes it in place).
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterable, Sequence

from django.db import transaction
from django.db.models.functions import Lower
from django.utils import timezone

from community.models import Person, Sig
from keps.models import Kep
from releases.choices import HistorySource, TrackedSource
from releases.models import EnhancementStatusChange, TrackedEnhancement
from releases.services.stats import release_stats_request
from releases.services.tracking import RecordedChange, tracked_enhancements_create, tracked_enhancements_record
from releases.services.versions import release_ensure_versions

from ..choices import ActionStatus, RetroCategory, StatusSource
from ..models import ActionItemStatusChange, RetroItem, Retrospective
from ..records import RetroRecord

__all__ = ["retro_notes_import"]


def _people(handles: Iterable[str]) -> dict[str, int]:
    """Existing people by lower-cased handle (a bare word in notes may be a first name: no one is invented)."""
    lowered = {h.lower() for h in handles if h}
    if not lowered:
        return {}
    rows = Person.objects.annotate(handle=Lower("github")).filter(handle__in=lowered).values_list("handle", "id")
    return dict(rows)


@transaction.atomic
def retro_notes_import(
    *,
    retros: Sequence[tuple[datetime.date, RetroRecord]],
    sig: Sig,
    source: str,
    people: dict[str, int] | None = None,
    warnings: list[str] | None = None,
    new_keps: list[int] | None = None,
    new_releases: list[str] | None = None,
) -> Counter:
    """Record what meetings say about release retros; returns counts of created / updated / unchanged rows.

    `retros` pairs each parsed record with the date of the meeting it comes from; `source` is the notes file's
    name (for the history's author); `people` maps lower-cased handles to Person ids the caller already
    resolved (action-item owners and KEP assignees are linked only to people that exist or were `@`-named).
    The numbers of KEPs and the versions of releases created here are appended to `new_keps` / `new_releases`.
    """
    counts: Counter = Counter()
    warnings = warnings if warnings is not None else []
    if not retros:
        return counts
    releases, created_releases = release_ensure_versions(versions=[r.release for _, r in retros])
    counts["created"] += len(created_releases)
    if new_releases is not None:
        new_releases.extend(created_releases)
    owners = [e.owner.handle for _, r in retros for e in r.entries if e.owner]
    assignees = [row.assignee for _, r in retros for row in r.keps if row.assignee]
    people = {**_people([*owners, *assignees]), **(people or {})}

    by_release = _merged_by_release(retros)
    existing = {
        r.release_id: r for r in Retrospective.objects.filter(sig=sig, release__in=[releases[v] for v in by_release])
    }
    stats_releases: set[int] = set()
    for version, entry in by_release.items():
        release = releases[version]
        retro = existing.get(release.pk)
        created = retro is None
        if created:
            retro = Retrospective(release=release, sig=sig)
        changed = _retro_update(retro, entry, where=f"{source}:{entry['line']}: {version}", warnings=warnings)
        if created or changed:
            retro.save()
            stats_releases.add(release.pk)
        items_changed = _retro_items(retro, entry["entries"], people)
        counts["created" if created else "updated" if changed or items_changed else "unchanged"] += 1

    stats_releases |= _retro_keps_import(
        by_release, releases, sig=sig, people=people, source=source, counts=counts, warnings=warnings, new_keps=new_keps
    )
    release_stats_request(release_ids=stats_releases)
    return counts


def _retro_keps_import(
    by_release: dict[str, dict], releases: dict, *, sig, people, source, counts, warnings, new_keps
) -> set[int]:
    """Track the KEPs the retros' tables list in their releases; returns the ids of releases whose rows changed."""
    keps_by_release: dict[int, list] = {}
    for version, entry in by_release.items():
        for _number, (date, row) in entry["keps"].items():
            keps_by_release.setdefault(releases[version].pk, []).append((date, row))
    if not keps_by_release:
        return set()
    rows = {number: row for entry in by_release.values() for number, (_, row) in entry["keps"].items()}
    kep_ids, created_keps = _keps(rows, sig)
    counts["created"] += len(created_keps)
    if new_keps is not None:
        new_keps.extend(created_keps)
    return {
        release_id
        for release_id, pairs in keps_by_release.items()
        if _tracked_rows(release_id, pairs, kep_ids, sig, people, source, counts, warnings)
    }


def _merged_by_release(retros: Sequence[tuple[datetime.date, RetroRecord]]) -> dict[str, dict]:
    """One retro per release: what several meetings of one file say about it, merged (the earliest meeting that
    held it, the first link, the last tally, every entry, each KEP's latest row)."""
    by_release: dict[str, dict] = {}
    for date, record in retros:
        entry = by_release.setdefault(
            record.release, {"date": None, "url": "", "tally": None, "entries": [], "keps": {}, "line": record.line}
        )
        if record.held and (entry["date"] is None or date < entry["date"]):
            entry["date"] = date
        entry["url"] = entry["url"] or record.source_url
        if record.tracked is not None:
            entry["tally"] = (record.tracked, record.merged)
        entry["entries"].extend(record.entries)
        for row in record.keps:
            entry["keps"][row.number] = (date, row)
    return by_release


def _retro_update(retro: Retrospective, entry: dict, *, where: str, warnings: list[str]) -> bool:
    """Set the retro's date, link and tally from a merged `entry`; returns whether any of them changed."""
    before = (retro.date, retro.source_url, retro.recorded_tracked, retro.recorded_merged)
    if entry["date"] is not None:
        retro.date = entry["date"]
    if entry["url"] and len(entry["url"]) <= 200:
        retro.source_url = entry["url"]
    if entry["tally"] is not None:
        if retro.recorded_tracked is not None and (retro.recorded_tracked, retro.recorded_merged) != entry["tally"]:
            warnings.append(
                f"{where} tally {entry['tally'][0]}/{entry['tally'][1]} replaces "
                f"{retro.recorded_tracked}/{retro.recorded_merged}"
            )
        retro.recorded_tracked, retro.recorded_merged = entry["tally"]
    return (retro.date, retro.source_url, retro.recorded_tracked, retro.recorded_merged) != before


def _retro_items(retro: Retrospective, entries, people: dict[str, int]) -> bool:
    """Add the entries a retro does not have yet; returns whether anything was written."""
    if not entries:
        return False
    known = {(item.category, " ".join(item.text.split())): item for item in retro.items.all()}
    # Action items whose status no person set (no history row, not typed on the board).
    untouched = set(
        retro.items.filter(
            category=RetroCategory.ACTION_ITEM, author__isnull=True, status_changes__isnull=True
        ).values_list("pk", flat=True)
    )
    next_order = Counter()
    for item in known.values():
        next_order[item.category] = max(next_order[item.category], item.order + 1)
    create, update, history = [], [], []
    for entry in entries:
        text = entry.text.strip()
        if not text or entry.category not in RetroCategory.values:
            continue
        owner_id = people.get(entry.owner.handle.lower()) if entry.owner else None
        status = entry.status if entry.category == RetroCategory.ACTION_ITEM else ""
        if entry.category == RetroCategory.ACTION_ITEM and status not in ActionStatus.values:
            status = ActionStatus.NOT_RECORDED  # the notes say nothing known: never "open"
        key = (entry.category, " ".join(text.split()))
        item = known.get(key)
        if item is None:
            item = RetroItem(
                retrospective=retro,
                category=entry.category,
                order=next_order[entry.category],
                text=text,
                owner_id=owner_id,
                status=status,
            )
            next_order[entry.category] += 1
            known[key] = item
            create.append(item)
            continue
        dirty = False
        if owner_id and item.owner_id is None:
            item.owner_id, dirty = owner_id, True
        old_status = item.status
        if status and status not in (ActionStatus.OPEN, ActionStatus.NOT_RECORDED) and item.status != status:
            item.status, dirty = status, True
        elif status == ActionStatus.NOT_RECORDED and item.status == ActionStatus.OPEN and item.pk in untouched:
            # Imported as "open" before sigtracker knew better; no person ever set it: not recorded.
            item.status, dirty = status, True
        if item.pk and item.status != old_status:
            history.append(
                ActionItemStatusChange(
                    item=item,
                    old_status=old_status,
                    new_status=item.status,
                    at=timezone.now(),
                    source=StatusSource.NOTES,
                    author="meeting notes import",
                    note=f"notes line {entry.line}",
                )
            )
        if dirty and item.pk and item not in update:
            update.append(item)
    RetroItem.objects.bulk_create(create)
    if update:
        RetroItem.objects.bulk_update(update, ["owner", "status"])
        # The status changes of items already stored, each in the item's history (the one write path's row).
        ActionItemStatusChange.objects.bulk_create(history)
    return bool(create or update)


def _keps(rows: dict, sig: Sig) -> tuple[dict[int, int], list[int]]:
    """KEP ids by number, creating the ones not known yet (number, title from the table, the notes' SIG)."""
    found = dict(Kep.objects.filter(number__in=rows).values_list("number", "id"))
    missing = [
        Kep(number=n, title=(row.title or f"KEP-{n}")[:300], owning_sig=sig)
        for n, row in rows.items()
        if n not in found
    ]
    if missing:
        Kep.objects.bulk_create(missing, ignore_conflicts=True)  # import_keps may be creating them right now
        found = dict(Kep.objects.filter(number__in=rows).values_list("number", "id"))
    return found, [kep.number for kep in missing]


def _latest_change_at(tracked_enhancements) -> dict[int, datetime.datetime]:
    """The instant of each row's latest recorded status change, by row id."""
    if not tracked_enhancements:
        return {}
    return dict(
        EnhancementStatusChange.objects.filter(tracked_enhancement__in=tracked_enhancements)
        .order_by("tracked_enhancement_id", "changed_at")
        .values_list("tracked_enhancement_id", "changed_at")
    )


def _notes_tracked(release_id, kep_id, sig, row, *, assignee_id, at) -> TrackedEnhancement:
    """A new (unsaved) tracked enhancement of source "notes" from one row of a retro's KEP table."""
    return TrackedEnhancement(
        release_id=release_id,
        kep_id=kep_id,
        sig=sig,
        source=TrackedSource.NOTES,
        type=row.type,
        target_stage=row.target_stage,
        status=row.status,
        assignee_id=assignee_id,
        created_at=at,
    )


def _tracked_rows_save(create: list, update: list, history: list) -> None:
    """Write a release's new and changed rows from the retro tables, with their status changes."""
    # New rows, statuses and their history go through the one write path. The retro gives the meeting's date
    # only, so each instant is assumed (the start of that day, UTC) and is shown as such.
    changes = [
        RecordedChange(te, old, new, at, author=author, note="recorded in the release retro", assumed=True)
        for te, old, new, at, author in history
    ]
    new_rows = {id(te) for te in create}
    tracked_enhancements_create(
        rows=create, changes=[c for c in changes if id(c.tracked_enhancement) in new_rows], source=HistorySource.NOTES
    )
    if update:
        TrackedEnhancement.objects.bulk_update(update, ["type", "target_stage", "assignee", "updated_at"])
    tracked_enhancements_record(
        changes=[c for c in changes if id(c.tracked_enhancement) not in new_rows], source=HistorySource.NOTES
    )


def _tracked_rows(release_id, pairs, kep_ids, sig, people, source, counts, warnings) -> bool:
    """Create or update one release's TrackedEnhancement rows from retro tables, with dated history."""
    existing = {
        te.kep_id: te for te in TrackedEnhancement.objects.filter(release_id=release_id, kep_id__in=kep_ids.values())
    }
    latest = _latest_change_at(existing.values())
    create, update, history = [], [], []
    status_now: dict[int, str] = {}  # each row's status after the changes recorded so far in this import
    for date, row in pairs:
        kep_id = kep_ids.get(row.number)
        if kep_id is None:
            continue
        at = datetime.datetime.combine(date, datetime.time(), tzinfo=datetime.UTC)
        author = f"imported from meeting notes {source}:{row.line}"[:100]
        assignee_id = people.get(row.assignee.lower()) if row.assignee else None
        te = existing.get(kep_id)
        if te is None:
            te = existing[kep_id] = _notes_tracked(release_id, kep_id, sig, row, assignee_id=assignee_id, at=at)
            create.append(te)
            history.append((te, "", row.status, at, author))
            continue
        dirty = False
        for name, value in (("type", row.type), ("target_stage", row.target_stage), ("assignee_id", assignee_id)):
            if value and getattr(te, name) != value:
                setattr(te, name, value)
                dirty = True
        current = status_now.get(id(te), te.status)
        if current != row.status:
            if te.pk in latest and latest[te.pk] > at:
                # The board's own history goes on after this meeting: it knows better than the retro summary.
                warnings.append(
                    f"{source}:{row.line}: KEP-{row.number} status {row.status} not applied; "
                    f"its history has later changes"
                )
            else:
                history.append((te, current, row.status, at, author))
                status_now[id(te)] = row.status
                dirty = True
        if dirty and te.pk and te not in update:
            te.updated_at = timezone.now()  # bulk_update skips auto_now
            update.append(te)
        elif te.pk and not dirty:
            counts["unchanged"] += 1
    _tracked_rows_save(create, update, history)
    counts["created"] += len(create)
    counts["updated"] += len(update)
    return bool(create or update)
