"""The imported data as a comparable value: every row of the domain tables, without the columns that only say when
a row was written (auto_now / auto_now_add), so an incremental import can be checked against a full one."""

from __future__ import annotations

from django.apps import apps
from django.db import models

#: Apps whose tables hold what the upstream imports write.
DOMAIN_APPS = ("community", "keps", "releases", "meetings", "retros")


def _when_written(field: models.Field) -> bool:
    return bool(getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False))


def domain_rows() -> dict[str, set[str]]:
    """Table -> set of rows (the columns a fresh import decides), for every model of DOMAIN_APPS."""
    rows: dict[str, set[str]] = {}
    for model in apps.get_models(include_auto_created=True):
        if model._meta.app_label not in DOMAIN_APPS or model._meta.proxy:
            continue
        columns = [field.attname for field in model._meta.concrete_fields if not _when_written(field)]
        # JSON columns come back as lists and dicts: compared by their repr.
        rows[model._meta.db_table] = {repr(row) for row in model._base_manager.values_list(*columns)}
    return rows


def rows_differ(before: dict[str, set[str]], after: dict[str, set[str]]) -> dict[str, tuple[list, list]]:
    """Table -> (rows gone, rows new), for the tables that differ."""
    return {
        table: (sorted(before[table] - after[table])[:3], sorted(after[table] - before[table])[:3])
        for table in before
        if before[table] != after[table]
    }
