"""Writes for the meetings domain: importing meeting-note archives, and linking agenda items to KEPs."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from django.db import DatabaseError, transaction
from django.db.models import Q, TextField
from django.db.models.functions import Cast, Lower

from community.models import Person, Sig
from core.importing import (
    ImportFailure,
    ImportReport,
    ImportUsageError,
    Progress,
    import_file_by_file,
    no_progress,
    read_text,
)
from keps.models import Kep
from meetings.importers.notes import (
    MeetingRecord,
    NotesRecord,
    item_releases,
    kep_refs,
    parse_meeting_notes,
    split_presenters,
)
from releases.models import Release
from retros.services.notes import retro_notes_import

from .models import AgendaItem, Meeting

__all__ = [
    "NotesImportResult",
    "agenda_items_link_keps",
    "agenda_items_link_presenters",
    "agenda_items_link_releases",
    "meeting_notes_import",
    "meeting_fingerprints",
    "meeting_notes_import_files",
    "sig_from_path",
]

#: Name of the advisory lock that serialises concurrent meeting-notes imports.
NOTES_IMPORT_LOCK = "import_meeting_notes"
_SIG_SLUG = re.compile(r"^(?:sig|wg|committee|ug)-[a-z0-9-]+$")

_MEETING_FIELDS = (
    "title",
    "cancelled",
    "recording_url",
    "open_prs",
    "prs_created",
    "prs_updated",
    "prs_closed",
    "prs_merged",
    "source",
    "notes_fingerprint",
)
_ITEM_FIELDS = ("title", "presenters_text", "body", "links", "related_release_id")

#: Bytes of an agenda item's title, notes and presenters together that the full-text index may be asked to hold.
#: PostgreSQL refuses a tsvector over 1 MB ("string is too long for tsvector") and the GIN index of
#: migration 0002 is built on every row; a tsvector can take up to about four times the bytes of its text (short
#: distinct words), so a text of 200 kB always fits. The longest real item (SIG Node, 2021) has under 5 kB.
MAX_INDEXED_ITEM_BYTES = 200_000


def _cut_oversized(notes: NotesRecord) -> list[str]:
    """Cut every agenda item too long for the full-text index down to MAX_INDEXED_ITEM_BYTES, its notes ending in
    a line that says so; return one warning per item cut, naming file and line. The rest of the file imports: one
    pasted log (SIG Node, 2022: a 1.3 MB agenda item) must not lose a year of meetings."""
    warnings = []
    for meeting in notes.meetings:
        for index, item in enumerate(meeting.items):
            size = sum(len(text.encode()) for text in (item.title, item.body, item.presenters_text))
            if size <= MAX_INDEXED_ITEM_BYTES:
                continue
            marker = (
                f"\n\n[cut: this agenda item is {size:,} bytes in {notes.source} line {item.line}; "
                f"only its first {MAX_INDEXED_ITEM_BYTES:,} bytes are kept]"
            )
            room = MAX_INDEXED_ITEM_BYTES - len(marker.encode())
            title = _cut_bytes(item.title, room // 4)
            presenters = _cut_bytes(item.presenters_text, room // 4)
            room -= len(title.encode()) + len(presenters.encode())
            meeting.items[index] = replace(
                item, title=title, presenters_text=presenters, body=_cut_bytes(item.body, room) + marker
            )
            warnings.append(
                f"{notes.source}:{item.line}: agenda item of {size:,} bytes cut to {MAX_INDEXED_ITEM_BYTES:,} "
                "(too long to search); the rest of the file imports"
            )
    return warnings


def _cut_bytes(text: str, limit: int) -> str:
    """`text` cut to at most `limit` bytes of UTF-8, never inside a character."""
    return text.encode()[: max(limit, 0)].decode(errors="ignore")


@dataclass
class NotesImportResult:
    """Rows created / updated / unchanged (meetings, retrospectives, tracked KEPs, new KEPs and releases)."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)

    def add(self, counts: Counter) -> None:
        self.created += counts["created"]
        self.updated += counts["updated"]
        self.unchanged += counts["unchanged"]


