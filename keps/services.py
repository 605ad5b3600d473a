"""Writes for the keps app."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models.functions import Lower

from .importers.kep_yaml import KepRecord, PersonRef, PrrRecord, choose_kep_records
from .models import FeatureGate, Kep, Person, PrrApproval, Sig

#: Kep columns a kep.yaml sets (`number` is the key). Compared before writing, so unchanged rows are not written.
KEP_FIELDS = (
    "title",
    "slug",
    "owning_sig_id",
    "status",
    "stage",
    "latest_milestone",
    "alpha_milestone",
    "beta_milestone",
    "stable_milestone",
    "deprecated_milestone",
    "creation_date",
    "last_updated",
    "disable_supported",
    "tracking_issue_url",
    "source_path",
)
#: Kep many-to-many fields and the record attribute that fills each.
KEP_RELATIONS = ("participating_sigs", "authors", "reviewers", "approvers")


@dataclass
class KepImportResult:
    """What `kep_import` did: an outcome per source file, the rows it wrote, and warnings."""

    outcomes: dict[str, str] = field(default_factory=dict)  # source_path -> created | updated | unchanged
    sigs_created: int = 0
    people_created: int = 0
    people_updated: int = 0
    rows_written: int = 0
    warnings: list[str] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for value in self.outcomes.values() if value == outcome)


@transaction.atomic
def kep_import(*, records: Sequence[KepRecord], prr_records: Sequence[PrrRecord] = ()) -> KepImportResult:
    """Create or update KEPs, their SIGs, people, feature gates and PRR approvals from parsed files.

    Works in bulk: a fixed number of queries per table whatever the number of files, and nothing is written
    for a row that already holds the imported values (a re-run on the same input writes no row). A KEP's
    many-to-many lists, feature gates and PRR stages are replaced by what its files say now; KEPs absent from
    the input are left alone. Callers serialise concurrent runs with `import_lock("import_keps")`; the
    conflict-tolerant inserts below keep even unserialised runs from creating duplicates.
    """
    result = KepImportResult()
    chosen, dropped = choose_kep_records(records)
    for record, warning in dropped:
        result.outcomes[record.source_path] = "unchanged"
        result.warnings.append(warning)

    sig_ids = _ensure_sigs({slug for r in chosen for slug in (r.owning_sig, *r.participating_sigs)}, result)
    people = [ref for r in chosen for ref in (*r.authors, *r.reviewers, *r.approvers)]
    people += [ref for prr in prr_records for _, ref in prr.approvals]
    person_ids = _ensure_people(people, result)

    kep_ids, created_numbers, changed_numbers = _write_keps(chosen, sig_ids, result)
    changed_numbers |= _sync_relations(chosen, kep_ids, sig_ids, person_ids, result)
    changed_numbers |= _sync_feature_gates(chosen, kep_ids, result)
    for record in chosen:
        if record.number in created_numbers:
            outcome = "created"
        elif record.number in changed_numbers:
            outcome = "updated"
        else:
            outcome = "unchanged"
        result.outcomes[record.source_path] = outcome

    _sync_prr_approvals(prr_records, kep_ids, person_ids, result)
    return result


def _ensure_sigs(slugs: set[str], result: KepImportResult) -> dict[str, int]:
    """Ids of the SIGs by slug, creating the missing ones."""
    ids = dict(Sig.objects.filter(slug__in=slugs).values_list("slug", "id"))
    missing = sorted(slugs - ids.keys())
    if missing:
        Sig.objects.bulk_create([Sig(slug=slug) for slug in missing], ignore_conflicts=True)
        ids.update(Sig.objects.filter(slug__in=missing).values_list("slug", "id"))
        result.sigs_created += len(missing)
        result.rows_written += len(missing)
    return ids


def _ensure_people(refs: Sequence[PersonRef], result: KepImportResult) -> dict[str, int]:
    """Ids of the people by lower-cased handle, creating the missing ones.

    A name or email from a kep.yaml only fills a blank one: curators' edits in the admin win.
    """
    wanted: dict[str, PersonRef] = {}
    for ref in refs:
        known = wanted.get(ref.key)
        if known is None:
            wanted[ref.key] = ref
        elif (ref.name and not known.name) or (ref.email and not known.email):
            wanted[ref.key] = PersonRef(
                github=known.github, name=known.name or ref.name, email=known.email or ref.email
            )
    if not wanted:
        return {}
    existing = Person.objects.annotate(key=Lower("github")).filter(key__in=list(wanted))
    ids, to_update = {}, []
    for person in existing.only("id", "github", "name", "email"):
        key = person.github.lower()
        ids[key] = person.id
        ref = wanted[key]
        if (ref.name and not person.name) or (ref.email and not person.email):
            person.name = person.name or ref.name
            person.email = person.email or ref.email
            to_update.append(person)
    if to_update:
        Person.objects.bulk_update(to_update, ["name", "email"])
        result.people_updated += len(to_update)
        result.rows_written += len(to_update)
    missing = [ref for key, ref in wanted.items() if key not in ids]
    if missing:
        Person.objects.bulk_create(
            [Person(github=ref.github, name=ref.name, email=ref.email) for ref in missing], ignore_conflicts=True
        )
        created = Person.objects.annotate(key=Lower("github")).filter(key__in=[ref.key for ref in missing])
        ids.update((github.lower(), pk) for github, pk in created.values_list("github", "id"))
        result.people_created += len(missing)
        result.rows_written += len(missing)
    return ids


def _kep_values(record: KepRecord, sig_ids: dict[str, int]) -> dict:
    values = {name: getattr(record, name) for name in KEP_FIELDS if name != "owning_sig_id"}
    values["owning_sig_id"] = sig_ids[record.owning_sig]
    return values


def _write_keps(
    records: Sequence[KepRecord], sig_ids: dict[str, int], result: KepImportResult
) -> tuple[dict[int, int], set[int], set[int]]:
    """Insert new KEPs and update changed ones in one statement: (ids by number, created numbers, changed)."""
    numbers = [r.number for r in records]
    existing = {
        row["number"]: row for row in Kep.objects.filter(number__in=numbers).values("id", "number", *KEP_FIELDS)
    }
    to_write, created, changed = [], set(), set()
    for record in records:
        values = _kep_values(record, sig_ids)
        row = existing.get(record.number)
        if row is None:
            created.add(record.number)
        elif any(row[name] != value for name, value in values.items()):
            changed.add(record.number)
        else:
            continue
        to_write.append(Kep(number=record.number, **values))
    if to_write:
        # One upsert for new and changed rows; ON CONFLICT also absorbs a concurrent unserialised run.
        Kep.objects.bulk_create(
            to_write,
            update_conflicts=True,
            unique_fields=["number"],
            update_fields=[name.removesuffix("_id") for name in KEP_FIELDS],
        )
        result.rows_written += len(to_write)
    ids = {number: row["id"] for number, row in existing.items()}
    if created:
        ids.update(Kep.objects.filter(number__in=created).values_list("number", "id"))
    return ids, created, changed


def _sync_relations(
    records: Sequence[KepRecord],
    kep_ids: dict[int, int],
    sig_ids: dict[str, int],
    person_ids: dict[str, int],
    result: KepImportResult,
) -> set[int]:
    """Make each KEP's SIG and people lists what its kep.yaml says; the numbers of the KEPs that changed."""
    changed: set[int] = set()
    number_of = {pk: number for number, pk in kep_ids.items()}
    for relation in KEP_RELATIONS:
        through = getattr(Kep, relation).through
        target = Kep._meta.get_field(relation).m2m_reverse_name()  # "sig_id" or "person_id"
        wanted = set()
        for record in records:
            kep_id = kep_ids[record.number]
            if relation == "participating_sigs":
                wanted.update((kep_id, sig_ids[slug]) for slug in record.participating_sigs)
            else:
                wanted.update((kep_id, person_ids[ref.key]) for ref in getattr(record, relation))
        have = {
            (kep_id, target_id): pk
            for pk, kep_id, target_id in through.objects.filter(kep_id__in=kep_ids.values()).values_list(
                "id", "kep_id", target
            )
        }
        added = wanted - have.keys()
        gone = [pair for pair in have if pair not in wanted]
        removed = [have[pair] for pair in gone]
        if added:
            _insert_links(through, target, sorted(added))
        if removed:
            through.objects.filter(id__in=removed).delete()
        result.rows_written += len(added) + len(removed)
        changed.update(number_of[kep_id] for kep_id, _ in (*added, *gone))
    return changed


