"""Whole-database export and import: a JSON file that round-trips every row a curator cares about.

Rows are written in dependency order, each model by primary key; rows with a natural key (SIG slug, KEP
number, release version, GitHub handle, group name…) are written by that key, others keep their ids. Many-to-many
lists are sorted and times keep their microseconds, so export → import into an empty database → export
gives a byte-identical file.
"""

import datetime
import json
from pathlib import Path
from typing import IO

from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.core.management.color import no_style
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction


def _exported_labels() -> list[str]:
    """What is exported: app labels or `app.model` labels, from the settings (the project knows its apps)."""
    return list(settings.SIGTRACKER_EXPORTED_MODELS)


class DataImportError(Exception):
    pass


class _ExactJSONEncoder(DjangoJSONEncoder):
    """DjangoJSONEncoder rounds times to milliseconds; an export must lose nothing."""

    def default(self, o):
        if isinstance(o, datetime.datetime):
            return o.isoformat()
        if isinstance(o, datetime.time):
            return o.isoformat()
        return super().default(o)


def _exported_models() -> list:
    selected = []
    for label in _exported_labels():
        if "." in label:
            selected.append(apps.get_model(label))
        else:
            selected.extend(m for m in apps.get_app_config(label).get_models() if not m._meta.proxy)
    app_list = {}
    for model in selected:
        app_list.setdefault(apps.get_app_config(model._meta.app_label), []).append(model)
    return serializers.sort_dependencies(app_list.items(), allow_cycles=True)


def database_export(*, stream: IO[str]) -> int:
    """Write every exported row to `stream` as JSON; returns the number of rows."""
    objects = []
    for model in _exported_models():
        queryset = model._base_manager.order_by("pk")
        rows = serializers.serialize(
            "python", queryset.iterator(chunk_size=2000), use_natural_foreign_keys=True, use_natural_primary_keys=True
        )
        m2m_names = {f.name for f in model._meta.many_to_many}
        for row in rows:
            for name in m2m_names & row["fields"].keys():
                row["fields"][name] = sorted(row["fields"][name], key=lambda v: json.dumps(v, cls=_ExactJSONEncoder))
        objects.extend(rows)
    json.dump(objects, stream, cls=_ExactJSONEncoder, indent=1, ensure_ascii=False)
    stream.write("\n")
    return len(objects)


def database_is_empty() -> bool:
    """No curated row and no user: what a freshly migrated database holds."""
    for model in _exported_models():
        # Rows `migrate` itself creates (the role groups, seeded aliases): an export matches them by natural key
        # (group name, alias spelling), so a freshly migrated database holding them counts as empty.
        if model._meta.label_lower in settings.SIGTRACKER_MIGRATION_SEEDED_MODELS:
            continue
        if model._base_manager.exists():
            return False
    return True


@transaction.atomic
def database_import(*, path: Path) -> int:
    """Load an export into an empty database, all or nothing; returns the number of rows."""
    if not database_is_empty():
        raise DataImportError("the database is not empty; import_data loads into a freshly migrated database only")
    try:
        with path.open(encoding="utf-8") as handle:
            rows = json.load(handle)
    except OSError as exc:
        raise DataImportError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise DataImportError(f"{path}:{line or '?'}: not a JSON export ({exc})") from exc
    if not isinstance(rows, list):
        raise DataImportError(f"{path}: not a sigtracker export (expected a list of rows)")
    try:
        _load(rows)
    except Exception as exc:  # a bad row: name it, and the whole import rolls back
        raise DataImportError(f"{path}: {exc}") from exc
    return len(rows)


def former_labels() -> dict[tuple[str, str], tuple[str, str]]:
    """(app label, model name) a model had before it moved to another app -> the one it has now.

    A model that moved keeps its table (`db_table`, "<former app>_<model name>"), so the table names say where each
    one came from, and an export written before a move (`releases.retrospective`, `keps.sig`, ...) still loads."""
    moved = {}
    for model in apps.get_models():
        meta = model._meta
        former_app, _, name = meta.db_table.partition("_")
        if name == meta.model_name and former_app != meta.app_label and former_app in apps.app_configs:
            moved[(former_app, name)] = (meta.app_label, meta.model_name)
    return moved


def _relabelled(rows: list) -> list:
    """The rows with every former model label replaced by today's: each row's `model`, and the natural keys of
    content types ([app, model]: the admin's history) and permissions ([codename, app, model]: groups and users)."""
    moved = former_labels()
    if not moved:
        return rows

    def key(value):
        if isinstance(value, list) and len(value) in (2, 3) and all(isinstance(part, str) for part in value):
            head, app_model = value[:-2], tuple(value[-2:])
            if app_model in moved:
                return [*head, *moved[app_model]]
        return value

    for row in rows:
        if not isinstance(row, dict):
            continue
        label = row.get("model")
        if isinstance(label, str) and label.count(".") == 1:
            app_label, _, name = label.lower().partition(".")
            if (app_label, name) in moved:
                row["model"] = ".".join(moved[(app_label, name)])
        fields = row.get("fields")
        if not isinstance(fields, dict):
            continue
        if "content_type" in fields:
            fields["content_type"] = key(fields["content_type"])
        for name in ("permissions", "user_permissions"):
            if isinstance(fields.get(name), list):
                fields[name] = [key(value) for value in fields[name]]
    return rows


def _load(rows: list) -> None:
    """What loaddata does, from rows already read: forward references, deferred checks, sequence reset."""
    rows = _relabelled(rows)
    with connection.constraint_checks_disabled():
        # Saved one by one as they are read: a later row's natural key may refer to an earlier one.
        objects = []
        for obj in serializers.deserialize("python", rows, handle_forward_references=True):
            obj.save()
            objects.append(obj)
        for obj in objects:
            if obj.deferred_fields:
                obj.save_deferred_fields()
    connection.check_constraints()
    models = {type(obj.object) for obj in objects}
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(sql)
