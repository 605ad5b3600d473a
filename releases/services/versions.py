"""Releases named by version before anything else is known of them (a retro, a board, notes naming them)."""

from __future__ import annotations

from collections.abc import Iterable

from releases.models import Release, parse_version

__all__ = ["release_ensure_versions"]


def release_ensure_versions(*, versions: Iterable[str]) -> tuple[dict[str, Release], list[str]]:
    """The releases with these versions ("1.24"), creating missing ones (version only); also the new versions."""
    wanted = {}
    for version in versions:
        major, minor = parse_version(version)
        wanted[f"{major}.{minor}"] = (major, minor)
    if not wanted:
        return {}, []
    found = {r.version: r for r in Release.objects.filter(version__in=wanted)}
    missing = [Release(version=v, major=major, minor=minor) for v, (major, minor) in wanted.items() if v not in found]
    if missing:
        # ignore_conflicts: another importer (schedules) may create the same release concurrently.
        Release.objects.bulk_create(missing, ignore_conflicts=True)
        found = {r.version: r for r in Release.objects.filter(version__in=wanted)}
    return found, [r.version for r in missing]
