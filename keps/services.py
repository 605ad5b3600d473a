"""Writes for the keps app."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from django.db.models.functions import Lower

from .bulk_writers import KEP_COLUMNS, KEP_RELATIONS, bulk_writer
from .importers.kep_yaml import KepRecord, PersonRef, PrrRecord, choose_kep_records
from .models import FeatureGate, Kep, Person, PrrApproval, Sig
from .services_sigs import SigResolver, sig_resolver_load

__all__ = ["KepImport", "KepImportResult", "kep_import_session"]


@dataclass
class KepImportResult:
    """What an import did: an outcome per source file, the rows it wrote, and warnings."""

    outcomes: dict[str, str] = field(default_factory=dict)  # source_path -> created | updated | unchanged
    sigs_created: int = 0
    people_created: int = 0
    people_updated: int = 0
    rows_written: int = 0
    warnings: list[str] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for value in self.outcomes.values() if value == outcome)


@contextmanager
def kep_import_session(*, contested_numbers: Iterable[int] = ()) -> Iterator[KepImport]:
    """An import that takes kep.yaml records as they are parsed and writes them while the next are parsed.

    Use inside a transaction: `with kep_import_session() as run: run.add_keps(chunk) ...; run.finish(...)`.
    Callers serialise concurrent runs with `import_lock("import_keps")`; the conflict-tolerant inserts keep
    even unserialised runs from creating duplicates.

    `contested_numbers` are KEP numbers that more than one directory of the input carries: their records wait
    for `finish`, where the duplicate rule (`choose_kep_records`) picks one. Leaving the block waits for the
    database; a statement it refused raises there (Django's DatabaseError), and the transaction rolls back.
    """
    state = _ImportState.load()
    with bulk_writer() as writer:
        yield KepImport(writer, state, contested_numbers=frozenset(contested_numbers), resolver=sig_resolver_load())


@dataclass
class _ImportState:
    """What the database holds, by natural keys, kept current as the import writes.

    Each per-KEP value is replaced, never changed in place, so a shallow copy taken at the start (what
    `KepImport` compares with to tell created, updated and unchanged files apart) stays as it was.
    """

    sigs: set[str]
    people: dict[str, tuple[str, str]]  # handle key -> (name, email)
    keps: dict[int, tuple]  # number -> values in KEP_COLUMNS order
    links: dict[str, dict[int, frozenset[str]]]  # relation -> number -> slugs or handle keys
    gates: dict[int, dict[str, tuple[str, ...]]]  # number -> gate name -> components
    prr: dict[int, dict[str, str]]  # number -> stage -> approver's handle key

    @classmethod
    def load(cls) -> _ImportState:
        columns = [name if name != "owning_sig" else "owning_sig__slug" for name in KEP_COLUMNS]
        keps = {number: tuple(values) for number, *values in Kep.objects.values_list("number", *columns)}
        links: dict[str, dict[int, frozenset[str]]] = {}
        for relation in KEP_RELATIONS:
            through = Kep._meta.get_field(relation).remote_field.through
            target = "sig__slug" if relation == "participating_sigs" else "person__github"
            grouped = defaultdict(set)
            for number, key in through.objects.values_list("kep__number", target):
                grouped[number].add(key if relation == "participating_sigs" else key.lower())
            links[relation] = {number: frozenset(keys) for number, keys in grouped.items()}
        gates: dict[int, dict[str, tuple[str, ...]]] = defaultdict(dict)
        for number, name, components in FeatureGate.objects.values_list("kep__number", "name", "components"):
            gates[number][name] = tuple(components or ())
        prr: dict[int, dict[str, str]] = defaultdict(dict)
        for number, stage, github in PrrApproval.objects.values_list("kep__number", "stage", "approver__github"):
            prr[number][stage] = github.lower()
        people = Person.objects.annotate(key=Lower("github")).values_list("key", "name", "email")
        return cls(
            sigs=set(Sig.objects.values_list("slug", flat=True)),
            people={key: (name, email) for key, name, email in people},
            keps=keps,
            links=links,
            gates=dict(gates),
            prr=dict(prr),
        )


class KepImport:
    """One running import (see `kep_import_session`): plans each change against `_ImportState` and hands the
    rows that differ to the bulk writer, so nothing is written for a row that already holds the imported values
    (a re-run on the same input writes no row).

    A KEP's SIG and people lists, feature gates and PRR stages become what its files say now; KEPs absent from
    the input are left alone. People are never removed, and a name or email from a file only fills a blank one:
    curators' edits in the admin win.
    """

    def __init__(
        self,
        writer,
        state: _ImportState,
        *,
        contested_numbers: frozenset[int] = frozenset(),
        resolver: SigResolver | None = None,
    ):
        self.writer = writer
        self.state = state
        self.resolver = resolver or SigResolver(aliases={}, community=frozenset())
        self.contested_numbers = contested_numbers
        self.result = KepImportResult()
        self._initial_keps = dict(state.keps)
        self._initial_links = {relation: dict(links) for relation, links in state.links.items()}
        self._initial_gates = dict(state.gates)
        self._records: list[KepRecord] = []
        self._written: dict[int, KepRecord] = {}

    def add_keps(self, records: Iterable[KepRecord]) -> None:
        """Take parsed kep.yaml records; write now those no other file can contest (see `_can_write_now`)."""
        ready = []
        for record in records:
            record = self._with_sigs_resolved(record)
            self._records.append(record)
            if self._can_write_now(record):
                self._written[record.number] = record
                ready.append(record)
        self._write_keps(ready)

    def finish(self, *, prr_records: Sequence[PrrRecord] = ()) -> KepImportResult:
        """Settle duplicate numbers, write the records held back and the PRR approvals; the outcomes."""
        chosen, dropped = choose_kep_records(self._records)
        for record, warning in dropped:
            self.result.outcomes[record.source_path] = "unchanged"
            self.result.warnings.append(warning)
        held_back = [record for record in chosen if self._written.get(record.number) is not record]
        for record in held_back:
            self._written[record.number] = record
        self._write_keps(held_back)
        for record in chosen:
            self.result.outcomes[record.source_path] = self._outcome(record.number)
        self._write_prr_approvals(prr_records)
        return self.result

    def _with_sigs_resolved(self, record: KepRecord) -> KepRecord:
        """The record with its SIG spellings read through the alias table (keps.services_sigs.SigResolver).

        Once sigs.yaml is imported, a participating spelling that is neither a community SIG nor an alias is
        dropped and reported; an owning one is kept (a KEP needs its owner) as a SIG row outside the community,
        which SIG filters hide, and reported. Each report is one line naming the file, field and spelling.
        """
        resolver = self.resolver
        if resolver.is_plain(record.owning_sig) and all(map(resolver.is_plain, record.participating_sigs)):
            return record  # the common case, kept cheap: a full tree has ~650 records
        warnings = self.result.warnings
        owning, known = resolver.resolve(record.owning_sig)
        if owning is None or not known:
            owning = owning or record.owning_sig
            warnings.append(
                f"{record.source_path}: owning-sig: {record.owning_sig!r} is not a SIG in sigs.yaml or the alias "
                "table; kept as written (hidden from SIG filters)"
            )
        participating: dict[str, None] = {}
        for spelling in record.participating_sigs:
            slug, known = resolver.resolve(spelling)
            if not known:
                warnings.append(
                    f"{record.source_path}: participating-sigs: {spelling!r} is not a SIG in sigs.yaml or the alias "
                    "table; dropped"
                )
            elif slug is not None:
                participating.setdefault(slug)
        return replace(record, owning_sig=owning, participating_sigs=tuple(participating))

    # -- planning ------------------------------------------------------------------------------------------
    def _can_write_now(self, record: KepRecord) -> bool:
        """Whether `record` is sure to be its number's only claimant, so writing it before `finish` is final.

        True when its directory carries its number and no other directory of the input does, no earlier record
        has the number, and the database row (if any) came from the same file. Anything else waits for the
        duplicate rule; a re-run thus never writes a copy that loses to the file the row came from.
        """
        number = record.number
        if number in self._written or number in self.contested_numbers or record.directory_number != number:
            return False
        current = self.state.keps.get(number)
        return current is None or current[KEP_COLUMNS.index("source_path")] == record.source_path

    def _outcome(self, number: int) -> str:
        if number not in self._initial_keps:
            return "created"
        state = self.state
        if (
            state.keps[number] != self._initial_keps[number]
            or state.gates.get(number, {}) != self._initial_gates.get(number, {})
            or any(
                state.links[relation].get(number, frozenset()) != self._initial_links[relation].get(number, frozenset())
                for relation in KEP_RELATIONS
            )
        ):
            return "updated"
        return "unchanged"

    def _write_keps(self, records: Sequence[KepRecord]) -> None:
        if not records:
            return
        state, writer = self.state, self.writer
        new_sigs = sorted({slug for r in records for slug in (r.owning_sig, *r.participating_sigs)} - state.sigs)
        if new_sigs:
            writer.insert_sigs(new_sigs)
            state.sigs.update(new_sigs)
            self.result.sigs_created += len(new_sigs)
            self.result.rows_written += len(new_sigs)
        self._ensure_people(ref for r in records for ref in (*r.authors, *r.reviewers, *r.approvers))

        kep_rows = []
        for record in records:
            values = tuple(getattr(record, name) for name in KEP_COLUMNS)
            if state.keps.get(record.number) != values:
                state.keps[record.number] = values
                kep_rows.append((record.number, *values))
        if kep_rows:
            writer.upsert_keps(kep_rows)
            self.result.rows_written += len(kep_rows)

        for relation in KEP_RELATIONS:
            links, added, removed = state.links.setdefault(relation, {}), [], []
            for record in records:
                if relation == "participating_sigs":
                    wanted = frozenset(record.participating_sigs)
                else:
                    wanted = frozenset(ref.key for ref in getattr(record, relation))
                have = links.get(record.number, frozenset())
                if wanted != have:
                    links[record.number] = wanted
                    added += [(record.number, key) for key in sorted(wanted - have)]
                    removed += [(record.number, key) for key in sorted(have - wanted)]
            if removed:
                writer.delete_links(relation, removed)
            if added:
                writer.insert_links(relation, added)
            self.result.rows_written += len(added) + len(removed)

        upserts, deletes = [], []
        for record in records:
            wanted = {gate.name: tuple(gate.components) for gate in record.feature_gates}
            have = state.gates.get(record.number, {})
            if wanted != have:
                state.gates[record.number] = wanted
                upserts += [(record.number, name, parts) for name, parts in wanted.items() if have.get(name) != parts]
                deletes += [(record.number, name) for name in have if name not in wanted]
        if deletes:
            writer.delete_gates(deletes)
        if upserts:
            writer.upsert_gates(upserts)
        self.result.rows_written += len(upserts) + len(deletes)

    def _ensure_people(self, refs: Iterable[PersonRef]) -> None:
        """Create the people not known yet and fill a blank name or email of known ones (first spelling wins)."""
        people = self.state.people
        created: dict[str, list[str]] = {}
        filled: dict[str, tuple[str, str]] = {}
        for ref in refs:
            key = ref.key
            if key in created:
                row = created[key]
                row[1], row[2] = row[1] or ref.name, row[2] or ref.email
            elif key not in people:
                created[key] = [ref.github, ref.name, ref.email]
            else:
                name, email = people[key]
                if (ref.name and not name) or (ref.email and not email):
                    people[key] = filled[key] = (name or ref.name, email or ref.email)
        if created:
            self.writer.insert_people([tuple(row) for row in created.values()])
            people.update((key, (row[1], row[2])) for key, row in created.items())
        if filled:
            self.writer.fill_people([(key, name, email) for key, (name, email) in filled.items()])
        self.result.people_created += len(created)
        self.result.people_updated += len(filled)
        self.result.rows_written += len(created) + len(filled)

    def _write_prr_approvals(self, prr_records: Sequence[PrrRecord]) -> None:
        """Make each KEP's PRR approvals what its prod-readiness file says (files without a known KEP are
        reported). Two files for one KEP (keps/prod-readiness/4427.yaml and .../sig-x/4427.yaml) are merged, the
        first path winning a stage both give."""
        result, state = self.result, self.state
        wanted: dict[int, dict[str, PersonRef]] = defaultdict(dict)
        files_of: dict[int, list[str]] = defaultdict(list)
        for prr in sorted(prr_records, key=lambda p: p.source_path):
            if prr.number not in state.keps:  # in this import, imported earlier, or entered by hand
                result.outcomes[prr.source_path] = "unchanged"
                result.warnings.append(
                    f"{prr.source_path}: kep-number: no KEP-{prr.number} in this import or the database; "
                    "approvals not imported"
                )
                continue
            files_of[prr.number].append(prr.source_path)
            stages = wanted[prr.number]
            for stage, ref in prr.approvals:
                if stage in stages and stages[stage].key != ref.key:
                    result.warnings.append(
                        f"{prr.source_path}: {stage}: KEP-{prr.number} {stage} approver already "
                        "given by another file; the first is kept"
                    )
                    continue
                stages.setdefault(stage, ref)
        self._ensure_people(ref for stages in wanted.values() for ref in stages.values())

        upserts, deletes = [], []
        for number, paths in files_of.items():
            stages = {stage: ref.key for stage, ref in wanted[number].items()}
            have = state.prr.get(number, {})
            changed = [(number, stage, key) for stage, key in stages.items() if have.get(stage) != key]
            gone = [(number, stage) for stage in have if stage not in stages]
            if changed or gone:
                state.prr[number] = stages
                upserts += changed
                deletes += gone
            outcome = "created" if (changed or gone) and not have else "updated" if changed or gone else "unchanged"
            for path in paths:
                result.outcomes[path] = outcome
        if deletes:
            self.writer.delete_prr_approvals(deletes)
        if upserts:
            self.writer.upsert_prr_approvals(upserts)
        result.rows_written += len(upserts) + len(deletes)