def _sig(sig: Sig | str) -> Sig:
    if isinstance(sig, Sig):
        return sig
    found, _ = Sig.objects.get_or_create(slug=sig)
    return found


def _people(notes: NotesRecord, created: list[str] | None = None) -> dict[str, int]:
    """Person ids by lower-cased handle for the notes' presenters and action-item owners.

    An `@handle` is a GitHub handle for sure: created when missing (and appended to `created`). A bare word
    ("mrunal") may be a first name, so it is linked only to a Person that already exists (import_keps brings
    in authors and approvers).
    """
    refs = [ref for m in notes.meetings for item in m.items for ref in item.presenters]
    refs += [e.owner for m in notes.meetings for r in m.retros for e in r.entries if e.owner]
    handles = {ref.handle.lower() for ref in refs}
    if not handles:
        return {}

    def lookup():
        rows = Person.objects.annotate(handle=Lower("github")).filter(handle__in=handles).values_list("handle", "id")
        return dict(rows)

    found = lookup()
    explicit = {ref.handle.lower(): ref.handle for ref in refs if ref.explicit and ref.handle.lower() not in found}
    if explicit:
        # ignore_conflicts: the KEP importer may create the same person at the same time.
        Person.objects.bulk_create([Person(github=h) for h in explicit.values()], ignore_conflicts=True)
        found = lookup()
        if created is not None:
            created.extend(explicit.values())
    return found


def _release_for(versions: tuple[str, ...], releases: dict[str, Release]) -> int | None:
    """The newest release an item names among those that exist ("1.24 planning, move from 1.24 to 1.25")."""
    known = [releases[v] for v in versions if v in releases]
    return max(known, key=lambda r: (r.major, r.minor)).pk if known else None


@transaction.atomic
def meeting_notes_import(*, notes: NotesRecord, sig: Sig | str) -> NotesImportResult:
    """Write one parsed notes file for `sig` (a Sig or a slug, created if missing), updating in place.

    Meetings are matched by (sig, date) and agenda items by their order in the meeting; rows that would not
    change are not written, items beyond the new count are deleted. Retro content goes through
    `retros.services.notes.retro_notes_import`. A constant number of queries per file, whatever its size.
    An agenda item too long for the full-text index is cut (`_cut_oversized`), with a warning.
    """
    sig = _sig(sig)
    result = NotesImportResult(warnings=_cut_oversized(notes))
    new_people: list[str] = []
    people = _people(notes, new_people)
    # Retros first: they create the releases that agenda items may name.
    _retros_import(notes, sig=sig, people=people, result=result)
    keps, releases = _mentioned_keps_and_releases(notes)
    rows, new_meetings, changed_meetings = _meetings_write(notes, sig=sig)
    items_changed = _items_write(rows, people, keps, releases, source=notes.source)
    if new_people:
        # Another year's file, imported earlier, may name them as a bare word ("[vinaykul]", 2019) before this
        # file's "[@vinaykul]" (2020) created them: link those items now, as a fresh import would have.
        agenda_items_link_presenters(handles=new_people)
    new_ids = {m.pk for m in new_meetings}
    changed_ids = {m.pk for m in changed_meetings} | items_changed
    result.created += len(new_ids)
    result.updated += len(changed_ids - new_ids)
    result.unchanged += len(rows) - len(new_ids) - len(changed_ids - new_ids)
    result.unchanged += _unchanged_sources_write(notes, sig=sig)
    return result


def _unchanged_sources_write(notes: NotesRecord, *, sig: Sig) -> int:
    """The meetings the parser left unparsed (their section is as last imported) keep their rows; only the line
    their `source` names moves when meetings were added or removed above them. Returns how many there are."""
    if not notes.unchanged:
        return 0
    lines = dict(notes.unchanged)
    moved = []
    for meeting in Meeting.objects.filter(sig=sig, date__in=lines).only("id", "date", "source"):
        source = f"{notes.source}:{lines[meeting.date]}"[:300]
        if meeting.source != source:
            meeting.source = source
            moved.append(meeting)
    Meeting.objects.bulk_update(moved, ["source"])
    return len(lines)


