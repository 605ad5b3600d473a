"""Parse kubernetes/enhancements `kep.yaml` and `prod-readiness/<sig>/<number>.yaml` files into plain records.

Pure functions: text in, frozen dataclasses out, `ImportFailure` for a file that cannot be imported at all. No
Django ORM here, so every rule below is testable without a database.

The upstream format is the KEP template
(https://github.com/kubernetes/enhancements/blob/master/keps/NNNN-kep-template/kep.yaml) and the PRR approval
files (https://github.com/kubernetes/enhancements/tree/master/keps/prod-readiness). Real files stray from it;
each way they stray is handled by exactly one rule in this module:

* Types (`core.importing.yaml_text`): a field of the wrong YAML type (authors as a string, a milestone as a list)
  skips the whole file, naming the field. Absent or null optional fields are empty.
* YAML typing (`core.importing.yaml_text`): every scalar is read as text and typed by the rule for its field, so
  `creation-date: 2025-30-01` does not crash the YAML library and `latest-milestone: 1.30` does not become the
  float 1.3; `~`, `null` and empty values are absent.
* KEP number (`_kep_number`): `kep-number` as an int or a digit string; missing, 0 or not a number falls back to
  the directory's number prefix with a warning; a `kep-number` that disagrees with the directory's number loses
  to it, with a warning (2021, `keps/sig-node/2043-pod-resource-concrete-assigments` says `kep-number: 1884`, a
  copy-paste slip: KEP-2043 is tracked by that number, no directory is 1884); no usable number at all skips the
  file. The directory prefix is
  read by `directory_number` alone: an 8-digit date (`20190603-endpointslices`, from when KEPs were named by
  date) or `0000` is not a KEP number, and an unnumbered draft (`NNNN-...`) is skipped with its reason.
* Template leftovers (`_TEMPLATE_TITLES`, `_feature_gates`): `title: KEP Template` left from the template becomes
  the directory's words, with a warning; a feature gate named `None`/`TBD` is dropped, with a warning.
* Enumerations (`normalise_choice`): status, stage and PRR stage are lower-cased and unquoted; a parenthesised
  remark is dropped (`alpha (deprecated)` -> `alpha`, with a warning); a synonym (`GA` -> `stable`, PRR
  `deprecated` -> `deprecation`) is read silently; a near-miss typo within 0.8 similarity is corrected
  (`imlpemented` -> `implemented`, with a warning); anything else leaves the field empty, with a warning.
* Versions (`normalise_version`): `v1.27`, `1.27`, `1.27.0` -> `1.27`; placeholders (`TBD`, `never`, `x.y`,
  `0.0`, empty) -> empty silently; anything else -> empty with a warning.
* Dates (`parse_date`): `YYYY-MM-DD` (a time part is ignored); an impossible date such as `2025-30-01` or another
  format -> no date, with a warning naming the field.
* People (`community.importers.people.parse_people`): one rule for every upstream file that names people.
* SIGs (`parse_sig`): lower-cased slugs, participating ones from `participating-sigs` and the older
  `participating-groups`; a participating entry that is not a slug is dropped with a warning; an
  owning SIG that is not a slug skips the file. Spellings are kept as written here: which SIG a spelling means
  (`sig-machinery` -> sig-api-machinery, `TBD` -> none) is the alias table's business, applied by the import
  service (`community.services.SigResolver`).
* Duplicates across files (`choose_kep_records`): when two kep.yaml claim one number, the one whose status is not
  `replaced` wins, then the one whose directory starts with that number, then the first path in sort order.
* PRR files (`parse_prr`): the file name `<number>.yaml` names the KEP (upstream's tooling looks the file up by
  that path); a `kep-number` inside that disagrees is reported and ignored.
"""

from __future__ import annotations

import datetime
import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from community.importers.people import PersonRef, parse_people
from core.importing import ImportFailure
from core.importing.yaml_text import PLACEHOLDERS, expect_list, load_mapping, scalar, type_error, unquote