def _insert_links(through, target: str, pairs: list[tuple[int, int]]) -> None:
    """Insert (kep_id, target_id) rows into a many-to-many table, ignoring rows that exist already.

    On PostgreSQL one `INSERT ... SELECT FROM unnest(...)` with two integer arrays: link rows are the bulk of a
    full-tree import (~5,000), and building a model instance per link cost more than all the SQL together.
    Elsewhere, bulk_create.
    """
    if connection.vendor != "postgresql":
        through.objects.bulk_create(
            [through(kep_id=kep_id, **{target: target_id}) for kep_id, target_id in pairs], ignore_conflicts=True
        )
        return
    quote = connection.ops.quote_name
    table = quote(through._meta.db_table)
    columns = f"{quote('kep_id')}, {quote(target)}"
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({columns}) SELECT * FROM unnest(%s::bigint[], %s::bigint[]) ON CONFLICT DO NOTHING",
            [[kep_id for kep_id, _ in pairs], [target_id for _, target_id in pairs]],
        )


def _sync_feature_gates(records: Sequence[KepRecord], kep_ids: dict[int, int], result: KepImportResult) -> set[int]:
    """Make each KEP's feature gates what its kep.yaml lists; the numbers of the KEPs that changed."""
    wanted = {
        (kep_ids[record.number], gate.name): list(gate.components)
        for record in records
        for gate in record.feature_gates
    }
    have = {
        (gate.kep_id, gate.name): gate
        for gate in FeatureGate.objects.filter(kep_id__in=kep_ids.values()).only("id", "kep_id", "name", "components")
    }
    to_create = [
        FeatureGate(kep_id=kep_id, name=name, components=parts)
        for (kep_id, name), parts in wanted.items()
        if (kep_id, name) not in have
    ]
    to_update = []
    for key, gate in have.items():
        if key in wanted and gate.components != wanted[key]:
            gate.components = wanted[key]
            to_update.append(gate)
    to_delete = [gate for key, gate in have.items() if key not in wanted]
    if to_create:
        FeatureGate.objects.bulk_create(to_create, ignore_conflicts=True)
    if to_update:
        FeatureGate.objects.bulk_update(to_update, ["components"])
    if to_delete:
        FeatureGate.objects.filter(id__in=[gate.id for gate in to_delete]).delete()
    result.rows_written += len(to_create) + len(to_update) + len(to_delete)
    number_of = {pk: number for number, pk in kep_ids.items()}
    return {number_of[gate.kep_id] for gate in (*to_create, *to_update, *to_delete)}