def meeting_fingerprints(*, sig: str, source: str) -> dict:
    """Date -> fingerprint of the notes section each of the SIG's meetings last imported from the file named
    `source` was read from (for `parse_meeting_notes(known=...)`: the file's own, so that a meeting quoting a retro
    that left the file is noticed)."""
    rows = (
        Meeting.objects.filter(sig__slug=sig, source__startswith=f"{source}:")
        .exclude(notes_fingerprint="")
        .values_list("date", "notes_fingerprint")
    )
    return dict(rows)


def _retros_import(notes: NotesRecord, *, sig: Sig, people: dict[str, int], result: NotesImportResult) -> None:
    """The notes' retrospectives, counted in `result`; agenda items stored earlier that name the KEPs and
    releases they create are linked to them."""
    retros = [(m.date, r) for m in notes.meetings for r in m.retros]
    new_keps: list[int] = []
    new_releases: list[str] = []
    counts = retro_notes_import(
        retros=retros,
        sig=sig,
        source=notes.source,
        people=people,
        warnings=result.warnings,
        new_keps=new_keps,
        new_releases=new_releases,
    )
    result.add(counts)
    # Meetings imported earlier (another year's file) may name the KEPs and releases a retro just created.
    if new_keps:
        agenda_items_link_keps(kep_numbers=new_keps)
    if new_releases:
        agenda_items_link_releases(versions=new_releases)


def _mentioned_keps_and_releases(notes: NotesRecord) -> tuple[dict[int, int], dict[str, Release]]:
    """The KEP ids by number and the releases by version that the agenda items name and that exist."""
    numbers = {n for m in notes.meetings for item in m.items for n in item.kep_numbers}
    keps = dict(Kep.objects.filter(number__in=numbers).values_list("number", "id")) if numbers else {}
    versions = {v for m in notes.meetings for item in m.items for v in item.releases}
    releases = {r.version: r for r in Release.objects.filter(version__in=versions)} if versions else {}
    return keps, releases


def _meetings_write(
    notes: NotesRecord, *, sig: Sig
) -> tuple[list[tuple[Meeting, MeetingRecord]], list[Meeting], list[Meeting]]:
    """Each meeting of the notes created or brought up to date: (each row with its record, those created, those
    changed)."""
    existing = {m.date: m for m in Meeting.objects.filter(sig=sig, date__in=[m.date for m in notes.meetings])}
    new_meetings, changed_meetings = [], []
    rows: list[tuple[Meeting, MeetingRecord]] = []
    for record in notes.meetings:
        values = {
            "title": record.title,
            "cancelled": record.cancelled,
            "recording_url": record.recording_url,
            "open_prs": record.open_prs,
            "prs_created": record.prs_created,
            "prs_updated": record.prs_updated,
            "prs_closed": record.prs_closed,
            "prs_merged": record.prs_merged,
            "source": f"{notes.source}:{record.line}"[:300],
            "notes_fingerprint": record.fingerprint,
        }
        meeting = existing.get(record.date)
        if meeting is None:
            meeting = Meeting(sig=sig, date=record.date, **values)
            new_meetings.append(meeting)
        elif any(getattr(meeting, k) != v for k, v in values.items()):
            for k, v in values.items():
                setattr(meeting, k, v)
            changed_meetings.append(meeting)
        rows.append((meeting, record))
    Meeting.objects.bulk_create(new_meetings)
    if changed_meetings:
        Meeting.objects.bulk_update(changed_meetings, _MEETING_FIELDS)
    return rows, new_meetings, changed_meetings


def _items_write(rows, people, keps, releases, *, source: str) -> set[int]:
    """`_write_items`, a refusal of the full-text index turned into an ImportFailure of the file."""
    try:
        return _write_items(rows, people, keps, releases)
    except DatabaseError as exc:  # OperationalError on psycopg (ProgramLimitExceeded)
        # Should _cut_oversized's bound ever be too generous, the file is still skipped in one line, not a
        # traceback that stops the import; the caller's transaction undoes what it wrote.
        if "tsvector" not in str(exc):
            raise
        reason = f"agenda text too long to search ({str(exc).splitlines()[0]})"
        raise ImportFailure(reason, source=source) from exc