__all__ = [
    "FeatureGateRecord",
    "KepRecord",
    "NotAKepYet",
    "PersonRef",
    "PrrRecord",
    "choose_kep_records",
    "directory_number",
    "normalise_choice",
    "normalise_version",
    "parse_date",
    "parse_kep",
    "parse_people",
    "parse_prr",
    "parse_sig",
]

KEP_STATUSES = ("provisional", "implementable", "implemented", "deferred", "rejected", "withdrawn", "replaced")
KEP_STAGES = ("alpha", "beta", "stable", "deprecated", "removed")
PRR_STAGES = ("alpha", "beta", "stable", "deprecation")
#: Synonyms of a vocabulary value that are too far from it for the typo rule (read silently).
ALIASES = {
    "ga": "stable",
    "general availability": "stable",
    # PRR files name the stage "deprecation" where kep.yaml says "deprecated"; each maps to the other's word.
    "deprecated": "deprecation",
    "deprecation": "deprecated",
}
#: Similarity (difflib ratio) from which a value is taken as a typo of a known one.
TYPO_CUTOFF = 0.8

MAX_INT = 2_147_483_647  # PositiveIntegerField on PostgreSQL
TITLE_MAX = 300
SLUG_MAX = 200
GATE_NAME_MAX = 120
VERSION_MAX = 10
TRACKING_ISSUE_URL = "https://github.com/kubernetes/enhancements/issues/{number}"

_VERSION_PLACEHOLDERS = PLACEHOLDERS | {"never", "x.y", "vx.y", "0.0", "v0.0", "1.x", "v1.x"}
_VERSION_RE = re.compile(r"^v?(\d{1,4})\.(\d{1,4})(?:\.\d+)?$")
_DATE_RE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt ].*)?$")
_SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_DIR_NUMBER_RE = re.compile(r"^(\d+)-")
# Before KEP numbers (2019-2020) KEP files and folders were named by date: keps/sig-network/20190603-endpointslices.
_DIR_DATE_RE = re.compile(r"^(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])-")
#: Titles copied from the KEP template and never changed (keps/sig-storage/3314-csi-changed-block-tracking).
_TEMPLATE_TITLES = frozenset({"kep template"})


# -- records ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FeatureGateRecord:
    name: str
    components: tuple[str, ...] = ()


@dataclass(frozen=True)
class KepRecord:
    """One kep.yaml, normalised. `warnings` are one-line messages naming file and field."""

    number: int
    title: str
    slug: str
    owning_sig: str
    participating_sigs: tuple[str, ...] = ()
    status: str = ""
    stage: str = ""
    latest_milestone: str = ""
    alpha_milestone: str = ""
    beta_milestone: str = ""
    stable_milestone: str = ""
    deprecated_milestone: str = ""
    authors: tuple[PersonRef, ...] = ()
    reviewers: tuple[PersonRef, ...] = ()
    approvers: tuple[PersonRef, ...] = ()
    creation_date: datetime.date | None = None
    last_updated: datetime.date | None = None
    feature_gates: tuple[FeatureGateRecord, ...] = ()
    disable_supported: bool | None = None
    tracking_issue_url: str = ""
    source_path: str = ""
    warnings: tuple[str, ...] = field(default=(), compare=False)

    @property
    def directory_number(self) -> int | None:
        return directory_number(self.slug)


@dataclass(frozen=True)
class PrrRecord:
    """One prod-readiness file: the KEP's number and the approver per PRR stage."""

    number: int
    approvals: tuple[tuple[str, PersonRef], ...]
    source_path: str = ""
    warnings: tuple[str, ...] = field(default=(), compare=False)


# -- YAML ---------------------------------------------------------------------------------------------

# -- field rules --------------------------------------------------------------------------------------


