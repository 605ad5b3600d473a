"""Set-based writes for `keps.services.kep_import_session`, addressed by natural keys.

The import plans its changes as rows keyed the way the files name things: a KEP by number, a SIG by slug, a
person by lower-cased GitHub handle. A writer turns each batch of such rows into a few statements. Because no
statement needs an id the database has to send back first, the PostgreSQL writer sends them in pipeline mode
(https://www.psycopg.org/psycopg3/docs/advanced/pipeline.html): the server works through one batch while the
importer parses the next files. Each batch is one `INSERT ... SELECT` per table, whatever its size, reading
its rows from one JSON parameter and joining them to the referenced tables by natural key.

`OrmBulkWriter` does the same through the ORM (ids looked up per batch) for the embedded SQLite database.
Both are used inside the caller's transaction; leaving the `with` block waits for the server and raises a
failed statement as Django's `DatabaseError`, so the caller's transaction rolls back whole.
"""

from __future__ import annotations

import datetime
import json
import typing
from collections.abc import Sequence
from contextlib import ExitStack
from functools import cache
from typing import NamedTuple

from django.db import connection
from django.db.models import Q
from django.db.models.functions import Lower

from community.models import Person, Sig

from .models import FeatureGate, Kep, PrrApproval

__all__ = [
    "KEP_COLUMNS",
    "KEP_RELATIONS",
    "GateKey",
    "GateRow",
    "KepRow",
    "LinkRow",
    "OrmBulkWriter",
    "PersonRow",
    "PostgresBulkWriter",
    "PrrKey",
    "PrrRow",
    "bulk_writer",
]


# -- planned rows ----------------------------------------------------------------------------------------
# One NamedTuple per kind of row. A writer reads fields by name; the PostgreSQL writer sends a batch as one JSON
# array of arrays (a NamedTuple encodes as an array, in C) and reads it back by the same field names and the SQL
# types their annotations map to (`_sql_columns`). A plain tuple in field order is accepted as well.


class KepRow(NamedTuple):
    """A KEP's columns as a kep.yaml sets them; the owning SIG by slug (written as `owning_sig_id`)."""

    number: int
    title: str
    slug: str
    owning_sig: str
    status: str
    stage: str
    latest_milestone: str
    alpha_milestone: str
    beta_milestone: str
    stable_milestone: str
    deprecated_milestone: str
    creation_date: datetime.date | None
    last_updated: datetime.date | None
    disable_supported: bool | None
    tracking_issue_url: str
    source_path: str


class PersonRow(NamedTuple):
    """A person: the GitHub handle as written (`insert_people`) or its lower-cased key (`fill_people`)."""

    github: str
    name: str
    email: str


class LinkRow(NamedTuple):
    """One many-to-many link of a KEP: a SIG by slug or a person by lower-cased handle."""

    number: int
    key: str


class GateRow(NamedTuple):
    number: int
    name: str
    components: tuple[str, ...]


class GateKey(NamedTuple):
    """A feature gate to delete; the field names are the columns matched (`_delete_by_kep`)."""

    number: int
    name: str


class PrrRow(NamedTuple):
    """A PRR approval; the approver by lower-cased handle."""

    number: int
    stage: str
    approver: str


class PrrKey(NamedTuple):
    number: int
    stage: str


#: Kep columns a kep.yaml sets, in `KepRow` order after the number. Its `owning_sig` is a slug in a planned row and
#: becomes `owning_sig_id` when written.
KEP_COLUMNS = KepRow._fields[1:]
#: Kep many-to-many fields: the SIG lists (keyed by slug) and the people lists (keyed by lower-cased handle).
KEP_RELATIONS = ("participating_sigs", "authors", "reviewers", "approvers")

_SQL_TYPES = {int: "integer", str: "text", bool: "boolean", datetime.date: "date"}