def sig_from_path(path: Path) -> str | None:
    """The SIG a kubernetes/community path belongs to (`sig-node/archive/meeting-notes-2022.md` -> sig-node)."""
    # The folder the file was found in, not where a symbolic link of it points (that is refused, not read).
    for part in reversed(path.parent.resolve().parts):
        if _SIG_SLUG.match(part):
            return part
    return None


def is_subgroup_notes(path: Path) -> bool:
    """Notes of a sub-group, not of the SIG's own meeting: kubernetes/community sig-node/archive holds
    `ci-subgroup-notes-2023.md` beside `meeting-notes-2023.md`. The SIG's notes are named `*meeting-notes*`."""
    name = path.name.lower()
    return "meeting-notes" not in name or bool(re.search(r"sub-?groups?|sub-?projects?", name))


def meeting_notes_import_files(
    *,
    paths: Sequence[str | Path],
    sig: str | None,
    dry_run: bool,
    progress: Progress = no_progress,
    subgroups: bool = False,
    skip_unchanged: bool = False,
) -> ImportReport:
    """Import meeting-note archives: each path is a yearly notes file, or a folder whose `*meeting-notes*.md` files
    (the SIG's own meetings) are read in name order; with `subgroups`, its other `*notes*.md` (sub-group notes, as
    `ci-subgroup-notes-2023.md`) too, as meetings of the same SIG. Each file in its own transaction under
    `import_lock("import_meeting_notes")`. Files left out are listed with -v 2.

    `sig` is the slug of the SIG the notes belong to (created if missing); None takes the sig-*/wg-* folder
    the files sit in, as in kubernetes/community. A file that cannot be read or imported is skipped with one line
    naming it (and its line), the others import. With `skip_unchanged` (an incremental refresh), the meetings
    whose notes section is as it was last imported are not parsed again (`parse_meeting_notes(known=...)`);
    they keep their rows, their warnings are not repeated. Raises ImportUsageError for a missing path, a `sig`
    that is not a slug, no SIG to infer, or no files. A dry run writes nothing.
    """
    files: list[Path] = []
    left_out: list[Path] = []
    roots: dict[Path, Path] = {}  # a file found in a folder -> that folder (no link out of it is followed)
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.glob("*notes*.md") if p.is_file())
            roots.update(dict.fromkeys(found, path))
            files += [p for p in found if subgroups or not is_subgroup_notes(p)]
            left_out += [p for p in found if not subgroups and is_subgroup_notes(p)]
        elif path.exists():
            files.append(path)
        else:
            raise ImportUsageError(f"{name}: no such file or folder")
    if sig is not None and not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,63}", sig):
        raise ImportUsageError(f"--sig {sig!r}: not a SIG slug like sig-node")
    if sig is None:
        inferred = {sig_from_path(p) for p in files}
        if None in inferred or len(inferred) != 1:
            raise ImportUsageError("--sig is required: the file paths do not name one sig-* folder")
        sig = inferred.pop()
    if not files:
        raise ImportUsageError("no files found to import")

    def import_file(path: Path, report: ImportReport) -> None:
        known = meeting_fingerprints(sig=sig, source=path.name) if skip_unchanged else None
        notes = parse_meeting_notes(read_text(path, root=roots.get(path)), source=path.name, known=known)
        result = meeting_notes_import(notes=notes, sig=sig)
        report.count("created", result.created)
        report.count("updated", result.updated)
        report.count("unchanged", result.unchanged)
        for warning in [*notes.warnings, *result.warnings]:
            report.warn(warning)

    report = ImportReport()
    for path in left_out:
        report.note(f"{path}: sub-group notes, not read (--subgroups reads them)")
    return import_file_by_file(
        files=files,
        import_file=import_file,
        lock_name=NOTES_IMPORT_LOCK,
        dry_run=dry_run,
        report=report,
        progress=progress,
    )


