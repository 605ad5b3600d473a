"""One run of the generator: the random streams, the phases in order, and the public entry point."""

import datetime
from collections.abc import Callable

from django.db import connection, transaction

from community.models import Person, Sig
from keps.models import Kep
from meetings.models import Meeting
from releases.choices import (
    MilestoneKind,
    ReleaseState,
)
from releases.models import (
    Milestone,
    Release,
)

from .calendar import _milestone_instants, _rng, reference_instant
from .design_groups import DesignGroupsPhase
from .keps import KepsPhase
from .meetings import MeetingsPhase
from .plans import SyntheticDataError
from .retros import RetrosPhase
from .tracking import TrackingPhase
from .vocabulary import (
    ACTIVE,
    ALL_DAY_KINDS,
    BASE_SIZES,
    BATCH,
    COPY_THRESHOLD,
    FIRST_NAMES,
    LAST_NAMES,
    MAX_SCALE,
    NO_REMINDER_KINDS,
    PT,
    RELEASES,
    SIGS,
)
from .writer import _copy_values


class _Generator(KepsPhase, TrackingPhase, MeetingsPhase, RetrosPhase, DesignGroupsPhase):
    """One run of the generator: holds the random streams, the plans and the created rows."""

    def __init__(self, *, scale: float, seed: int, progress: Callable[[str], None] | None):
        self.scale = scale
        self.seed = seed
        self.progress = progress or (lambda phase: None)
        self.reference = reference_instant(seed)
        self.nsigs = min(len(SIGS), max(1, round(scale)))
        self.sizes = {name: max(1, round(base * scale)) for name, base in BASE_SIZES.items()}
        self.counts: dict[str, int] = {}
        self.schedules = [_milestone_instants(index) for index in range(len(RELEASES))]
        self.source = f"synthetic (scale {scale:g}, seed {seed})"

    # -- helpers ------------------------------------------------------------------------------------
    def _create(self, model, rows: list, label: str | None = None) -> list:
        """Insert unsaved instances in batches; returns them with primary keys set."""
        created = model.objects.bulk_create(rows, batch_size=BATCH)
        name = label or model._meta.label
        self.counts[name] = self.counts.get(name, 0) + len(created)
        return created

    def _insert(self, model, columns: list[str], values: list[tuple], label: str | None = None) -> list[int]:
        """Insert plain rows (values for the `columns` attnames) without building model instances on
        PostgreSQL; returns their primary keys in order. For the largest tables."""
        if connection.vendor == "postgresql" and len(values) >= COPY_THRESHOLD:
            ids = _copy_values(model, columns, values)
        else:
            created = model.objects.bulk_create(
                [model(**dict(zip(columns, row, strict=True))) for row in values], batch_size=BATCH
            )
            ids = [obj.pk for obj in created]
        name = label or model._meta.label
        self.counts[name] = self.counts.get(name, 0) + len(ids)
        return ids

    # -- phases -------------------------------------------------------------------------------------
    def run(self) -> dict:
        phases = [
            ("people", self._sigs_and_people),
            ("releases", self._releases),
            ("keps", self._keps),
            ("tracked enhancements", self._tracked),
            ("meetings", self._meetings),
            ("retrospectives", self._retrospectives),
            ("design groups", self._design_groups),
        ]
        for name, phase in phases:
            phase()
            self.progress(name)
        return {
            "scale": self.scale,
            "seed": self.seed,
            "reference": self.reference,
            "sigs": [sig.slug for sig in self.owning_sigs],
            "counts": dict(self.counts),
        }

    def _sigs_and_people(self) -> None:
        existing = {sig.slug: sig for sig in Sig.objects.filter(slug__in=[slug for slug, _, _ in SIGS])}
        missing = [
            Sig(slug=slug, name=name, mailing_list=f"kubernetes-{slug}@googlegroups.com")
            for slug, name, _ in SIGS
            if slug not in existing
        ]
        for sig in self._create(Sig, missing):
            existing[sig.slug] = sig
        self.sigs = [existing[slug] for slug, _, _ in SIGS]
        self.owning_sigs = self.sigs[: self.nsigs]

        rng = _rng(self.seed, "people")
        known = {person.github.lower(): person for person in Person.objects.all()}
        taken = set(known)
        new_people: list[Person] = []

        def person() -> Person:
            while True:
                first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
                pattern = rng.randrange(4)
                handle = [f"{first}{last[0]}", f"{first[0]}{last}", f"{first}-{last}", f"{first}{last}"][pattern]
                handle = handle.lower() if rng.random() < 0.7 else handle
                if handle.lower() in taken:
                    handle = f"{handle}{rng.randint(2, 99)}"
                if handle.lower() in taken:
                    continue
                taken.add(handle.lower())
                row = Person(
                    github=handle,
                    name=f"{first} {last}",
                    email=f"{handle.lower()}@example.com",
                    reminders_opt_out=rng.random() < 0.05,
                )
                new_people.append(row)
                return row

        # Per owning SIG: 36 contributors, the first four its leads/approvers.
        self.sig_people = [[person() for _ in range(36)] for _ in self.owning_sigs]
        self.release_team = [person() for _ in range(12 + 2 * self.nsigs)]
        self.prr_approvers = [person() for _ in range(4 + self.nsigs // 3)]
        self._create(Person, new_people)

    def _releases(self) -> None:
        releases = []
        for index, (version, name, start, release_day) in enumerate(RELEASES):
            state = (
                ReleaseState.RELEASED
                if index < ACTIVE
                else ReleaseState.ACTIVE
                if index == ACTIVE
                else ReleaseState.PLANNING
            )
            releases.append(
                Release(
                    version=version,
                    major=1,
                    minor=int(version.split(".")[1]),
                    name=name,
                    cycle_start=start,
                    planned_release_date=release_day,
                    actual_release_date=release_day if state == ReleaseState.RELEASED else None,
                    state=state,
                    source_url=f"https://github.com/kubernetes/sig-release/tree/master/releases/release-{version}",
                )
            )
        self.releases = self._create(Release, releases)

        node = self.sigs[0]
        milestones = []
        for index, release in enumerate(self.releases):
            pacific = index >= 6
            for kind, at in self.schedules[index].items():
                all_day = kind in ALL_DAY_KINDS or (kind == MilestoneKind.DOCS_FREEZE and not pacific)
                if all_day:
                    quoted, text = "", f"{at:%A %-d %B %Y}"
                elif kind == MilestoneKind.RETROSPECTIVE or pacific:
                    local = at.astimezone(PT)
                    quoted, text = "PT", f"{local:%A %-d %B %Y}, {local:%H:%M} {local.tzname()}"
                else:
                    quoted, text = "UTC", f"{at:%A %-d %B %Y}, {at:%H:%M} UTC"
                exception = None
                if kind == MilestoneKind.ENHANCEMENTS_FREEZE:
                    exception = at + datetime.timedelta(days=4)
                elif kind == MilestoneKind.CODE_FREEZE:
                    exception = at + datetime.timedelta(days=2)
                milestones.append(
                    Milestone(
                        release=release,
                        kind=kind,
                        sig=node if kind == MilestoneKind.SIG_SOFT_FREEZE else None,
                        at=at,
                        all_day=all_day,
                        label="SIG Node soft freeze" if kind == MilestoneKind.SIG_SOFT_FREEZE else "",
                        quoted_timezone=quoted,
                        exception_deadline=exception,
                        sends_reminders=kind not in NO_REMINDER_KINDS,
                        source_text=text,
                    )
                )
        self._create(Milestone, milestones)


PHASES = (
    "people",
    "releases",
    "keps",
    "tracked enhancements",
    "meetings",
    "retrospectives",
    "design groups",
)


def _ensure_empty() -> None:
    found = [
        f"{count} {model._meta.verbose_name_plural}"
        for model in (Kep, Release, Meeting)
        if (count := model.objects.count())
    ]
    if found:
        raise SyntheticDataError(
            f"the database is not empty ({', '.join(found)}); generate synthetic data into an empty database only"
        )


@transaction.atomic
def synthetic_data_generate(
    *, scale: float, seed: int, dry_run: bool = False, progress: Callable[[str], None] | None = None
) -> dict:
    """Fill an empty database with deterministic synthetic data; returns what was created.

    `scale` multiplies every size of SIG Node's history (KEPs, meetings, agenda items, tracked
    enhancements, retro items; releases stay 16) and spreads it over `round(scale)` SIGs (1–10).
    `progress` is called with each phase's name (see PHASES) as it finishes. Raises SyntheticDataError
    (and writes nothing) when the database already holds KEPs, releases or meetings. With `dry_run`
    everything is generated and written, then rolled back: the counts say what a real run creates.

    Returns `{"scale", "seed", "reference", "sigs", "counts"}`; counts are rows created per model
    (and per many-to-many table).
    """
    if not (0 < scale <= MAX_SCALE):
        raise SyntheticDataError(f"scale must be greater than 0 and at most {MAX_SCALE}, not {scale:g}")
    _ensure_empty()
    result = _Generator(scale=scale, seed=seed, progress=progress).run()
    if dry_run:
        transaction.set_rollback(True)
    return result