@cache
def _sql_columns(row_type: type[NamedTuple]) -> tuple[tuple[str, str], ...]:
    """(field name, SQL type) of each field of `row_type`, read from its annotations: `X | None` is X; a tuple or
    list stays JSON (`jsonb`)."""
    columns = []
    for name, hint in typing.get_type_hints(row_type).items():
        args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if typing.get_origin(hint) in (tuple, list):
            sql_type = "jsonb"
        else:
            sql_type = _SQL_TYPES[args[0] if len(args) == 1 else hint]
        columns.append((name, sql_type))
    return tuple(columns)


def bulk_writer() -> PostgresBulkWriter | OrmBulkWriter:
    """The writer for the default database: set-based SQL on PostgreSQL, the ORM elsewhere."""
    return PostgresBulkWriter() if connection.vendor == "postgresql" else OrmBulkWriter()


class OrmBulkWriter:
    """Writes planned rows through the ORM: a few queries per batch to map natural keys to ids."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def insert_sigs(self, slugs: Sequence[str]) -> None:
        Sig.objects.bulk_create([Sig(slug=slug) for slug in slugs], ignore_conflicts=True)

    def insert_people(self, rows: Sequence[PersonRow]) -> None:
        people = [Person(github=row.github, name=row.name, email=row.email) for row in map(PersonRow._make, rows)]
        Person.objects.bulk_create(people, ignore_conflicts=True)

    def fill_people(self, rows: Sequence[PersonRow]) -> None:
        """Give a name or email to people (by handle key) whose one is blank; a set one is kept."""
        wanted = {row.github: row for row in map(PersonRow._make, rows)}
        changed = []
        for person in Person.objects.annotate(key=Lower("github")).filter(key__in=list(wanted)):
            row = wanted[person.key]
            person.name, person.email = person.name or row.name, person.email or row.email
            changed.append(person)
        Person.objects.bulk_update(changed, ["name", "email"])

    def upsert_keps(self, rows: Sequence[KepRow]) -> None:
        rows = [KepRow._make(row) for row in rows]
        sig_ids = self._sig_ids({row.owning_sig for row in rows})
        keps = []
        for row in rows:
            fields = row._asdict()
            fields["owning_sig_id"] = sig_ids[fields.pop("owning_sig")]
            keps.append(Kep(**fields))
        Kep.objects.bulk_create(keps, update_conflicts=True, unique_fields=["number"], update_fields=list(KEP_COLUMNS))

    def insert_links(self, relation: str, links: Sequence[LinkRow]) -> None:
        links = [LinkRow._make(link) for link in links]
        through, target = self._through(relation)
        kep_ids, target_ids = self._kep_ids(links), self._target_ids(relation, {link.key for link in links})
        through.objects.bulk_create(
            [through(kep_id=kep_ids[link.number], **{target: target_ids[link.key]}) for link in links],
            ignore_conflicts=True,
        )

    def delete_links(self, relation: str, links: Sequence[LinkRow]) -> None:
        links = [LinkRow._make(link) for link in links]
        through, target = self._through(relation)
        kep_ids, target_ids = self._kep_ids(links), self._target_ids(relation, {link.key for link in links})
        pairs = Q()
        for link in links:
            pairs |= Q(kep_id=kep_ids[link.number], **{target: target_ids[link.key]})
        through.objects.filter(pairs).delete()

    def upsert_gates(self, rows: Sequence[GateRow]) -> None:
        rows = [GateRow._make(row) for row in rows]
        kep_ids = self._kep_ids(rows)
        FeatureGate.objects.bulk_create(
            [FeatureGate(kep_id=kep_ids[row.number], name=row.name, components=list(row.components)) for row in rows],
            update_conflicts=True,
            unique_fields=["kep", "name"],
            update_fields=["components"],
        )

    def delete_gates(self, keys: Sequence[GateKey]) -> None:
        self._delete_by_kep(FeatureGate, GateKey, keys)

    def upsert_prr_approvals(self, rows: Sequence[PrrRow]) -> None:
        rows = [PrrRow._make(row) for row in rows]
        kep_ids, person_ids = self._kep_ids(rows), self._person_ids({row.approver for row in rows})
        PrrApproval.objects.bulk_create(
            [
                PrrApproval(kep_id=kep_ids[row.number], stage=row.stage, approver_id=person_ids[row.approver])
                for row in rows
            ],
            update_conflicts=True,
            unique_fields=["kep", "stage"],
            update_fields=["approver"],
        )

    def delete_prr_approvals(self, keys: Sequence[PrrKey]) -> None:
        self._delete_by_kep(PrrApproval, PrrKey, keys)

    def _delete_by_kep(self, model, key_type: type[GateKey | PrrKey], keys) -> None:
        """Delete `model` rows by KEP number and the column named by `key_type`'s second field."""
        keys = [key_type._make(key) for key in keys]
        column = key_type._fields[1]
        kep_ids = self._kep_ids(keys)
        pairs = Q()
        for key in keys:
            pairs |= Q(kep_id=kep_ids[key.number], **{column: getattr(key, column)})
        model.objects.filter(pairs).delete()

    # -- natural keys to ids ---------------------------------------------------------------------------
    @staticmethod
    def _through(relation: str):
        field = Kep._meta.get_field(relation)
        return field.remote_field.through, field.m2m_reverse_name()

    @staticmethod
    def _kep_ids(rows) -> dict[int, int]:
        """Ids of the KEPs that `rows` (typed rows) name by number."""
        return dict(Kep.objects.filter(number__in={row.number for row in rows}).values_list("number", "id"))

    @staticmethod
    def _sig_ids(slugs) -> dict[str, int]:
        return dict(Sig.objects.filter(slug__in=slugs).values_list("slug", "id"))

    @staticmethod
    def _person_ids(keys) -> dict[str, int]:
        people = Person.objects.annotate(key=Lower("github")).filter(key__in=list(keys))
        return dict(people.values_list("key", "id"))

    def _target_ids(self, relation: str, keys) -> dict[str, int]:
        return self._sig_ids(keys) if relation == "participating_sigs" else self._person_ids(keys)