def _write_items(rows, people, keps, releases) -> set[int]:
    """Sync agenda items (and their presenter and KEP links) with the records; returns ids of meetings touched."""
    meeting_ids = [m.pk for m, _ in rows]
    current = {
        (item.meeting_id, item.order): item
        for item in AgendaItem.objects.filter(meeting_id__in=meeting_ids).only(
            "id", "meeting_id", "order", *[f for f in _ITEM_FIELDS if f != "related_release_id"], "related_release"
        )
    }
    presenters_through = AgendaItem.presenters.through
    keps_through = AgendaItem.keps.through
    current_presenters: dict[int, set[int]] = {}
    current_keps: dict[int, set[int]] = {}
    if current:
        current_presenters = _links_of(presenters_through, "person_id", meeting_ids)
        current_keps = _links_of(keps_through, "kep_id", meeting_ids)
    touched, wanted_links = _item_rows_write(rows, current, people, keps, releases)
    add_presenters, add_keps, drop_presenters, drop_keps = [], [], Q(), Q()
    for row, meeting_id, presenter_ids, kep_ids in wanted_links:
        have_p = current_presenters.get(row.pk, set())
        have_k = current_keps.get(row.pk, set())
        if presenter_ids != have_p or kep_ids != have_k:
            touched.add(meeting_id)
        add_presenters += [presenters_through(agendaitem_id=row.pk, person_id=p) for p in presenter_ids - have_p]
        add_keps += [keps_through(agendaitem_id=row.pk, kep_id=k) for k in kep_ids - have_k]
        if have_p - presenter_ids:
            drop_presenters |= Q(agendaitem_id=row.pk, person_id__in=have_p - presenter_ids)
        if have_k - kep_ids:
            drop_keps |= Q(agendaitem_id=row.pk, kep_id__in=have_k - kep_ids)
    if drop_presenters:
        presenters_through.objects.filter(drop_presenters).delete()
    if drop_keps:
        keps_through.objects.filter(drop_keps).delete()
    presenters_through.objects.bulk_create(add_presenters)
    keps_through.objects.bulk_create(add_keps)
    return touched


def _links_of(through, column: str, meeting_ids: list[int]) -> dict[int, set[int]]:
    """The ids in `column` of the `through` table linked to each agenda item of the meetings, by item id."""
    links: dict[int, set[int]] = {}
    for item_id, other_id in through.objects.filter(agendaitem__meeting_id__in=meeting_ids).values_list(
        "agendaitem_id", column
    ):
        links.setdefault(item_id, set()).add(other_id)
    return links


def _item_rows_write(rows, current, people, keps, releases) -> tuple[set[int], list[tuple]]:
    """Agenda item rows created, updated or deleted to match the records: (ids of meetings touched, each item's
    row with its meeting id and the presenter and KEP ids it should link)."""
    touched: set[int] = set()
    create, update, wanted_links = [], [], []
    seen: set[tuple[int, int]] = set()
    for meeting, record in rows:
        for item in record.items:
            key = (meeting.pk, item.order)
            seen.add(key)
            values = {
                "title": item.title,
                "presenters_text": item.presenters_text,
                "body": item.body,
                "links": list(item.links),
                "related_release_id": _release_for(item.releases, releases),
            }
            presenter_ids = {people[r.handle.lower()] for r in item.presenters if r.handle.lower() in people}
            kep_ids = {keps[n] for n in item.kep_numbers if n in keps}
            row = current.get(key)
            if row is None:
                row = AgendaItem(meeting_id=meeting.pk, order=item.order, **values)
                create.append(row)
                touched.add(meeting.pk)
            elif any(getattr(row, k) != v for k, v in values.items()):
                for k, v in values.items():
                    setattr(row, k, v)
                update.append(row)
                touched.add(meeting.pk)
            wanted_links.append((row, meeting.pk, presenter_ids, kep_ids))
    stale = [row.pk for key, row in current.items() if key not in seen]
    if stale:
        touched |= {key[0] for key, row in current.items() if key not in seen}
        AgendaItem.objects.filter(pk__in=stale).delete()
    AgendaItem.objects.bulk_create(create)
    if update:
        AgendaItem.objects.bulk_update(update, _ITEM_FIELDS)
    return touched, wanted_links


