"""Agenda-item search reads a stored tsvector (PostgreSQL only), no longer one computed per row and query.

With the whole SIG Node archive, `/meetings/?q=kubelet` took 2.4 s (of a 2.7 s page): the GIN expression index of
0002 finds the matching items fast, but ranking them ran `to_tsvector` over each matching meeting's items again,
in a subquery per meeting, and the chart, the count and the matches list ran it once more each. A generated column
holds the vector once, written with the row; the GIN index is on it and ranking reads it. The expression is exactly
the one 0002 indexed (and `meetings.search.AGENDA_SEARCH.vector()` makes), so results do not change. SQLite (the
demo) has no tsvector; there the migration does nothing and search stays a case-insensitive match of every word.
"""

from django.db import migrations

VECTOR = (
    "to_tsvector('english'::regconfig, "
    "COALESCE(title, '') || ' ' || COALESCE(body, '') || ' ' || COALESCE(presenters_text, ''))"
)
FORWARD = [
    f"ALTER TABLE meetings_agendaitem ADD COLUMN IF NOT EXISTS search_vector tsvector GENERATED ALWAYS AS ({VECTOR}) STORED",
    "CREATE INDEX IF NOT EXISTS agendaitem_search_vector_idx ON meetings_agendaitem USING GIN (search_vector)",
    "DROP INDEX IF EXISTS agendaitem_search_idx",
]
BACKWARD = [
    f"CREATE INDEX IF NOT EXISTS agendaitem_search_idx ON meetings_agendaitem USING GIN ({VECTOR})",
    "ALTER TABLE meetings_agendaitem DROP COLUMN IF EXISTS search_vector",
]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in FORWARD:
            schema_editor.execute(statement)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for statement in BACKWARD:
            schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("meetings", "0002_agendaitem_search_index")]

    operations = [migrations.RunPython(forward, backward, elidable=False)]