def normalise_choice(raw: str, vocabulary: Sequence[str]) -> tuple[str, str | None]:
    """(value from `vocabulary` or '', warning or None) for a status/stage as written (see module doc)."""
    text = unquote(raw).lower()
    if text in PLACEHOLDERS:
        return "", None
    remark = ""
    if "(" in text:
        text, _, remark = text.partition("(")
        text = unquote(text)
    text = " ".join(text.split())
    note = f" (remark '({remark.rstrip()}' dropped)" if remark else ""
    if text in vocabulary:
        return text, (f"{raw!r} read as {text!r}{note}" if note else None)
    if ALIASES.get(text) in vocabulary:  # a synonym, not a mistake: no warning
        return ALIASES[text], (f"{raw!r} read as {ALIASES[text]!r}{note}" if note else None)
    close = difflib.get_close_matches(text, vocabulary, n=1, cutoff=TYPO_CUTOFF) if text else []
    if close:
        return close[0], f"{raw!r} read as {close[0]!r} (typo){note}"
    return "", f"unknown value {raw!r} (expected one of {', '.join(vocabulary)}); left empty"


def normalise_version(raw: str) -> tuple[str, str | None]:
    """('1.27' or '', warning or None) for a milestone as written (see module doc)."""
    text = unquote(raw).lower()
    if text in _VERSION_PLACEHOLDERS:
        return "", None
    match = _VERSION_RE.match(text)
    if match:
        version = f"{int(match.group(1))}.{int(match.group(2))}"
        if version != "0.0" and len(version) <= VERSION_MAX:
            return version, None
        if version == "0.0":
            return "", None
    return "", f"not a release version: {raw!r}; left empty"


def parse_date(raw: str) -> tuple[datetime.date | None, str | None]:
    """(date or None, warning or None) for a `YYYY-MM-DD` field as written (see module doc)."""
    text = unquote(raw)
    if text.lower() in PLACEHOLDERS or text.lower() == "yyyy-mm-dd":
        return None, None
    match = _DATE_RE.match(text)
    if not match:
        return None, f"not a date (YYYY-MM-DD): {raw!r}; left empty"
    try:
        return datetime.date(*(int(part) for part in match.groups())), None
    except ValueError as exc:
        return None, f"impossible date {raw!r} ({exc}); left empty"


def parse_sig(raw: str) -> str | None:
    """A SIG slug ('sig-node') from what was written, or None when it is not one."""
    text = unquote(raw).lower()
    if text not in PLACEHOLDERS and _SLUG_RE.match(text) and len(text) <= 64:
        return text
    return None


def directory_number(directory: str) -> int | None:
    """The KEP number a folder name starts with (`2727-grpc-probe` -> 2727), or None.

    Not a KEP number: a date prefix (`20190603-endpointslices`, the naming before KEP numbers), `0000-` or
    `NNNN-` (a draft not yet given its number), or a number too large to store.
    """
    match = _DIR_NUMBER_RE.match(directory)
    if not match or _DIR_DATE_RE.match(directory):
        return None
    number = int(match.group(1))
    return number if 0 < number <= MAX_INT else None


class NotAKepYet(ImportFailure):
    """A kep.yaml in a folder that is no KEP yet: an unnumbered draft (`NNNN-...`, `0000-...`) or a template
    (`NNNN-kep-template`), without a number of its own. Not a failure of the import: nothing there should have
    imported (the import lists it with -v 2)."""


def _is_draft_or_template(directory: str) -> bool:
    return bool(
        directory.upper().startswith("NNNN")
        or re.match(r"0+-", directory)
        or (directory_number(directory) is None and "template" in directory.lower())
    )


def _directory_problem(directory: str) -> str:
    """Why `directory_number(directory)` is None, for the message of a file that cannot be numbered."""
    if _DIR_DATE_RE.match(directory):
        return f"the directory name starts with a date ({directory.split('-')[0]}), not a KEP number"
    if directory.upper().startswith("NNNN") or _DIR_NUMBER_RE.match(directory):
        return "the directory has no KEP number yet (an unnumbered draft)"
    return "the directory name has no number"