@transaction.atomic
def agenda_items_link_keps(*, kep_numbers=None) -> int:
    """(Re)link agenda items to the KEPs they mention that now exist; returns how many links were added.

    Reads each item's stored links, title and body with the same rule the importer uses
    (`meetings.importers.notes.kep_refs`), so items imported before `import_keps` get their KEPs afterwards.
    `kep_numbers` limits the work to those KEPs (e.g. the ones an import just created).
    """
    if not AgendaItem.objects.exists():  # e.g. KEPs imported before any meeting notes
        return 0
    keps = Kep.objects.all()
    if kep_numbers is not None:
        kep_numbers = {int(n) for n in kep_numbers}
        keps = keps.filter(number__in=kep_numbers)
    known = dict(keps.values_list("number", "id"))
    if not known:
        return 0
    items = AgendaItem.objects.annotate(links_text=Cast("links", TextField()))
    if kep_numbers is not None and len(kep_numbers) <= 50:
        mentions = Q()
        for number in known:
            mentions |= Q(title__contains=str(number)) | Q(body__contains=str(number))
            mentions |= Q(links_text__contains=str(number))
        items = items.filter(mentions)
    through = AgendaItem.keps.through
    have = set(through.objects.filter(kep_id__in=known.values()).values_list("agendaitem_id", "kep_id"))
    add = []
    for item_id, title, body, links in items.values_list("id", "title", "body", "links_text").iterator(2000):
        for number in kep_refs("\n".join([title, body, links or ""])):
            kep_id = known.get(number)
            if kep_id is not None and (item_id, kep_id) not in have:
                have.add((item_id, kep_id))
                add.append(through(agendaitem_id=item_id, kep_id=kep_id))
    through.objects.bulk_create(add, ignore_conflicts=True)
    return len(add)


@transaction.atomic
def agenda_items_link_presenters(*, handles) -> int:
    """Link agenda items to these people where the stored presenters text names them; returns links added.

    Re-reads `presenters_text` with the importer's own rule (`split_presenters`), so items imported before a
    Person existed end up linked exactly as a fresh import would link them.
    """
    people = dict(
        Person.objects.annotate(handle=Lower("github"))
        .filter(handle__in={h.lower() for h in handles})
        .values_list("handle", "id")
    )
    if not people:
        return 0
    mentions = Q()
    for handle in people:
        mentions |= Q(presenters_text__icontains=handle)
    through = AgendaItem.presenters.through
    have = set(through.objects.filter(person_id__in=people.values()).values_list("agendaitem_id", "person_id"))
    add = []
    for item_id, text in AgendaItem.objects.filter(mentions).values_list("id", "presenters_text"):
        _, refs, _ = split_presenters(f"[{text}]")
        for ref in refs:
            person_id = people.get(ref.handle.lower())
            if person_id is not None and (item_id, person_id) not in have:
                have.add((item_id, person_id))
                add.append(through(agendaitem_id=item_id, person_id=person_id))
    through.objects.bulk_create(add, ignore_conflicts=True)
    return len(add)


@transaction.atomic
def agenda_items_link_releases(*, versions) -> int:
    """Point agenda items that name these (newly created) releases at them; returns how many items changed.

    Uses the importer's own rule (`item_releases` on the stored title), so the result equals a fresh import.
    """
    versions = set(versions)
    if not versions:
        return 0
    mentions = Q()
    for version in versions:
        mentions |= Q(title__contains=version)
    items = list(AgendaItem.objects.filter(mentions).only("id", "title", "related_release"))
    wanted = {item.pk: item_releases(item.title) for item in items}
    releases = {r.version: r for r in Release.objects.filter(version__in={v for vs in wanted.values() for v in vs})}
    changed = []
    for item in items:
        release_id = _release_for(tuple(wanted[item.pk]), releases)
        if release_id != item.related_release_id:
            item.related_release_id = release_id
            changed.append(item)
    AgendaItem.objects.bulk_update(changed, ["related_release"])
    return len(changed)
