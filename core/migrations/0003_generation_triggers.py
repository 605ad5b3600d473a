"""Triggers that bump DataGeneration on every write to a table the public pages read.

Statement-level on PostgreSQL (one bump per INSERT/UPDATE/DELETE/TRUNCATE/COPY, however many rows), row-level on
SQLite. The counter row is updated inside the writing transaction, so a new value becomes visible together with
the data it stands for. Reminder deliveries are left out: no page shows them, and reminder workers write them
concurrently.

The tables are literals, as they stood when this migration was written: a migration replays history, and today's
models would name tables that do not exist yet at this point (or no longer exist). Tables added later get their
trigger from the post_migrate handler in core/apps.py; 0004 moves PostgreSQL off the counter row.

Idempotent, because a database migrated before the page cache moved to core already has all of this (from the
config package's former `sigtracker` migrations): the counter row is added only if missing, triggers replaced.
"""

from django.db import migrations

TABLES = [
    "keps_designgroup",
    "keps_designgroup_keps",
    "keps_designgroup_sigs",
    "keps_featuregate",
    "keps_kep",
    "keps_kep_approvers",
    "keps_kep_authors",
    "keps_kep_participating_sigs",
    "keps_kep_reviewers",
    "keps_person",
    "keps_prrapproval",
    "keps_sig",
    "keps_sigmembership",
    "meetings_agendaitem",
    "meetings_agendaitem_keps",
    "meetings_agendaitem_presenters",
    "meetings_meeting",
    "releases_enhancementstatuschange",
    "releases_milestone",
    "releases_release",
    "releases_releasestats",
    "releases_retroitem",
    "releases_retrospective",
    "releases_trackedenhancement",
]


def _trigger_name(table):
    return f"sigtracker_gen_{table}"[:63]


def install(apps, schema_editor):
    conn = schema_editor.connection
    with conn.cursor() as cursor:
        cursor.execute(
            "INSERT INTO sigtracker_datageneration (id, value) SELECT 1, 0 "
            "WHERE NOT EXISTS (SELECT 1 FROM sigtracker_datageneration WHERE id = 1)"
        )
        if conn.vendor == "postgresql":
            cursor.execute(
                """CREATE OR REPLACE FUNCTION sigtracker_bump_generation() RETURNS trigger AS $$
                BEGIN UPDATE sigtracker_datageneration SET value = value + 1 WHERE id = 1; RETURN NULL; END;
                $$ LANGUAGE plpgsql"""
            )
            for table in TABLES:
                cursor.execute(f'DROP TRIGGER IF EXISTS "{_trigger_name(table)}" ON "{table}"')
                cursor.execute(
                    f'CREATE TRIGGER "{_trigger_name(table)}" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE '
                    f'ON "{table}" FOR EACH STATEMENT EXECUTE FUNCTION sigtracker_bump_generation()'
                )
        elif conn.vendor == "sqlite":
            for table in TABLES:
                for event in ("INSERT", "UPDATE", "DELETE"):
                    cursor.execute(
                        f'CREATE TRIGGER IF NOT EXISTS "{_trigger_name(table)}_{event.lower()}" AFTER {event} ON "{table}" '
                        f"BEGIN UPDATE sigtracker_datageneration SET value = value + 1 WHERE id = 1; END"
                    )


def remove(apps, schema_editor):
    conn = schema_editor.connection
    with conn.cursor() as cursor:
        if conn.vendor == "postgresql":
            for table in TABLES:
                cursor.execute(f'DROP TRIGGER IF EXISTS "{_trigger_name(table)}" ON "{table}"')
            # CASCADE: triggers that post_migrate added for later tables go with the function.
            cursor.execute("DROP FUNCTION IF EXISTS sigtracker_bump_generation() CASCADE")
        elif conn.vendor == "sqlite":
            # By name, not from TABLES: post_migrate may have added triggers for later tables.
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sigtracker_gen_%'")
            for (name,) in cursor.fetchall():
                cursor.execute(f'DROP TRIGGER IF EXISTS "{name}"')
        cursor.execute("DELETE FROM sigtracker_datageneration")


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0002_tables"),
        ("keps", "0003_role_groups"),
        ("releases", "0001_initial"),
        ("meetings", "0002_agendaitem_search_index"),
    ]

    operations = [migrations.RunPython(install, remove)]
