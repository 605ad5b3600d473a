"""A change counter that database triggers bump on every write to a set of tables (the page cache's data
generation, core/page_cache.py).

PostgreSQL: one statement-level trigger per table calls a function (made by core/migrations/0004) that advances
a sequence, so concurrent writers never wait on one counter row. SQLite: a row-level trigger per table and event
adds one to row 1 of the counter table, inside the writer's transaction.
"""

__all__ = ["counter_read", "greatest", "triggers_sync"]

#: The PostgreSQL function the triggers call (core/migrations/0004_generation_sequence.py).
BUMP_FUNCTION = "sigtracker_bump_generation"
_SQLITE_EVENTS = ("insert", "update", "delete")


def _name(prefix: str, table: str) -> str:
    return f"{prefix}{table}"[:63]


def triggers_sync(conn, *, wanted: set[str], prefix: str, counter_table: str) -> set[str] | None:
    """Give each table of `wanted` its trigger and take the triggers named `prefix...` from other tables; returns
    the tables that had one before, or None when this database cannot have them yet (PostgreSQL before the
    migration that makes the function) or at all (another vendor)."""
    with conn.cursor() as cursor:
        if conn.vendor == "postgresql":
            cursor.execute("SELECT 1 FROM pg_proc WHERE proname = %s", [BUMP_FUNCTION])
            if cursor.fetchone() is None:
                return None
            cursor.execute(
                "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE t.tgname LIKE %s AND NOT t.tgisinternal",
                [prefix + "%"],
            )
            have = {row[0] for row in cursor.fetchall()}
            for table in sorted(wanted - have):
                cursor.execute(
                    f'CREATE TRIGGER "{_name(prefix, table)}" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE '
                    f'ON "{table}" FOR EACH STATEMENT EXECUTE FUNCTION {BUMP_FUNCTION}()'
                )
            for table in sorted(have - wanted):
                cursor.execute(f'DROP TRIGGER IF EXISTS "{_name(prefix, table)}" ON "{table}"')
            return have
        if conn.vendor == "sqlite":
            cursor.execute(
                "SELECT DISTINCT tbl_name FROM sqlite_master WHERE type = 'trigger' AND name LIKE %s", [prefix + "%"]
            )
            have = {row[0] for row in cursor.fetchall()}
            for table in sorted(wanted - have):
                for event in _SQLITE_EVENTS:
                    cursor.execute(
                        f'CREATE TRIGGER IF NOT EXISTS "{_name(prefix, table)}_{event}" AFTER {event.upper()} '
                        f'ON "{table}" BEGIN UPDATE {counter_table} SET value = value + 1 WHERE id = 1; END'
                    )
            for table in sorted(have - wanted):
                for event in _SQLITE_EVENTS:
                    cursor.execute(f'DROP TRIGGER IF EXISTS "{_name(prefix, table)}_{event}"')
            return have
    return None


def counter_read(conn, *, sequence: str, counter_table: str, also: str) -> tuple:
    """(the counter, the value of the SQL scalar `also`) in one statement. On SQLite a flushed counter table
    gets its row back (counting from 0)."""
    with conn.cursor() as cursor:
        if conn.vendor == "postgresql":
            # A new sequence reads last_value 1 both before and after its first nextval(): is_called tells them apart.
            cursor.execute(f"SELECT CASE WHEN is_called THEN last_value ELSE 0 END, {also} FROM {sequence}")
            return tuple(cursor.fetchone())
        cursor.execute(f"SELECT value, {also} FROM {counter_table} WHERE id = 1")
        row = cursor.fetchone()
        if row is None:
            cursor.execute(f"INSERT INTO {counter_table} (id, value) VALUES (1, 0)")
            return 0, None
        return tuple(row)


def greatest(conn) -> str:
    """The SQL function of the larger of two values: PostgreSQL's GREATEST, SQLite's two-argument MAX."""
    return "GREATEST" if conn.vendor == "postgresql" else "MAX"
