"""A GIN index for the agenda-item full-text search of /meetings/?q= — on PostgreSQL only.

The indexed expression is exactly the one `meetings.search.AGENDA_SEARCH.vector()` makes Django
emit, so the planner uses the index. SQLite (the demo) has no tsvector; there the migration does nothing.
"""

from django.db import migrations

INDEX_SQL = """
CREATE INDEX IF NOT EXISTS agendaitem_search_idx ON meetings_agendaitem USING GIN (
    to_tsvector('english'::regconfig,
                COALESCE(title, '') || ' ' || COALESCE(body, '') || ' ' || COALESCE(presenters_text, ''))
)
"""
DROP_SQL = "DROP INDEX IF EXISTS agendaitem_search_idx"


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(INDEX_SQL)


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_SQL)


class Migration(migrations.Migration):
    dependencies = [("meetings", "0001_initial")]

    operations = [migrations.RunPython(create_index, drop_index, elidable=False)]
