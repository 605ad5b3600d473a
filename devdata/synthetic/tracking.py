"""Tracked enhancements per release and their status histories, spread over each cycle."""

import datetime
import random
from collections import defaultdict

from django.db.models import OuterRef, Subquery

from releases.choices import (
    EnhancementStatus,
    MilestoneKind,
)
from releases.models import (
    EnhancementStatusChange,
    TrackedEnhancement,
    status_writer,
)

from .calendar import _rng
from .plans import _Attempt, _KepPlan
from .vocabulary import ACTIVE, REMOVAL_NOTES, TRACKED_RELEASES

#: The board moves on whole minutes, each change at least one after the one before.
MINUTE = datetime.timedelta(minutes=1)


class _StatusPath:
    """The status changes of one tracked enhancement as (to_status, at, note), written in time order through the
    milestones of its release. Each step draws from the tracking phase's random stream as it is called: the order
    of the calls is part of the generated data, which a seed must reproduce."""

    def __init__(self, rng: random.Random, milestones: dict):
        self.rng = rng
        self.milestones = milestones
        self.events: list[tuple[str, datetime.datetime, str]] = []

    def between(self, a: datetime.datetime, b: datetime.datetime) -> datetime.datetime:
        return a + (b - a) * self.rng.uniform(0.05, 0.95)

    def add(self, status: str, at: datetime.datetime, note: str = "") -> None:
        if self.events and at <= self.events[-1][1]:
            at = self.events[-1][1] + MINUTE
        self.events.append((status, at.replace(second=0, microsecond=0), note))

    def opt_in(self, *, misses_enhancements_freeze: bool) -> datetime.datetime:
        """Opted in around the cycle's start (some early ones through the PRR freeze first), and tracked for
        enhancements freeze unless it is to miss it; returns the opt-in instant."""
        S = EnhancementStatus
        start = self.milestones[MilestoneKind.CYCLE_START]
        prr, enh = self.milestones[MilestoneKind.PRR_FREEZE], self.milestones[MilestoneKind.ENHANCEMENTS_FREEZE]
        opt_in = self.between(start - datetime.timedelta(days=14), start + (enh - start) * 0.6)
        if opt_in < prr and self.rng.random() < 0.35:
            self.add(S.AT_RISK_PRR, opt_in, "Opted in.")
            self.add(S.TRACKED_PRR, self.between(opt_in, prr))
            self.add(
                S.AT_RISK_ENHANCEMENTS if misses_enhancements_freeze else S.TRACKED_ENHANCEMENTS, self.between(prr, enh)
            )
        else:
            self.add(S.AT_RISK_ENHANCEMENTS, opt_in, "Opted in.")
            if not misses_enhancements_freeze:
                self.add(S.TRACKED_ENHANCEMENTS, self.between(opt_in, enh))
        return opt_in

    def removed_at_enhancements_freeze(self) -> None:
        """Removed just after enhancements freeze, sometimes after an exception it was not granted."""
        enh = self.milestones[MilestoneKind.ENHANCEMENTS_FREEZE]
        note = self.rng.choice(REMOVAL_NOTES["enhancements"])
        if self.rng.random() < 0.3:
            self.add(
                EnhancementStatus.EXCEPTION_PENDING, enh + MINUTE * self.rng.randint(10, 600), "Exception requested."
            )
            self.add(
                EnhancementStatus.REMOVED,
                enh + datetime.timedelta(days=self.rng.randint(1, 3)),
                "Exception not granted. " + note,
            )
        else:
            self.add(EnhancementStatus.REMOVED, enh + MINUTE * self.rng.randint(1, 90), note)

    def at_risk_for_code_freeze(self) -> datetime.datetime:
        """At risk for code freeze some way into the stretch after enhancements freeze; returns that instant."""
        enh, code = self.milestones[MilestoneKind.ENHANCEMENTS_FREEZE], self.milestones[MilestoneKind.CODE_FREEZE]
        code_start = enh + (code - enh) * self.rng.uniform(0.15, 0.45)
        self.add(EnhancementStatus.AT_RISK_CODE, code_start)
        return code_start

    def removed_at_code_freeze(self) -> None:
        """Removed just after code freeze, sometimes after an exception asked in its last days and not granted."""
        code = self.milestones[MilestoneKind.CODE_FREEZE]
        note = self.rng.choice(REMOVAL_NOTES["code"])
        if self.rng.random() < 0.3:
            self.add(
                EnhancementStatus.EXCEPTION_PENDING,
                code - datetime.timedelta(hours=self.rng.randint(2, 48)),
                "Exception requested.",
            )
            self.add(
                EnhancementStatus.REMOVED,
                code + datetime.timedelta(days=self.rng.randint(1, 2)),
                "Exception not granted. " + note,
            )
        else:
            self.add(EnhancementStatus.REMOVED, code + MINUTE * self.rng.randint(1, 120), note)

    def through_code_freeze(self, code_start: datetime.datetime) -> None:
        """Tracked for code freeze before it, or (rarely) let through by a granted exception."""
        code = self.milestones[MilestoneKind.CODE_FREEZE]
        if self.rng.random() < 0.12:
            self.add(
                EnhancementStatus.EXCEPTION_PENDING,
                code - datetime.timedelta(hours=self.rng.randint(2, 30)),
                "Exception requested.",
            )
            self.add(
                EnhancementStatus.EXCEPTION_APPROVED,
                code + datetime.timedelta(hours=self.rng.randint(6, 40)),
                "Exception granted.",
            )
        else:
            self.add(EnhancementStatus.TRACKED_CODE, self.between(code_start, code))

    def through_docs_freeze(self, *, misses_docs_freeze: bool) -> None:
        """At risk for docs freeze after code freeze; removed at it, or tracked and done by release day."""
        code, docs = self.milestones[MilestoneKind.CODE_FREEZE], self.milestones[MilestoneKind.DOCS_FREEZE]
        docs_start = code + datetime.timedelta(hours=self.rng.randint(12, 96))
        self.add(EnhancementStatus.AT_RISK_DOCS, docs_start)
        if misses_docs_freeze:
            self.add(
                EnhancementStatus.REMOVED,
                docs + MINUTE * self.rng.randint(1, 120),
                self.rng.choice(REMOVAL_NOTES["docs"]),
            )
        else:
            self.add(EnhancementStatus.TRACKED_DOCS, self.between(docs_start, docs))
            # Marked done by release day (the milestone's instant), so the board as of release shows it shipped.
            release = self.milestones[MilestoneKind.RELEASE]
            self.add(EnhancementStatus.DONE, release - datetime.timedelta(hours=self.rng.randint(2, 30)), "Shipped.")

    def deferred(self, *, after: datetime.datetime, to_version: str) -> None:
        """Deferred by the SIG some time between `after` and code freeze: what came later never happened."""
        deferred_at = self.between(after, self.milestones[MilestoneKind.CODE_FREEZE])
        self.events = [event for event in self.events if event[1] < deferred_at]
        self.add(EnhancementStatus.DEFERRED, deferred_at, f"Deferred by the SIG to {to_version}.")


