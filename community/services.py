"""Writes for SIG data from kubernetes/community's sigs.yaml, and the alias table kep.yaml spellings go through.

Kept apart from keps/services.py (the KEP import) because the two imports share nothing but the Person table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction
from django.db.models.functions import Lower

from core.importing import ImportReport, ImportUsageError, Progress, import_file_by_file, no_progress, read_text

from .choices import SigLeaderRole
from .importers.sigs_yaml import GroupRecord, Leader, MeetingRecord, parse_sigs
from .models import Person, Sig, SigAlias, SigLeadership, SigMeeting

__all__ = ["SigImportResult", "SigResolver", "sig_resolver_load", "sigs_import", "sigs_yaml_import"]

#: Name of the advisory lock that serialises concurrent sigs.yaml imports.
SIGS_IMPORT_LOCK = "import_sigs"

#: Sig columns sigs.yaml decides (reminder offsets and curators' other fields are left alone).
SIG_FIELDS = ("kind", "name", "label", "mission", "mailing_list", "mailing_list_url", "slack_channel", "in_community")
MEETING_FIELDS = (
    "description",
    "day",
    "time",
    "tz",
    "frequency",
    "week_of_month",
    "anchor_date",
    "frequency_note",
    "url",
    "archive_url",
    "recordings_url",
)


@dataclass
class SigImportResult:
    outcomes: dict[str, str] = field(default_factory=dict)  # slug -> created | updated | unchanged
    people_created: int = 0

    def count(self, outcome: str) -> int:
        return sum(1 for value in self.outcomes.values() if value == outcome)


@transaction.atomic
def sigs_import(*, groups: Sequence[GroupRecord]) -> SigImportResult:
    """Make each group's SIG row, leaders and meetings what sigs.yaml says; the outcome per group.

    Rows are matched by slug, so a SIG first created from a kep.yaml spelling becomes the community SIG (its KEPs
    stay linked). A re-run on the same file writes nothing. Groups absent from the file are left as they are: KEPs
    and meetings still name retired SIGs. A curator's blank-filled person details win, as in the KEP import: the
    file only fills a person's blank name or email.
    """
    result = SigImportResult()
    sigs = {sig.slug: sig for sig in Sig.objects.filter(slug__in=[g.slug for g in groups])}
    people = _people_ensure(leaders=[leader for g in groups for leader in (*g.chairs, *g.tech_leads)], result=result)
    leaderships: dict[int, set[tuple[int, str]]] = {}
    for sig_id, person_id, role in SigLeadership.objects.filter(sig__in=sigs.values()).values_list(
        "sig_id", "person_id", "role"
    ):
        leaderships.setdefault(sig_id, set()).add((person_id, role))
    meetings: dict[int, list[SigMeeting]] = {}
    for meeting in SigMeeting.objects.filter(sig__in=sigs.values()).order_by("position"):
        meetings.setdefault(meeting.sig_id, []).append(meeting)

    for group in groups:
        wanted = {
            "kind": group.kind,
            "name": group.name,
            "label": group.label,
            "mission": group.mission,
            "mailing_list": group.mailing_list,
            "mailing_list_url": group.mailing_list_url,
            "slack_channel": group.slack_channel,
            "in_community": True,
        }
        sig = sigs.get(group.slug)
        if sig is None:
            sig = Sig.objects.create(slug=group.slug, **wanted)
            outcome = "created"
        else:
            changed = [name for name in SIG_FIELDS if getattr(sig, name) != wanted[name]]
            for name in changed:
                setattr(sig, name, wanted[name])
            if changed:
                sig.save(update_fields=changed)
            outcome = "updated" if changed else "unchanged"
        leaders_changed = _leaders_sync(sig, group, people, leaderships.get(sig.pk, set()))
        meetings_changed = _meetings_sync(sig, group.meetings, meetings.get(sig.pk, []))
        if outcome == "unchanged" and (leaders_changed or meetings_changed):
            outcome = "updated"
        result.outcomes[group.slug] = outcome
    return result


def sigs_yaml_import(*, path: Path, dry_run: bool, progress: Progress = no_progress) -> ImportReport:
    """Import kubernetes/community's sigs.yaml (`path` is the file or a checkout holding it) in one transaction.

    Outcomes are counted per group (a SIG, WG, committee or user group); a group the parser cannot import is
    skipped with one line naming its place and the others are imported; a file that cannot be read or is not a
    sigs.yaml is skipped whole. Raises ImportUsageError when there is no such file. A dry run writes nothing.
    """
    root = None  # the folder given: its sigs.yaml is not read through a symbolic link out of it
    if path.is_dir():
        root, path = path, path / "sigs.yaml"
        if not path.is_file():
            raise ImportUsageError(f"{root}: no sigs.yaml in this folder")
    elif not path.exists():
        raise ImportUsageError(f"{path}: no such file or folder")

    def import_file(path: Path, report: ImportReport) -> None:
        parsed = parse_sigs(read_text(path, root=root), source=str(path))
        for failure in parsed.skipped:
            report.skip(failure)
        report.warnings.extend(parsed.warnings)
        result = sigs_import(groups=parsed.groups)
        for outcome in ("created", "updated", "unchanged"):
            report.count(outcome, result.count(outcome))
        report.note(f"{len(parsed.groups)} groups, {result.people_created} people created")

    return import_file_by_file(
        files=[path],
        import_file=import_file,
        lock_name=SIGS_IMPORT_LOCK,
        dry_run=dry_run,
        report=ImportReport(),
        progress=progress,
    )


def _people_ensure(*, leaders: Iterable[Leader], result: SigImportResult) -> dict[str, Person]:
    """Person by lower-cased handle for every leader: created when new, a blank name or email filled."""
    wanted: dict[str, Leader] = {}
    for leader in leaders:
        first = wanted.setdefault(leader.key, leader)
        if first is not leader and (not first.name or not first.email):
            wanted[leader.key] = Leader(first.github, first.name or leader.name, first.email or leader.email)
    people = {
        person.key: person for person in Person.objects.annotate(key=Lower("github")).filter(key__in=list(wanted))
    }
    for key, leader in wanted.items():
        person = people.get(key)
        if person is None:
            people[key] = Person.objects.create(github=leader.github, name=leader.name, email=leader.email)
            result.people_created += 1
            continue
        filled = []
        if leader.name and not person.name:
            person.name = leader.name
            filled.append("name")
        if leader.email and not person.email:
            person.email = leader.email
            filled.append("email")
        if filled:
            person.save(update_fields=filled)
    return people


def _leaders_sync(sig: Sig, group: GroupRecord, people: dict[str, Person], have: set[tuple[int, str]]) -> bool:
    wanted = {(people[leader.key].pk, SigLeaderRole.CHAIR.value) for leader in group.chairs}
    wanted |= {(people[leader.key].pk, SigLeaderRole.TECH_LEAD.value) for leader in group.tech_leads}
    gone, new = have - wanted, wanted - have
    for person_id, role in gone:
        SigLeadership.objects.filter(sig=sig, person_id=person_id, role=role).delete()
    SigLeadership.objects.bulk_create(
        [SigLeadership(sig=sig, person_id=person_id, role=role) for person_id, role in sorted(new)]
    )
    return bool(gone or new)


def _meetings_sync(sig: Sig, records: Sequence[MeetingRecord], have: list[SigMeeting]) -> bool:
    """Meetings by position in the file: a changed one is updated in place, extra ones are deleted."""
    existing = {meeting.position: meeting for meeting in have}
    changed = False
    for position, record in enumerate(records):
        values = {name: getattr(record, name) for name in MEETING_FIELDS}
        meeting = existing.pop(position, None)
        if meeting is None:
            SigMeeting.objects.create(sig=sig, position=position, **values)
            changed = True
        elif any(getattr(meeting, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(meeting, name, value)
            meeting.save(update_fields=list(MEETING_FIELDS))
            changed = True
    if existing:
        SigMeeting.objects.filter(pk__in=[meeting.pk for meeting in existing.values()]).delete()
        changed = True
    return changed


# -- kep.yaml spellings --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SigResolver:
    """What a kep.yaml SIG spelling means, from the alias table and the SIGs sigs.yaml listed.

    `community` is empty until sigs.yaml has been imported: then every slug is taken as written (the demo and
    older databases keep working), and only the alias table applies.
    """

    aliases: dict[str, str]  # spelling -> slug, "" for "no SIG"
    community: frozenset[str]

    def is_plain(self, spelling: str) -> bool:
        """True when `spelling` needs no resolving: not an alias, and a community SIG (or none are known)."""
        return spelling not in self.aliases and (not self.community or spelling in self.community)

    def resolve(self, spelling: str) -> tuple[str | None, bool]:
        """(slug or None for "no SIG", known): `known` is False for a spelling that is neither a community SIG
        nor an alias, once sigs.yaml has been imported."""
        if spelling in self.aliases:
            return self.aliases[spelling] or None, True
        return spelling, not self.community or spelling in self.community


def sig_resolver_load() -> SigResolver:
    return SigResolver(
        aliases=dict(SigAlias.objects.values_list("spelling", "sig_slug")),
        community=frozenset(Sig.objects.filter(in_community=True).values_list("slug", flat=True)),
    )


#: kep.yaml spellings that mean a sigs.yaml SIG (or none): (spelling, SIG slug or "", why). The migration that
#: made the alias table seeds the same list as literals.
KNOWN_ALIASES = [
    ("sig-machinery", "sig-api-machinery", "typo in kep.yaml (keps/sig-scheduling/3521-pod-scheduling-readiness)"),
    ("sig-apimachinery", "sig-api-machinery", "typo in kep.yaml"),
    ("sig-scheduler", "sig-scheduling", "typo in kep.yaml (keps/sig-node/753-sidecar-containers)"),
    ("tbd", "", "placeholder in kep.yaml participating-sigs: no SIG"),
    ("sig-federation", "sig-multicluster", "SIG Federation became SIG Multicluster (2018)"),
    ("sig-cluster-federation", "sig-multicluster", "SIG Federation became SIG Multicluster (2018)"),
    ("sig-aws", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
    ("sig-azure", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
    ("sig-gcp", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
    ("sig-openstack", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
    ("sig-vmware", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
    ("sig-ibmcloud", "sig-cloud-provider", "provider SIGs became SIG Cloud Provider subprojects (2019)"),
]


def sig_aliases_seed_if_empty(*, apps=None, using: str = "default") -> int:
    """Seed the alias table with `KNOWN_ALIASES` when it is empty (a new or flushed database); returns how many."""
    from django.apps import apps as live_apps
    from django.db import connections

    registry = apps or live_apps
    try:
        alias_model = registry.get_model("community", "SigAlias")
    except LookupError:
        return 0  # migrated to a state before the alias table
    if alias_model._meta.db_table not in connections[using].introspection.table_names():
        return 0
    aliases = alias_model.objects.using(using)
    if aliases.exists():
        return 0
    aliases.bulk_create(alias_model(spelling=s, sig_slug=slug, note=note) for s, slug, note in KNOWN_ALIASES)
    return len(KNOWN_ALIASES)