def _kep_number(raw, directory: str, *, source: str) -> tuple[int, str | None]:
    """The KEP's number: the field if it is a positive number, else the directory's prefix (see module doc)."""
    if isinstance(raw, list | dict):
        raise type_error(source, "kep-number", "a number", raw)
    text = "" if raw is None or isinstance(raw, bool) else unquote(str(raw))
    from_directory = directory_number(directory)
    if text.isascii() and text.isdigit() and 0 < int(text) <= MAX_INT:
        number = int(text)
        if from_directory is not None and from_directory != number:
            # The directory wins: a copy-paste slip in the field (keps/sig-node/2043-…/kep.yaml says 1884) would
            # otherwise file the KEP under another's number, and the tracking issue is the directory's.
            return from_directory, (
                f"{number} differs from the directory's number {from_directory}; using the directory's {from_directory}"
            )
        return number, None
    problem = "missing" if raw is None else f"not a positive number ({raw!r})"
    if from_directory is not None:
        return from_directory, f"{problem}; using the directory's number {from_directory}"
    if _is_draft_or_template(directory):
        raise NotAKepYet(f"{problem} and {_directory_problem(directory)}", source=source, field="kep-number")
    raise ImportFailure(f"{problem} and {_directory_problem(directory)}", source=source, field="kep-number")


# -- files --------------------------------------------------------------------------------------------


@dataclass
class _KepFile:
    """A kep.yaml's mapping being read, and the warnings so far, each named `<source>: <field>: <message>`."""

    data: dict
    source: str
    warnings: list[str] = field(default_factory=list)

    def text(self, name: str) -> str:
        return scalar(self.data.get(name), source=self.source, name=name)

    def warn(self, name: str, message: str | None) -> None:
        if message:
            self.warnings.append(f"{self.source}: {name}: {message}")

    def version(self, name: str, raw: str) -> str:
        value, message = normalise_version(raw)
        self.warn(name, message)
        return value


def parse_kep(text: str, *, source: str, directory: str, source_path: str = "") -> KepRecord:
    """A KepRecord from a kep.yaml's text. `directory` is its folder's name (`2727-grpc-probe`); `source` names
    the file in messages, `source_path` (default: `source`) is stored, e.g. `keps/sig-node/2727-grpc-probe/kep.yaml`.

    Raises ImportFailure (naming `source` and the line or field) when the file cannot be imported at all.
    """
    kep = _KepFile(load_mapping(text, source=source), source)
    number, message = _kep_number(kep.data.get("kep-number"), directory, source=source)
    kep.warn("kep-number", message)
    title = _title(kep, directory)
    owning_sig = _owning_sig(kep)
    participating = _participating_sigs(kep)
    status, message = normalise_choice(kep.text("status"), KEP_STATUSES)
    kep.warn("status", message)
    stage, message = normalise_choice(kep.text("stage"), KEP_STAGES)
    kep.warn("stage", message)
    latest = kep.version("latest-milestone", kep.text("latest-milestone"))
    per_stage = _stage_milestones(kep)
    people = {}
    for name in ("authors", "reviewers", "approvers"):
        people[name], messages = parse_people(
            expect_list(kep.data.get(name), source=source, name=name), source=source, name=name
        )
        kep.warnings.extend(messages)
    dates = {}
    for name in ("creation-date", "last-updated"):
        dates[name], message = parse_date(kep.text(name))
        kep.warn(name, message)
    gates = _feature_gates(kep.data.get("feature-gates"), source=source, warn=kep.warn)
    disable_supported = _disable_supported(kep)
    return KepRecord(
        number=number,
        title=title,
        slug=directory[:SLUG_MAX],
        owning_sig=owning_sig,
        participating_sigs=participating,
        status=status,
        stage=stage,
        latest_milestone=latest,
        alpha_milestone=per_stage["alpha"],
        beta_milestone=per_stage["beta"],
        stable_milestone=per_stage["stable"],
        deprecated_milestone=per_stage["deprecated"],
        authors=people["authors"],
        reviewers=people["reviewers"],
        approvers=people["approvers"],
        creation_date=dates["creation-date"],
        last_updated=dates["last-updated"],
        feature_gates=gates,
        disable_supported=disable_supported,
        tracking_issue_url=TRACKING_ISSUE_URL.format(number=number),
        source_path=(source_path or source)[-300:],
        warnings=tuple(kep.warnings),
    )


