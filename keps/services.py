"""Writes for the keps app."""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from django.db.models.functions import Lower

from community.importers.people import PersonRef
from community.models import Person, Sig
from community.services import SigResolver, sig_resolver_load
from core.importing import (
    ImportFailure,
    ImportReport,
    ImportUsageError,
    Progress,
    import_in_one_transaction,
    no_progress,
    parsed_in_chunks,
    read_text,
)

from .bulk_writers import KEP_COLUMNS, KEP_RELATIONS, KepRow, bulk_writer
from .importers.kep_yaml import (
    KepRecord,
    NotAKepYet,
    PrrRecord,
    choose_kep_records,
    directory_number,
    parse_kep,
    parse_prr,
)
from .models import FeatureGate, Kep, PrrApproval
from .signals import keps_created

__all__ = ["KepImport", "KepImportResult", "KepTree", "kep_import_session", "kep_tree_find", "kep_tree_import"]


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
def kep_import_session(
    *, contested_numbers: Iterable[int] = (), numbers: Collection[int] | None = None
) -> Iterator[KepImport]:
    """An import that takes kep.yaml records as they are parsed and writes them while the next are parsed.

    Use inside a transaction: `with kep_import_session() as run: run.add_keps(chunk) ...; run.finish(...)`.
    Callers serialise concurrent runs with `import_lock("import_keps")` (as `kep_tree_import` does); the
    conflict-tolerant inserts keep even unserialised runs from creating duplicates.

    `contested_numbers` are KEP numbers that more than one directory of the input carries: their records wait
    for `finish`, where the duplicate rule (`choose_kep_records`) picks one. Leaving the block waits for the
    database; a statement it refused raises there (Django's DatabaseError), and the transaction rolls back.

    `numbers`, when the caller knows every KEP number its records and PRR files can carry, limits what is read
    of the stored KEPs to those (an import of a few changed KEPs does not load the whole catalogue).
    """
    state = _ImportState.load(numbers=numbers)
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
    keps: dict[int, KepRow]  # number -> the KEP's columns as stored
    links: dict[str, dict[int, frozenset[str]]]  # relation -> number -> slugs or handle keys
    gates: dict[int, dict[str, tuple[str, ...]]]  # number -> gate name -> components
    prr: dict[int, dict[str, str]]  # number -> stage -> approver's handle key

    @classmethod
    def load(cls, *, numbers: Collection[int] | None = None) -> _ImportState:
        """What the database holds; with `numbers`, of those KEPs only (the SIGs and people all the same)."""

        def of_keps(queryset, path: str = "kep__number"):
            return queryset if numbers is None else queryset.filter(**{f"{path}__in": numbers})

        columns = [name if name != "owning_sig" else "owning_sig__slug" for name in KEP_COLUMNS]
        keps = {row[0]: KepRow(*row) for row in of_keps(Kep.objects, "number").values_list("number", *columns)}
        links: dict[str, dict[int, frozenset[str]]] = {}
        for relation in KEP_RELATIONS:
            through = Kep._meta.get_field(relation).remote_field.through
            target = "sig__slug" if relation == "participating_sigs" else "person__github"
            grouped = defaultdict(set)
            for number, key in of_keps(through.objects).values_list("kep__number", target):
                grouped[number].add(key if relation == "participating_sigs" else key.lower())
            links[relation] = {number: frozenset(keys) for number, keys in grouped.items()}
        gates: dict[int, dict[str, tuple[str, ...]]] = defaultdict(dict)
        for number, name, components in of_keps(FeatureGate.objects).values_list("kep__number", "name", "components"):
            gates[number][name] = tuple(components or ())
        prr: dict[int, dict[str, str]] = defaultdict(dict)
        for number, stage, github in of_keps(PrrApproval.objects).values_list(
            "kep__number", "stage", "approver__github"
        ):
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
        """The record with its SIG spellings read through the alias table (community.services.SigResolver).

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
        return current is None or current.source_path == record.source_path

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
            row = KepRow(record.number, *(getattr(record, name) for name in KEP_COLUMNS))
            if state.keps.get(record.number) != row:
                state.keps[record.number] = row
                kep_rows.append(row)
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


# -- a kubernetes/enhancements tree --------------------------------------------------------------------------

#: Name of the advisory lock that serialises concurrent KEP imports.
KEP_IMPORT_LOCK = "import_keps"


@dataclass(frozen=True)
class KepTree:
    """The files of one import: kep.yaml files in path order, then the PRR files, with what the rules need."""

    base_prefix: str  # the checkout's folder with a trailing separator; stored paths are relative to it
    kep_files: list[str]
    prr_files: list[str]
    contested_numbers: frozenset[int]  # KEP numbers two or more directories carry
    templates: tuple[str, ...] = ()  # keps/NNNN-kep-template/kep.yaml: not read, listed with -v 2
    root: str = ""  # the folder the import was given: no file is read through a link out of it
    #: Part of the tree (`kep_tree_subset`): its few files are parsed before anything is written, so that only the
    #: stored rows of the KEPs they name are read to compare with.
    subset: bool = False

    @property
    def files(self) -> list[Path]:
        return [Path(file) for file in self.kep_files + self.prr_files]


def _listed_folders(keps_dir: Path, listing: Iterable[str]) -> list[tuple[str, list, list[str]]]:
    """`os.walk(keps_dir)`'s (folder, [], file names) made from `listing`, the checkout's files relative to its
    root (as `git ls-files` names them), for the files under `keps_dir`."""
    top = os.path.join(str(keps_dir), "")
    folders: dict[str, list[str]] = {}
    for relative in listing:
        parts = relative.split("/")
        if any(part in ("", ".", "..") for part in parts):  # git names no such path; nothing out of keps_dir
            continue
        file = os.path.join(str(keps_dir.parent), *parts)
        if file.startswith(top):
            folder, name = os.path.split(file)
            folders.setdefault(folder, []).append(name)
    return [(folder, [], names) for folder, names in folders.items()]


def kep_tree_find(*, root: Path, listing: Iterable[str] | None = None, require_files: bool = True) -> KepTree:
    """Every `keps/**/kep.yaml` (not the template `keps/NNNN-kep-template`) and `keps/prod-readiness/**/*.yaml`
    under `root`, a kubernetes/enhancements checkout or its keps/ folder.

    `listing`, the checkout's files relative to `root` (a git checkout's own list of them, when `root` is the
    top of a checkout whose working tree is exactly its index), spares walking every folder of the tree.

    Raises ImportUsageError when `root` is not a folder or (with `require_files`) holds neither kind of file.
    """
    if not root.is_dir():
        raise ImportUsageError(f"{root}: not a folder")
    keps_dir = (root / "keps" if (root / "keps").is_dir() else root).absolute()
    # Stored source paths are relative to the checkout ("keps/sig-node/2727-grpc-probe/kep.yaml"), so the
    # same tree imported from another place is recognised as unchanged.
    base_prefix = os.path.join(keps_dir.parent, "")
    # The template (keps/NNNN-kep-template/kep.yaml) is not a KEP. An unnumbered draft inside a SIG folder
    # (keps/sig-storage/NNNN-stateful-set-update-claim-template) is read, and skipped with its reason.
    top, prr_dir = str(keps_dir), os.path.join(keps_dir, "prod-readiness")
    kep_files, prr_files, templates = [], [], []
    folders = os.walk(keps_dir) if listing is None else _listed_folders(keps_dir, listing)
    for folder, _, names in folders:
        if folder == prr_dir or folder.startswith(prr_dir + os.sep):
            for name in names:
                if name.endswith(".yaml"):
                    file = os.path.join(folder, name)
                    (templates if _is_prr_template(folder, name) else prr_files).append(file)
        elif "kep.yaml" in names:
            template = os.path.dirname(folder) == top and os.path.basename(folder).upper().startswith("NNNN")
            (templates if template else kep_files).append(os.path.join(folder, "kep.yaml"))
    if require_files and not kep_files and not prr_files:
        raise ImportUsageError(f"{root}: no keps/<sig>/<NNNN-name>/kep.yaml or prod-readiness files")
    # In path order (by folder names, as pathlib sorts), whatever characters the names hold.
    kep_files.sort(key=lambda file: file.split(os.sep))
    prr_files.sort(key=lambda file: file.split(os.sep))
    # Numbers that two directories carry (a KEP moved between SIGs, leaving a `replaced` copy) are settled by
    # the duplicate rule once every file is read; the others are written as soon as they are parsed.
    claims = Counter(directory_number(os.path.basename(os.path.dirname(file))) for file in kep_files)
    contested = frozenset(number for number, count in claims.items() if number is not None and count > 1)
    return KepTree(
        base_prefix=base_prefix,
        kep_files=kep_files,
        prr_files=prr_files,
        contested_numbers=contested,
        templates=tuple(sorted(templates)),
        root=str(root),
    )


def _is_prr_template(folder: str, name: str) -> bool:
    """keps/prod-readiness/template/nnnn.yaml: the PRR file template, not an approval (named by no number)."""
    stem = name.removesuffix(".yaml")
    return os.path.basename(folder) == "template" or (stem.isascii() and stem.isalpha() and set(stem.lower()) == {"n"})


def kep_tree_subset(tree: KepTree, *, changed: Collection[str]) -> KepTree:
    """The part of `tree` a change to `changed` (paths relative to the checkout, as git names them) concerns: each
    changed kep.yaml and PRR file still there, with every other file of the same KEP numbers (the duplicate rule
    and the PRR merge weigh them together; a KEP's PRR file is read again when its kep.yaml changed, so one
    committed before its KEP gets imported with it). KEPs outside it are left alone by the import."""
    wanted = {tree.base_prefix + path.replace("/", os.sep) for path in changed}
    numbers = _changed_numbers(changed)

    def kep_of(file: str) -> int | None:
        return directory_number(os.path.basename(os.path.dirname(file)))

    def prr_of(file: str) -> int | None:
        stem = os.path.basename(file).removesuffix(".yaml")
        return int(stem) if stem.isdigit() else None

    return replace(
        tree,
        kep_files=[file for file in tree.kep_files if file in wanted or kep_of(file) in numbers],
        prr_files=[file for file in tree.prr_files if file in wanted or prr_of(file) in numbers],
        templates=(),
        subset=True,
    )


def _file_number(path: str) -> int | None:
    """The KEP number a path relative to the checkout names: a kep.yaml's folder's, a PRR file's name."""
    folder, _, name = path.rpartition("/")
    if name == "kep.yaml":
        return directory_number(folder.rpartition("/")[2])
    stem = name.removesuffix(".yaml")
    return int(stem) if stem.isdigit() else None


