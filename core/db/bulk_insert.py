"""Inserting many plain rows fast: COPY on PostgreSQL from `COPY_THRESHOLD` rows on, `bulk_create` elsewhere
(the synthetic demo and bench data write hundreds of thousands of rows this way)."""

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import JSONField

__all__ = ["insert_values"]

#: From this many rows on, PostgreSQL gets them through COPY (below it, COPY's set-up costs more than it saves).
COPY_THRESHOLD = 2000


def _copy_values(model, columns: list[str], values: list[tuple]) -> list[int]:
    """PostgreSQL only: COPY plain rows into `model`'s table, primary keys drawn from its sequence first.

    JSON columns are adapted as `bulk_create` would; other values (ints, strings, dates, aware
    datetimes, None) go to psycopg as they are.
    """
    opts = model._meta
    by_attname = {f.attname: f for f in opts.concrete_fields}
    fields = [by_attname[name] for name in columns]
    db = connections[DEFAULT_DB_ALIAS]
    json_at = [i for i, f in enumerate(fields) if isinstance(f, JSONField)]
    quote = db.ops.quote_name
    with db.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [opts.db_table, opts.pk.column, len(values)],
        )
        ids = sorted(row[0] for row in cursor.fetchall())
        names = ", ".join(quote(f.column) for f in [opts.pk, *fields])
        with cursor.cursor.copy(f"COPY {quote(opts.db_table)} ({names}) FROM STDIN") as copy:
            for pk, row in zip(ids, values, strict=True):
                if json_at:
                    row = list(row)
                    for i in json_at:
                        row[i] = fields[i].get_db_prep_save(row[i], db)
                copy.write_row((pk, *row))
    return ids


def insert_values(model, columns: list[str], values: list[tuple], *, batch_size: int) -> list[int]:
    """Insert plain rows (values for the `columns` attnames) and return their primary keys in order: without
    building model instances on PostgreSQL (COPY), through `bulk_create` elsewhere or for few rows."""
    if connections[DEFAULT_DB_ALIAS].vendor == "postgresql" and len(values) >= COPY_THRESHOLD:
        return _copy_values(model, columns, values)
    created = model.objects.bulk_create(
        [model(**dict(zip(columns, row, strict=True))) for row in values], batch_size=batch_size
    )
    return [obj.pk for obj in created]