def _title(kep: _KepFile, directory: str) -> str:
    """The title on one line, the template's placeholder replaced by the directory's words, cut to TITLE_MAX."""
    title = " ".join(kep.text("title").split())
    if not title:
        raise ImportFailure("missing (a KEP needs a title)", source=kep.source, field="title")
    if title.lower() in _TEMPLATE_TITLES:
        # The directory's words are the only name the KEP has: "3314-csi-changed-block-tracking" -> "Csi changed…".
        words = " ".join(_DIR_NUMBER_RE.sub("", directory).replace("_", "-").split("-")).strip()
        if words:
            kep.warn(
                "title", f"{title!r} is the template's placeholder; using the directory's name {words.capitalize()!r}"
            )
            title = words.capitalize()
    if len(title) > TITLE_MAX:
        kep.warn("title", f"longer than {TITLE_MAX} characters; cut")
        title = title[:TITLE_MAX]
    return title


def _owning_sig(kep: _KepFile) -> str:
    owning_raw = kep.text("owning-sig")
    owning_sig = parse_sig(owning_raw)
    if not owning_sig:
        reason = "missing" if not owning_raw else f"not a SIG name: {owning_raw!r}"
        raise ImportFailure(reason, source=kep.source, field="owning-sig")
    return owning_sig


def _participating_sigs(kep: _KepFile) -> tuple[str, ...]:
    """The participating SIGs' slugs, each once, in the order written; an entry that is no slug is dropped."""
    participating: dict[str, None] = {}
    # Older KEPs (keps/sig-network/1435-mixed-protocol-lb, sig-storage/177-volume-snapshot) call the list
    # `participating-groups`, the template's name before `participating-sigs`; both are read.
    entries = [
        (f"{name}[{index}]", entry)
        for name in ("participating-sigs", "participating-groups")
        for index, entry in enumerate(expect_list(kep.data.get(name), source=kep.source, name=name))
    ]
    for slot, entry in entries:
        raw = scalar(entry, source=kep.source, name=slot)
        slug = parse_sig(raw)
        if slug:
            participating.setdefault(slug)
        elif unquote(raw).lower() not in PLACEHOLDERS:
            kep.warn(slot, f"not a SIG name: {raw!r}; dropped")
    return tuple(participating)


def _stage_milestones(kep: _KepFile) -> dict[str, str]:
    """The `milestone` mapping: the release version of each stage, empty where none is given."""
    milestones = kep.data.get("milestone")
    if milestones is None:
        milestones = {}
    if not isinstance(milestones, dict):
        raise type_error(kep.source, "milestone", "a mapping of stage to version", milestones)
    return {
        stage_name: kep.version(
            f"milestone.{stage_name}",
            scalar(milestones.get(stage_name), source=kep.source, name=f"milestone.{stage_name}"),
        )
        for stage_name in ("alpha", "beta", "stable", "deprecated")
    }


def _disable_supported(kep: _KepFile) -> bool | None:
    """`disable-supported` as a YAML boolean or its words (yes/no, on/off); None when absent or unreadable."""
    disable_raw = kep.data.get("disable-supported")
    if disable_raw is None or isinstance(disable_raw, bool):
        return disable_raw
    text_value = scalar(disable_raw, source=kep.source, name="disable-supported").lower()
    words = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
    disable_supported = words.get(unquote(text_value))
    if disable_supported is None and unquote(text_value) not in PLACEHOLDERS:
        kep.warn("disable-supported", f"not true/false: {disable_raw!r}; left empty")
    return disable_supported