class TrackingPhase:
    """Tracked enhancements and their status histories: the generator's tracking phase.

    Mixed into `generator._Generator`, whose state (random streams, plans, rows made so far) these methods share.
    """

    # -- tracked enhancements and their status history ---------------------------------------------
    def _history(self, attempt: _Attempt, rng: random.Random) -> list[tuple[str, datetime.datetime, str]]:
        """Status changes of one tracked enhancement as (to_status, at, note), in time order.

        The path follows the board's vocabulary through the cycle: at risk → tracked for enhancements
        freeze, at risk → tracked for code freeze (or an exception), docs, and done on release day; a
        removal happens at the freeze it missed, a deferral whenever the SIG decides before code freeze.
        For the active release the path is cut at the reference instant.
        """
        missed = None
        if attempt.outcome == "removed":
            missed = (
                "enhancements"
                if attempt.release == ACTIVE
                else rng.choices(["enhancements", "code", "docs"], weights=[4, 5, 1])[0]
            )
        path = _StatusPath(rng, self.schedules[attempt.release])
        opt_in = path.opt_in(misses_enhancements_freeze=missed == "enhancements")
        if missed == "enhancements":
            path.removed_at_enhancements_freeze()
        else:
            code_start = path.at_risk_for_code_freeze()
            if missed == "code":
                path.removed_at_code_freeze()
            else:
                path.through_code_freeze(code_start)
                path.through_docs_freeze(misses_docs_freeze=missed == "docs")
        if attempt.outcome == "deferred":
            path.deferred(after=opt_in, to_version=f"v1.{20 + attempt.release + 1}")
        if attempt.release == ACTIVE:
            return [event for event in path.events if event[1] <= self.reference]
        return path.events

    def _tracked(self) -> None:
        rows, histories = self._tracked_rows(_rng(self.seed, "tracked"))
        # Demo data only (devdata is never installed in production): the board and its history are generated
        # together and inserted in bulk, each row's status its last generated change, its history just below.
        with status_writer():
            rows = self._create(TrackedEnhancement, rows)
        self._status_changes_insert(rows, histories)
        # bulk_create stamps auto_now `updated_at` with the wall clock; make it the last change instead,
        # so the data does not depend on when it was generated (one UPDATE for all rows).
        last_change = EnhancementStatusChange.objects.filter(tracked_enhancement=OuterRef("pk")).order_by("-changed_at")
        # The database held no releases before this run, so every tracked enhancement is ours.
        TrackedEnhancement.objects.update(updated_at=Subquery(last_change.values("changed_at")[:1]))
        self.tracked_by_release: dict[tuple[int, int], list[_KepPlan]] = defaultdict(list)
        for plan in self.plans:
            for attempt in plan.attempts:
                self.tracked_by_release[(plan.sig, attempt.release)].append(plan)

    def _tracked_rows(self, rng: random.Random) -> tuple[list[TrackedEnhancement], list[tuple[list, str]]]:
        """One unsaved row per attempt of every plan, its status the last of its generated history; and beside
        each, that history and the handle of the enhancements contact who wrote it."""
        contacts = {
            release: rng.sample(self.release_team, min(len(self.release_team), 3 + self.nsigs))
            for release in TRACKED_RELEASES
        }
        rows, histories = [], []
        for plan in self.plans:
            kep = self.kep_of[plan.number]
            for attempt in plan.attempts:
                events = self._history(attempt, rng)
                contact = rng.choice(contacts[attempt.release])
                final = events[-1][0]
                notes = events[-1][2] if final in (EnhancementStatus.REMOVED, EnhancementStatus.DEFERRED) else ""
                rows.append(
                    TrackedEnhancement(
                        release=self.releases[attempt.release],
                        kep=kep,
                        sig=self.sigs[plan.sig],
                        type=attempt.type,
                        target_stage=attempt.target,
                        status=final,
                        enhancements_contact=contact,
                        assignee=rng.choice(self.kep_authors[kep.pk]),
                        notes=notes,
                        created_at=events[0][1],
                    )
                )
                histories.append((events, contact.github))
        return rows, histories

    def _status_changes_insert(self, rows: list[TrackedEnhancement], histories: list[tuple[list, str]]) -> None:
        """Each saved row's generated history, as status changes written by its contact."""
        changes = []
        for row, (events, author) in zip(rows, histories, strict=True):
            previous = ""
            for status, at, note in events:
                # Generated demo data: its instants are the synthetic board's own, so none is assumed.
                changes.append((row.pk, previous, status, at, None, author, note, "fixture", "", False))
                previous = status
        columns = [
            "tracked_enhancement_id",
            "from_status",
            "to_status",
            "changed_at",
            "changed_by_id",
            "author",
            "note",
            "source",
            "link",
            "assumed",
        ]
        self._insert(EnhancementStatusChange, columns, changes)
