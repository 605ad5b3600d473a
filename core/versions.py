"""Kubernetes release versions (`1.27`) as written in files and stored in text columns: parsed, and compared in
SQL so that 1.9 sorts before 1.10 in every database."""

import re

from django.db.models import Case, IntegerField, Value, When
from django.db.models.functions import Cast, StrIndex, Substr

__all__ = ["parse_version", "version_or_none", "version_parts"]

#: A Kubernetes release version as written: `v1.24`, `1.24`, `1.24.0`.
_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)?$")


def parse_version(value: str) -> tuple[int, int]:
    """`"v1.24"`, `"1.24"` or `"1.24.0"` -> `(1, 24)`; raises ValueError for anything else."""
    match = _VERSION.match(str(value).strip())
    if not match:
        raise ValueError(f"not a release version: {value!r}")
    return int(match.group(1)), int(match.group(2))


def version_parts(field_name: str) -> tuple[Case, Case]:
    """SQL expressions for the numeric major and minor of a `1.27`-style text column (NULL when blank),
    so that 1.9 sorts before 1.10 in every database."""
    dot = StrIndex(field_name, Value("."))
    major = Case(
        When(**{field_name: ""}, then=Value(None)),
        default=Cast(Substr(field_name, 1, dot - 1), IntegerField()),
        output_field=IntegerField(),
    )
    minor = Case(
        When(**{field_name: ""}, then=Value(None)),
        default=Cast(Substr(field_name, dot + 1), IntegerField()),
        output_field=IntegerField(),
    )
    return major, minor


def version_or_none(value: str) -> tuple[int, int] | None:
    try:
        return parse_version(value) if value else None
    except ValueError:
        return None
