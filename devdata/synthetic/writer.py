"""Writing rows fast: COPY on PostgreSQL for the largest tables, bulk_create elsewhere."""

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import JSONField


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