def _sync_prr_approvals(
    prr_records: Sequence[PrrRecord], kep_ids: dict[int, int], person_ids: dict[str, int], result: KepImportResult
) -> None:
    """Make each KEP's PRR approvals what its prod-readiness file says (files without a known KEP are reported)."""
    if not prr_records:
        return
    numbers = {prr.number for prr in prr_records}
    ids = {number: kep_ids[number] for number in numbers if number in kep_ids}
    unknown = numbers - ids.keys()
    if unknown:  # KEPs imported earlier or entered by hand
        ids.update(Kep.objects.filter(number__in=unknown).values_list("number", "id"))

    # Two files for one KEP (e.g. keps/prod-readiness/4427.yaml and .../sig-x/4427.yaml): merged, first path wins.
    wanted: dict[int, dict[str, int]] = defaultdict(dict)
    files_of: dict[int, list[str]] = defaultdict(list)
    for prr in sorted(prr_records, key=lambda p: p.source_path):
        kep_id = ids.get(prr.number)
        if kep_id is None:
            result.outcomes[prr.source_path] = "unchanged"
            result.warnings.append(
                f"{prr.source_path}: kep-number: no KEP-{prr.number} in this import or the database; "
                "approvals not imported"
            )
            continue
        files_of[kep_id].append(prr.source_path)
        for stage, ref in prr.approvals:
            if stage in wanted[kep_id] and wanted[kep_id][stage] != person_ids[ref.key]:
                result.warnings.append(
                    f"{prr.source_path}: {stage}: KEP-{prr.number} {stage} approver already "
                    "given by another file; the first is kept"
                )
                continue
            wanted[kep_id][stage] = person_ids[ref.key]

    have: dict[int, dict[str, PrrApproval]] = defaultdict(dict)
    for approval in PrrApproval.objects.filter(kep_id__in=list(files_of)).only("id", "kep_id", "stage", "approver_id"):
        have[approval.kep_id][approval.stage] = approval
    to_create, to_update, to_delete = [], [], []
    for kep_id, paths in files_of.items():
        stages, current = wanted[kep_id], have[kep_id]
        touched = False
        for stage, approver_id in stages.items():
            if stage not in current:
                to_create.append(PrrApproval(kep_id=kep_id, stage=stage, approver_id=approver_id))
                touched = True
            elif current[stage].approver_id != approver_id:
                current[stage].approver_id = approver_id
                to_update.append(current[stage])
                touched = True
        for stage, approval in current.items():
            if stage not in stages:
                to_delete.append(approval.id)
                touched = True
        outcome = "created" if touched and not current else "updated" if touched else "unchanged"
        for path in paths:
            result.outcomes[path] = outcome
    if to_create:
        PrrApproval.objects.bulk_create(to_create, ignore_conflicts=True)
    if to_update:
        PrrApproval.objects.bulk_update(to_update, ["approver"])
    if to_delete:
        PrrApproval.objects.filter(id__in=to_delete).delete()
    result.rows_written += len(to_create) + len(to_update) + len(to_delete)