def _changed_numbers(changed: Iterable[str]) -> set[int]:
    """The KEP numbers changed paths (relative to the checkout) name."""
    return {number for path in changed if (number := _file_number(path)) is not None}


def _listing_narrowed(listing: Iterable[str], changed: Collection[str]) -> list[str]:
    """The entries of a checkout's `listing` that `kep_tree_subset` can keep for `changed`: the changed files and
    every kep.yaml and PRR file of the same numbers (a superset: the subset still decides), so that a few changed
    KEPs do not cost a pass over every folder of the tree."""
    wanted, numbers = set(changed), _changed_numbers(changed)
    return [path for path in listing if path in wanted or (path.endswith(".yaml") and _file_number(path) in numbers)]


def kep_tree_import(
    *,
    root: Path,
    dry_run: bool,
    progress: Progress = no_progress,
    only: Collection[str] | None = None,
    listing: Iterable[str] | None = None,
) -> ImportReport:
    """Import KEPs (kep.yaml) and PRR approvals from a kubernetes/enhancements checkout or its keps/ folder.

    The valid files are written together in one transaction under `import_lock("import_keps")`, each chunk of
    kep.yaml files while the next is parsed; a file that fails to parse is skipped alone, with one line naming
    it, and contributes nothing. One transaction rather than one per file because PRR files and duplicate KEP
    numbers refer across files, and because bulk writes keep a full-tree import within a second. kep.yaml files
    come first, so the PRR files' KEPs are known when they are written. Agenda items imported earlier that
    mention a KEP created now are linked to it in the same transaction. A dry run rolls everything back.

    With `only` (paths relative to the checkout: the files a git change touched), just the KEPs those concern
    are read (`kep_tree_subset`); the rest of the tree is left alone. `listing`: see `kep_tree_find`.

    Raises ImportUsageError (nothing read) when `root` holds nothing to import; a database refusal is reported
    as `refused` in the returned report, with nothing written.
    """
    narrowed = only is not None and listing is not None
    if narrowed:
        listing = _listing_narrowed(listing, only)
    # A narrowed listing may rightly hold no KEP (the template alone changed): nothing to import, not a usage error.
    tree = kep_tree_find(root=root, listing=listing, require_files=not narrowed)
    if only is not None:
        tree = kep_tree_subset(tree, changed=only)
    report = ImportReport()
    for template in tree.templates:
        relative = template.removeprefix(tree.base_prefix).replace(os.sep, "/")
        what = "the PRR approval template" if "/prod-readiness/" in relative else "the KEP template"
        report.note(f"not a KEP: {relative} ({what})")

    def write() -> None:
        _kep_tree_write(tree=tree, report=report, progress=progress)

    return import_in_one_transaction(lock_name=KEP_IMPORT_LOCK, dry_run=dry_run, report=report, write=write)