def _feature_gates(value, *, source: str, warn) -> tuple[FeatureGateRecord, ...]:
    """Feature gates by name (a gate listed twice has its components merged); nameless gates are dropped."""
    gates: dict[str, list[str]] = {}
    for index, entry in enumerate(expect_list(value, source=source, name="feature-gates")):
        slot = f"feature-gates[{index}]"
        if not isinstance(entry, dict):
            raise type_error(source, slot, "a mapping with name and components", entry)
        name = unquote(scalar(entry.get("name"), source=source, name=f"{slot}.name"))
        if name and name.lower() in PLACEHOLDERS:  # "name: None" (keps/sig-storage/3314-csi-changed-block-tracking)
            warn(slot, f"{name!r} is a placeholder, not a gate name; dropped")
            continue
        if not name or len(name) > GATE_NAME_MAX:
            warn(slot, "no usable gate name; dropped" if not name else f"name longer than {GATE_NAME_MAX}; dropped")
            continue
        components = gates.setdefault(name, [])
        for c_index, component in enumerate(
            expect_list(entry.get("components"), source=source, name=f"{slot}.components")
        ):
            # One real entry reads "kube-apiserver,kubelet": a comma separates components.
            for part in scalar(component, source=source, name=f"{slot}.components[{c_index}]").split(","):
                part = unquote(part)
                if part and part not in components:
                    components.append(part)
    return tuple(FeatureGateRecord(name=name, components=tuple(parts)) for name, parts in gates.items())


def parse_prr(text: str, *, source: str, file_number: int | None, source_path: str = "") -> PrrRecord:
    """A PrrRecord from a prod-readiness file; `file_number` is the number in its file name, if any."""
    data = load_mapping(text, source=source)
    warnings: list[str] = []
    raw_number = data.get("kep-number")
    if isinstance(raw_number, list | dict):
        raise type_error(source, "kep-number", "a number", raw_number)
    stated = unquote(str(raw_number)) if raw_number is not None and not isinstance(raw_number, bool) else ""
    stated_number = int(stated) if stated.isascii() and stated.isdigit() and 0 < int(stated) <= MAX_INT else None
    if file_number is not None:
        number = file_number
        if stated_number is not None and stated_number != file_number:
            warnings.append(
                f"{source}: kep-number: says {stated_number} but the file is named {file_number}.yaml; "
                f"using {file_number}"
            )
    elif stated_number is not None:
        number = stated_number
    else:
        raise ImportFailure(
            "no KEP number (neither in the file name nor in kep-number)", source=source, field="kep-number"
        )

    approvals: dict[str, PersonRef] = {}
    for key, value in data.items():
        if key == "kep-number" or not isinstance(key, str):
            continue
        stage, message = normalise_choice(key, PRR_STAGES)
        if not stage:
            warnings.append(f"{source}: {key}: not a PRR stage (expected one of {', '.join(PRR_STAGES)}); ignored")
            continue
        if message:
            warnings.append(f"{source}: {key}: {message}")
        if value is None:
            continue
        if not isinstance(value, dict):
            raise type_error(source, key, "a mapping with approver", value)
        approver_raw = value.get("approver")
        if approver_raw is None:
            warnings.append(f"{source}: {key}.approver: missing; stage ignored")
            continue
        refs, person_warnings = parse_people([approver_raw], source=source, name=f"{key}.approver")
        warnings.extend(person_warnings)
        if refs:
            if stage in approvals:
                warnings.append(f"{source}: {key}: stage {stage!r} listed twice; the first is kept")
                continue
            approvals[stage] = refs[0]
    return PrrRecord(
        number=number, approvals=tuple(approvals.items()), source_path=source_path or source, warnings=tuple(warnings)
    )


def choose_kep_records(records: Iterable[KepRecord]) -> tuple[list[KepRecord], list[tuple[KepRecord, str]]]:
    """One record per KEP number, deterministically (see module doc), and the dropped ones with the reason."""
    by_number: dict[int, list[KepRecord]] = {}
    for record in records:
        by_number.setdefault(record.number, []).append(record)
    chosen, dropped = [], []
    for number in sorted(by_number):
        candidates = sorted(
            by_number[number],
            key=lambda r: (r.status == "replaced", r.directory_number != r.number, r.source_path),
        )
        winner = candidates[0]
        chosen.append(winner)
        for loser in candidates[1:]:
            dropped.append(
                (
                    loser,
                    f"{loser.source_path}: kep-number: KEP-{number} is also claimed by {winner.source_path}; "
                    f"using that one (status {winner.status or 'unknown'}), this copy is not imported",
                )
            )
    return chosen, dropped