class PostgresBulkWriter:
    """Writes planned rows with one set-based statement each, pipelined (see the module docstring)."""

    def __init__(self):
        self._stack = ExitStack()
        self._cursor = None

    def __enter__(self):
        connection.ensure_connection()
        # Errors of pipelined statements surface when the pipeline syncs: wrapped, they are Django's errors.
        self._stack.enter_context(connection.wrap_database_errors)
        self._cursor = self._stack.enter_context(self._server_binding_cursor())
        pipeline = getattr(connection.connection, "pipeline", None)  # psycopg 3; psycopg 2 waits per statement
        if pipeline is not None:
            self._stack.enter_context(pipeline())  # left first: waits for every statement's result
        # Django declares foreign keys DEFERRABLE INITIALLY DEFERRED, which would leave every link row's checks
        # (~12,000 in a full tree) to COMMIT, after the last file is parsed. Checked per statement instead, they
        # run while the importer parses the next files. Restored on success (a failed transaction only rolls back).
        self._execute("SET CONSTRAINTS ALL IMMEDIATE", [])
        return self

    def __exit__(self, exc_type, exc, traceback):
        if exc_type is None:
            try:
                self._execute("SET CONSTRAINTS ALL DEFERRED", [])
            except BaseException as failure:
                # An earlier statement's error surfaces here when its answer is in by now (a busy machine): the
                # stack must still be left, or the connection stays in pipeline mode and refuses every later
                # query ("pipeline aborted"). Leaving it raises the error as Django's.
                self._stack.__exit__(type(failure), failure, failure.__traceback__)
                raise
        return self._stack.__exit__(exc_type, exc, traceback)

    def _execute(self, sql: str, params: list) -> None:
        self._cursor.execute(sql, params)

    @staticmethod
    def _server_binding_cursor():
        """A cursor that sends parameters apart from the SQL, wrapped like `connection.cursor()` (query log).

        Django's psycopg cursors bind client-side by default, copying each parameter, quoted, into the SQL
        text; a batch's JSON (~100 kB for 650 KEPs) is better sent as it is, and kept out of the query log.
        """
        raw = connection.connection
        if not hasattr(raw, "pipeline"):  # psycopg 2 has a single kind of cursor
            return connection.cursor()
        import psycopg

        cursor = psycopg.Cursor(raw)
        return connection.make_debug_cursor(cursor) if connection.queries_logged else connection.make_cursor(cursor)

    # -- statements ------------------------------------------------------------------------------------
    def insert_sigs(self, slugs: Sequence[str]) -> None:
        self._insert_select(Sig, {"slug": "u.slug"}, _json_table((("slug", "text"),)), [_json([[s] for s in slugs])])

    def insert_people(self, rows: Sequence[PersonRow]) -> None:
        self._insert_select(
            Person, {"github": "u.github", "name": "u.name", "email": "u.email"}, _json_rows(PersonRow), [_json(rows)]
        )

    def fill_people(self, rows: Sequence[PersonRow]) -> None:
        """Give a name or email to people (by handle key) whose one is blank; a set one is kept."""
        self._execute(
            f"UPDATE {_table(Person)} AS p SET "
            "name = CASE WHEN p.name = '' THEN u.name ELSE p.name END, "
            "email = CASE WHEN p.email = '' THEN u.email ELSE p.email END "
            f"FROM {_json_rows(PersonRow)} WHERE lower(p.github) = u.github",
            [_json(rows)],
        )

    def upsert_keps(self, rows: Sequence[KepRow]) -> None:
        selected = {name: f"u.{name}" for name in KepRow._fields if name != "owning_sig"}
        selected["owning_sig_id"] = "s.id"  # the SIG named by slug, joined below
        updated = ", ".join(
            f"{_quote(column)} = EXCLUDED.{_quote(column)}" for column in selected if column != "number"
        )
        self._insert_select(
            Kep,
            selected,
            f"{_json_rows(KepRow)} JOIN {_table(Sig)} AS s ON s.slug = u.owning_sig",
            [_json(rows)],
            conflict=f"({_quote('number')}) DO UPDATE SET {updated}",
        )

    def insert_links(self, relation: str, links: Sequence[LinkRow]) -> None:
        through, target, join = self._link_target(relation)
        self._execute(
            f"INSERT INTO {_table(through)} (kep_id, {_quote(target)}) SELECT k.id, t.id "
            f"FROM {_json_rows(LinkRow)} "
            f"JOIN {_table(Kep)} AS k ON k.number = u.number {join} ON CONFLICT DO NOTHING",
            [_json(links)],
        )

    def delete_links(self, relation: str, links: Sequence[LinkRow]) -> None:
        through, target, join = self._link_target(relation)
        self._execute(
            f"DELETE FROM {_table(through)} AS l USING ("
            f"SELECT k.id AS kep_id, t.id AS target_id FROM {_json_rows(LinkRow)} "
            f"JOIN {_table(Kep)} AS k ON k.number = u.number {join}"
            f") AS gone WHERE l.kep_id = gone.kep_id AND l.{_quote(target)} = gone.target_id",
            [_json(links)],
        )

    def upsert_gates(self, rows: Sequence[GateRow]) -> None:
        self._insert_select(
            FeatureGate,
            {"kep_id": "k.id", "name": "u.name", "components": "u.components"},
            f"{_json_rows(GateRow)} JOIN {_table(Kep)} AS k ON k.number = u.number",
            [_json(rows)],
            conflict="(kep_id, name) DO UPDATE SET components = EXCLUDED.components",
        )

    def delete_gates(self, keys: Sequence[GateKey]) -> None:
        self._delete_by_kep(FeatureGate, GateKey, keys)

    def upsert_prr_approvals(self, rows: Sequence[PrrRow]) -> None:
        self._insert_select(
            PrrApproval,
            {"kep_id": "k.id", "stage": "u.stage", "approver_id": "p.id"},
            f"{_json_rows(PrrRow)} JOIN {_table(Kep)} AS k ON k.number = u.number "
            f"JOIN {_table(Person)} AS p ON lower(p.github) = u.approver",
            [_json(rows)],
            conflict="(kep_id, stage) DO UPDATE SET approver_id = EXCLUDED.approver_id",
        )

    def delete_prr_approvals(self, keys: Sequence[PrrKey]) -> None:
        self._delete_by_kep(PrrApproval, PrrKey, keys)

    # -- building blocks -------------------------------------------------------------------------------
    def _insert_select(self, model, selected: dict[str, str], source: str, params: list, *, conflict=None) -> None:
        """INSERT INTO model (columns) SELECT expressions FROM source (`selected` maps column to expression), every
        other column at its model default.

        Defaults come from the model (`Field.get_default()`), as `Model.objects.create` would set them, so a
        column added to the model later needs no change here.
        """
        columns, expressions, default_params = list(selected), list(selected.values()), []
        for field in model._meta.concrete_fields:
            if field.primary_key or field.column in selected:
                continue
            columns.append(field.column)
            expressions.append("%s")
            default_params.append(field.get_db_prep_save(field.get_default(), connection))
        sql = (
            f"INSERT INTO {_table(model)} ({', '.join(_quote(c) for c in columns)}) "
            f"SELECT {', '.join(expressions)} FROM {source} ON CONFLICT {conflict or 'DO NOTHING'}"
        )
        # Defaults are selected before FROM, so their parameters come first.
        self._execute(sql, [*default_params, *params])

    def _delete_by_kep(self, model, key_type: type[GateKey | PrrKey], keys) -> None:
        """Delete `model` rows by KEP number and the column named by `key_type`'s second field."""
        column = key_type._fields[1]
        self._execute(
            f"DELETE FROM {_table(model)} AS r USING {_table(Kep)} AS k, {_json_rows(key_type)} "
            f"WHERE k.number = u.number AND r.kep_id = k.id AND r.{_quote(column)} = u.{column}",
            [_json(keys)],
        )

    @staticmethod
    def _link_target(relation: str) -> tuple[type, str, str]:
        """(through model, its target column, SQL joining the planned key to the target as `t`)."""
        field = Kep._meta.get_field(relation)
        if relation == "participating_sigs":
            join = f"JOIN {_table(Sig)} AS t ON t.slug = u.key"
        else:
            join = f"JOIN {_table(Person)} AS t ON lower(t.github) = u.key"
        return field.remote_field.through, field.m2m_reverse_name(), join


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def _json_rows(row_type: type[NamedTuple]) -> str:
    """SQL for a table `u` of `row_type` rows (columns named as its fields) read from one JSON parameter."""
    return _json_table(_sql_columns(row_type))


def _json_table(columns: Sequence[tuple[str, str]]) -> str:
    """SQL for a table `u` read from one JSON parameter, an array of rows that are arrays of values in the order of
    `columns` ((name, SQL type) pairs).

    One JSON text per batch because Python's json encoder is C: psycopg encodes a Python list as an SQL array
    element by element in Python, which cost more than the statement itself on a full tree.
    """
    fields = ", ".join(
        f"r -> {index} AS {name}" if sql_type == "jsonb" else f"(r ->> {index})::{sql_type} AS {name}"
        for index, (name, sql_type) in enumerate(columns)
    )
    return f"(SELECT {fields} FROM jsonb_array_elements(%s::jsonb) AS r) AS u"


def _json(rows) -> str:
    return json.dumps(rows, default=_json_value, separators=(",", ":"))


def _json_value(value):
    if isinstance(value, datetime.date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a planned column type")
