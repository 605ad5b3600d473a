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
        ms = self.schedules[attempt.release]
        start, prr = ms[MilestoneKind.CYCLE_START], ms[MilestoneKind.PRR_FREEZE]
        enh, code = ms[MilestoneKind.ENHANCEMENTS_FREEZE], ms[MilestoneKind.CODE_FREEZE]
        docs, release = ms[MilestoneKind.DOCS_FREEZE], ms[MilestoneKind.RELEASE]
        minutes = datetime.timedelta(minutes=1)
        S = EnhancementStatus

        def between(a, b):
            return a + (b - a) * rng.uniform(0.05, 0.95)

        fail = None
        if attempt.outcome == "removed":
            fail = (
                "enhancements"
                if attempt.release == ACTIVE
                else rng.choices(["enhancements", "code", "docs"], weights=[4, 5, 1])[0]
            )
        events: list[tuple[str, datetime.datetime, str]] = []

        def add(status, at, note=""):
            if events and at <= events[-1][1]:
                at = events[-1][1] + minutes
            events.append((status, at.replace(second=0, microsecond=0), note))

        opt_in = between(start - datetime.timedelta(days=14), start + (enh - start) * 0.6)
        if opt_in < prr and rng.random() < 0.35:
            add(S.AT_RISK_PRR, opt_in, "Opted in.")
            add(S.TRACKED_PRR, between(opt_in, prr))
            add(S.TRACKED_ENHANCEMENTS if fail != "enhancements" else S.AT_RISK_ENHANCEMENTS, between(prr, enh))
        else:
            add(S.AT_RISK_ENHANCEMENTS, opt_in, "Opted in.")
            if fail != "enhancements":
                add(S.TRACKED_ENHANCEMENTS, between(opt_in, enh))
        if fail == "enhancements":
            note = rng.choice(REMOVAL_NOTES["enhancements"])
            if rng.random() < 0.3:
                add(S.EXCEPTION_PENDING, enh + minutes * rng.randint(10, 600), "Exception requested.")
                add(S.REMOVED, enh + datetime.timedelta(days=rng.randint(1, 3)), "Exception not granted. " + note)
            else:
                add(S.REMOVED, enh + minutes * rng.randint(1, 90), note)
        else:
            code_start = enh + (code - enh) * rng.uniform(0.15, 0.45)
            add(S.AT_RISK_CODE, code_start)
            if fail == "code":
                note = rng.choice(REMOVAL_NOTES["code"])
                if rng.random() < 0.3:
                    add(
                        S.EXCEPTION_PENDING, code - datetime.timedelta(hours=rng.randint(2, 48)), "Exception requested."
                    )
                    add(S.REMOVED, code + datetime.timedelta(days=rng.randint(1, 2)), "Exception not granted. " + note)
                else:
                    add(S.REMOVED, code + minutes * rng.randint(1, 120), note)
            else:
                if rng.random() < 0.12:
                    add(
                        S.EXCEPTION_PENDING, code - datetime.timedelta(hours=rng.randint(2, 30)), "Exception requested."
                    )
                    add(S.EXCEPTION_APPROVED, code + datetime.timedelta(hours=rng.randint(6, 40)), "Exception granted.")
                else:
                    add(S.TRACKED_CODE, between(code_start, code))
                docs_start = code + datetime.timedelta(hours=rng.randint(12, 96))
                add(S.AT_RISK_DOCS, docs_start)
                if fail == "docs":
                    add(S.REMOVED, docs + minutes * rng.randint(1, 120), rng.choice(REMOVAL_NOTES["docs"]))
                else:
                    add(S.TRACKED_DOCS, between(docs_start, docs))
                    # Marked done by release day (the milestone's instant), so the board as of release shows it shipped.
                    add(S.DONE, release - datetime.timedelta(hours=rng.randint(2, 30)), "Shipped.")
        if attempt.outcome == "deferred":
            deferred_at = between(opt_in, code)
            events = [event for event in events if event[1] < deferred_at]
            add(S.DEFERRED, deferred_at, f"Deferred by the SIG to v1.{20 + attempt.release + 1}.")
        if attempt.release == ACTIVE:
            events = [event for event in events if event[1] <= self.reference]
        return events

    def _tracked(self) -> None:
        rng = _rng(self.seed, "tracked")
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
        # Demo data only (devdata is never installed in production): the board and its history are generated
        # together and inserted in bulk, each row's status its last generated change, its history just below.
        with status_writer():
            rows = self._create(TrackedEnhancement, rows)
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
        # bulk_create stamps auto_now `updated_at` with the wall clock; make it the last change instead,
        # so the data does not depend on when it was generated (one UPDATE for all rows).
        last_change = EnhancementStatusChange.objects.filter(tracked_enhancement=OuterRef("pk")).order_by("-changed_at")
        # The database held no releases before this run, so every tracked enhancement is ours.
        TrackedEnhancement.objects.update(updated_at=Subquery(last_change.values("changed_at")[:1]))
        self.tracked_by_release: dict[tuple[int, int], list[_KepPlan]] = defaultdict(list)
        for plan in self.plans:
            for attempt in plan.attempts:
                self.tracked_by_release[(plan.sig, attempt.release)].append(plan)