def _kep_tree_write(*, tree: KepTree, report: ImportReport, progress: Progress) -> None:
    """Parse the tree's files chunk by chunk, write each chunk of KEPs as it is ready, then the PRR approvals."""
    parse_file = partial(_tree_file_parse, tree=tree, prr_files=frozenset(tree.prr_files))
    chunks = parsed_in_chunks(files=tree.files, parse_file=parse_file, report=report, progress=progress)
    numbers = None
    if tree.subset:  # a few changed KEPs: parsed first, then only their stored rows read (the number a record
        # carries may be its kep.yaml's, not its folder's: a folder named by date, a KEP moved into a subfolder)
        chunks = list(chunks)
        numbers = {record.number for chunk in chunks for record in chunk if record is not None}
    kep_records: list[KepRecord] = []
    prr_records: list[PrrRecord] = []
    with kep_import_session(contested_numbers=tree.contested_numbers, numbers=numbers) as run:
        for chunk in chunks:
            keps = [record for record in chunk if isinstance(record, KepRecord)]
            run.add_keps(keps)
            kep_records += keps
            prr_records += [record for record in chunk if isinstance(record, PrrRecord)]
        result = run.finish(prr_records=prr_records)
    # Agenda items imported earlier may mention KEPs that exist only now: link them (same transaction).
    created = [r.number for r in kep_records if result.outcomes.get(r.source_path) == "created"]
    if created:
        keps_created.send(sender=Kep, kep_numbers=created)
    for outcome in ("created", "updated", "unchanged"):
        report.count(outcome, result.count(outcome))
    report.warnings.extend(result.warnings)
    report.note(
        f"{result.sigs_created} SIGs and {result.people_created} people created, "
        f"{result.people_updated} people completed, {result.rows_written} rows written"
    )


def _tree_file_parse(
    path: Path, report: ImportReport, *, tree: KepTree, prr_files: frozenset[str]
) -> KepRecord | PrrRecord | None:
    """One file of the tree as a record (None for a draft waiting for its number), its warnings in `report`."""
    file = str(path)
    relative = file.removeprefix(tree.base_prefix).replace(os.sep, "/")
    try:
        text = read_text(path, root=Path(tree.root) if tree.root else None)
    except ImportFailure as failure:
        failure.source = relative  # every message names files the same way, relative to the checkout
        raise
    folder, name = os.path.split(file)
    if file in prr_files:
        stem = name.removesuffix(".yaml")
        number = int(stem) if stem.isascii() and stem.isdigit() else None
        record = parse_prr(text, source=relative, file_number=number)
    else:
        try:
            record = parse_kep(text, source=relative, directory=os.path.basename(folder))
        except NotAKepYet as draft:
            # A draft waiting for its number is not a failure of the import: listed, not skipped.
            report.note(f"not a KEP yet: {draft}", verbosity=2)
            return None
    report.warnings.extend(record.warnings)
    return record
