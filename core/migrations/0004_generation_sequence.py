"""PostgreSQL: the data generation moves from a counter row to a sequence, so writers no longer queue.

With the counter row, every write to a watched table updated row 1 of sigtracker_datageneration inside the
writer's transaction: two transactions writing unrelated tables (an import on keps_kep, an admin edit of
meetings_meeting) waited on that row's lock until one committed. Now the triggers' function

- takes a *shared* transaction-level advisory lock (shared locks never wait for each other; it is released when
  the transaction ends, after its data became visible), then
- calls nextval() on a sequence (non-transactional: visible at once, no row lock).

Because nextval is visible before the data, a page rendered meanwhile must not be cached under the new value:
core/page_cache.py caches a page only when no writer holds the advisory lock (see its docstring for why
that is enough). The triggers themselves are unchanged: they call the function by name.

SQLite keeps the counter row: it has one writer at a time anyway, and its update is transactional.
"""

from django.db import migrations

#: The advisory lock key writers hold while their bump is not yet matched by visible data (core/page_cache.py).
LOCK_KEY = 7_316_544_023_891_537_261


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("CREATE SEQUENCE IF NOT EXISTS sigtracker_generation")
        cursor.execute(
            f"""CREATE OR REPLACE FUNCTION sigtracker_bump_generation() RETURNS trigger AS $$
            BEGIN PERFORM pg_advisory_xact_lock_shared({LOCK_KEY}); PERFORM nextval('sigtracker_generation');
            RETURN NULL; END; $$ LANGUAGE plpgsql"""
        )


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            """CREATE OR REPLACE FUNCTION sigtracker_bump_generation() RETURNS trigger AS $$
            BEGIN UPDATE sigtracker_datageneration SET value = value + 1 WHERE id = 1; RETURN NULL; END;
            $$ LANGUAGE plpgsql"""
        )
        cursor.execute("DROP SEQUENCE IF EXISTS sigtracker_generation")


class Migration(migrations.Migration):
    dependencies = [("core", "0003_generation_triggers")]

    operations = [migrations.RunPython(forward, backward)]
