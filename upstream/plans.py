"""Which imports a set of changed paths concerns, per source. Pure: paths in, steps out; nothing else is read.

- enhancements: a `keps/**/kep.yaml` or a PRR file (`keps/prod-readiness/**.yaml`) -> the KEP import of those
  KEPs (`kep_tree_import(only=...)`, which adds the other files of the same numbers; the whole tree on a full
  import) and, for kep.yaml, the plan history import (which reads only the commits after its own cursor).
- sig-release: a file the release importer reads in `releases/release-1.NN/` -> that file's import when it is
  read alone (the exception file, the roster: `release_files_read_alone`), else the directory's.
- community: `sigs.yaml` -> the sigs import; a SIG's own meeting-notes archive (`<sig>/archive/*meeting-notes*.md`,
  sub-group notes left out as `import_meeting_notes` does) of a SIG in SIGTRACKER_UPSTREAM_NOTES_SIGS -> the notes
  import of those files, one step per SIG (of their changed meetings only, unless `full`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from meetings.services import is_subgroup_notes
from releases.services.release_dirs import RELEASE_FILES, release_files_read_alone

__all__ = ["ImportStep", "import_plan"]

_KEP = re.compile(r"keps/(?:.+/)?kep\.yaml")
_PRR = re.compile(r"keps/prod-readiness/(?:.+/)?[^/]+\.yaml")
_RELEASE = re.compile(r"releases/(release-v?\d+\.\d+)/([^/]+)")
_RELEASE_FILE_NAMES = frozenset(name for group in RELEASE_FILES for name in group)
_NOTES = re.compile(r"([a-z0-9][a-z0-9-]*)/archive/([^/]+\.md)")


@dataclass(frozen=True)
class ImportStep:
    """One import to run: `kind` names the importer, `paths` what it is given (relative to the checkout)."""

    kind: str  # "keps", "kep-history", "releases", "sigs", "notes"
    paths: tuple[str, ...] = ()  # for "keps": empty means the whole tree
    sig: str = ""
    full: bool = False  # a full import: for "notes", every meeting is read again (not only changed sections)

    def describe(self) -> str:
        shown = ", ".join(self.paths[:5]) + (f" and {len(self.paths) - 5} more" if len(self.paths) > 5 else "")
        return f"{self.kind}" + (f" ({shown})" if shown else "")


def import_plan(
    source: str, paths: Iterable[str], *, notes_sigs: Iterable[str] = (), full: bool = False
) -> list[ImportStep]:
    """The imports `paths` (changed, or every path of the tree when `full`) concern, in the order to run."""
    paths = sorted(set(paths))
    if source == "enhancements":
        keps = [p for p in paths if _KEP.fullmatch(p)]
        prr = [p for p in paths if _PRR.fullmatch(p)]
        # The plan history first: it reads git's objects only, so the refresh runs it while the working tree the
        # KEP import reads is checked out.
        steps = [ImportStep("kep-history")] if keps else []
        if keps or prr:
            steps.append(ImportStep("keps") if full else ImportStep("keps", tuple(keps + prr)))
        return steps
    if source == "sig-release":
        changed: dict[str, list[str]] = {}
        for p in paths:
            if (match := _RELEASE.fullmatch(p)) and match[2] in _RELEASE_FILE_NAMES:
                changed.setdefault(f"releases/{match[1]}", []).append(match[2])
        wanted = []  # a folder (the whole directory) or the changed files read alone, release by release
        for folder in sorted(changed, key=_release_order):
            alone = None if full else release_files_read_alone(changed[folder])
            wanted += [folder] if alone is None else [f"{folder}/{name}" for name in sorted(changed[folder])]
        return [ImportStep("releases", tuple(wanted))] if wanted else []
    if source == "community":
        steps = [ImportStep("sigs", ("sigs.yaml",))] if "sigs.yaml" in paths else []
        wanted = set(notes_sigs)
        by_sig: dict[str, list[str]] = {}
        for p in paths:
            match = _NOTES.fullmatch(p)
            if match and match[1] in wanted and not is_subgroup_notes(PurePosixPath(match[2])):
                by_sig.setdefault(match[1], []).append(p)
        steps += [ImportStep("notes", tuple(files), sig=sig, full=full) for sig, files in sorted(by_sig.items())]
        return steps
    raise ValueError(f"unknown source {source!r}")


def _release_order(folder: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", folder))
