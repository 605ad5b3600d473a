"""KEPs and their journeys through the releases: stages, milestones, gates, PRR approvals, owners."""

import datetime
import random
from collections import defaultdict

from community.models import Person
from keps.choices import KepStatus
from keps.models import FeatureGate, Kep, PrrApproval
from releases.choices import (
    EnhancementType,
    MilestoneKind,
    TargetStage,
)

from .calendar import _kep_created, _minor_at, _rng, _split, _spread
from .plans import _Attempt, _KepPlan
from .vocabulary import (
    ACTIVE,
    FIRST_TRACKED,
    GATE_COMPONENTS_EXTRA,
    KEP_STAGE_OF,
    LADDERS,
    MERGE_RATE,
    PLANNING,
    PRR_STAGE_OF,
    RELEASES,
    SIG_NODE_KEPS,
    SIG_TOPICS,
    SIGS,
    TITLE_PATTERNS,
    TRACKED_RELEASES,
)


class KepsPhase:
    """KEPs and their journeys: the generator's KEP phases.

    Mixed into `generator._Generator`, whose state (random streams, plans, rows made so far) these methods share.
    """

    # -- KEPs and their journeys through the releases ----------------------------------------------
    def _plan_keps(self) -> list[_KepPlan]:
        """Decide every KEP and simulate its way through the releases (which attempts, which outcomes)."""
        rng = _rng(self.seed, "keps")
        per_sig = _split(self.sizes["keps"], self.nsigs)
        curated = SIG_NODE_KEPS[: per_sig[0]]
        used = {number for number, _, _ in curated}
        upper = max(5300, 100 + 2 * self.sizes["keps"])
        latest_created = self.reference.date() - datetime.timedelta(days=21)
        plans: list[_KepPlan] = []
        for sig_index, count in enumerate(per_sig):
            slug = SIGS[sig_index][0]
            entries = list(curated) if sig_index == 0 else []
            topics, _ = SIG_TOPICS[slug]
            titles_seen: set[str] = set()
            while len(entries) < count:
                number = round(rng.triangular(100, upper, upper * 0.85))
                if number in used:
                    continue
                used.add(number)
                topic = rng.choice(topics)
                title = rng.choice(TITLE_PATTERNS).format(topic=topic, Topic=topic[0].upper() + topic[1:])
                if title in titles_seen:
                    title = f"{title} (phase {sum(t.startswith(title) for t in titles_seen) + 1})"
                titles_seen.add(title)
                roll = rng.random()
                kind = "perma" if roll < 0.10 else "removal" if roll < 0.14 else ""
                entries.append((number, title, kind))
            for number, title, kind in entries:
                created = min(_kep_created(number), latest_created)
                plans.append(_KepPlan(number=number, title=title, sig=sig_index, created=created, kind=kind))
        for plan in plans:
            self._plan_start(plan, rng)
        for sig_index, target in enumerate(_split(self.sizes["tracked"], self.nsigs)):
            self._simulate([p for p in plans if p.sig == sig_index], target, _rng(self.seed, f"journeys:{sig_index}"))
        return plans

    def _plan_start(self, plan: _KepPlan, rng: random.Random) -> None:
        """Where a KEP stands when tracking starts (1.22): done before, carried in, new, or never tracked."""
        ladder = LADDERS[plan.kind]
        first_tracked_start = RELEASES[FIRST_TRACKED][2]
        if plan.kind == "" and rng.random() < 0.08:
            plan.provisional = True
            return
        if plan.created < first_tracked_start:
            first = min(_minor_at(plan.created + datetime.timedelta(days=60)), 21)
            if plan.kind != "perma" and rng.random() < 0.3:
                # Finished before 1.22: all stages done at estimated older releases.
                minor = first
                for stage in ladder:
                    plan.done_at[stage] = minor
                    minor = min(minor + rng.randint(1, 3), 21)
                plan.stage_idx = len(ladder)
                plan.finished = True
                return
            # Carried in: the first stage (and for perma-betas the second) done before 1.22.
            done = 2 if plan.kind == "perma" else rng.randint(1, len(ladder) - 1)
            minor = first
            for stage in ladder[:done]:
                plan.done_at[stage] = minor
                minor = min(minor + rng.randint(1, 2), 21)
            plan.stage_idx = done
            wait = rng.randint(3, 8) if plan.kind == "perma" else rng.randint(0, 3)
            plan.next_release = FIRST_TRACKED + wait
            return
        start = next(
            (
                i
                for i in range(len(RELEASES))
                if self.schedules[i][MilestoneKind.ENHANCEMENTS_FREEZE].date() > plan.created
            ),
            PLANNING,
        )
        plan.next_release = start + rng.choice([0, 0, 1, 1, 2])

    def _eligible(self, plan: _KepPlan, release: int) -> bool:
        return (
            not plan.finished
            and not plan.provisional
            and plan.created < self.schedules[release][MilestoneKind.ENHANCEMENTS_FREEZE].date()
        )

    def _simulate(self, plans: list[_KepPlan], target: int, rng: random.Random) -> None:
        """Walk the tracked releases in order, opting KEPs in up to a per-release quota (so the total lands
        on `target`) and deciding who ships, following MERGE_RATE."""
        releases = list(TRACKED_RELEASES)
        quotas = _spread(target, [rng.uniform(0.8, 1.2) for _ in releases])
        shortfall = 0
        for release, quota in zip(releases, quotas, strict=True):
            # Early releases may lack candidates; what they could not fill moves to the next release.
            quota += shortfall
            due = [p for p in plans if self._eligible(p, release) and p.next_release <= release]
            rng.shuffle(due)
            chosen, postponed = due[:quota], due[quota:]
            for plan in postponed:
                plan.next_release = release + 1
            if len(chosen) < quota:
                # Pull in KEPs planned for later releases; perma-betas (waiting on purpose) only as a last resort.
                waiting = [p for p in plans if self._eligible(p, release) and p.next_release > release]
                waiting.sort(key=lambda p: (p.kind == "perma" and p.stage_idx == 2, p.next_release, p.number))
                chosen += waiting[: quota - len(chosen)]
            shortfall = quota - len(chosen)
            self._decide(chosen, release, rng)

    def _decide(self, chosen: list[_KepPlan], release: int, rng: random.Random) -> None:
        """Outcomes of one release's attempts (exactly MERGE_RATE of them ship) and each KEP's next step."""
        if release == ACTIVE:
            outcomes = ["removed" if rng.random() < 0.15 else "open" for _ in chosen]
        else:
            # Perma-betas aiming at stable are the last to ship.
            chosen.sort(key=lambda p: p.kind == "perma" and LADDERS[p.kind][p.stage_idx] == TargetStage.STABLE)
            n_done = round(MERGE_RATE[release] * len(chosen))
            outcomes = ["done"] * n_done + [
                "removed" if rng.random() < 0.7 else "deferred" for _ in range(len(chosen) - n_done)
            ]
        for plan, outcome in zip(chosen, outcomes, strict=True):
            ladder = LADDERS[plan.kind]
            stage = ladder[plan.stage_idx]
            if plan.kind == "removal":
                kind = EnhancementType.DEPRECATION if stage == TargetStage.DEPRECATION else EnhancementType.REMOVAL
            elif plan.stage_idx == 0 and not plan.attempts:
                kind = EnhancementType.NET_NEW
            else:
                kind = EnhancementType.MAJOR_CHANGE if rng.random() < 0.1 else EnhancementType.GRADUATING
            plan.attempts.append(_Attempt(release=release, target=stage, type=kind, outcome=outcome))
            if outcome == "done":
                plan.done_at[stage] = 20 + release
                plan.stage_idx += 1
                if plan.stage_idx == len(ladder):
                    plan.finished = True
                elif plan.kind == "perma" and stage == TargetStage.BETA:
                    plan.next_release = release + rng.randint(7, 11)
                else:
                    plan.next_release = release + rng.choice([1, 2, 2, 3] if plan.stage_idx == 1 else [2, 3, 3, 4])
            elif outcome in ("removed", "deferred"):
                plan.next_release = release + (1 if rng.random() < 0.75 else 2)
                if rng.random() < 0.08:
                    plan.finished = plan.abandoned = True

    def _keps(self) -> None:
        rng = _rng(self.seed, "kep-rows")
        self.plans = self._plan_keps()
        keps = []
        for plan in self.plans:
            keps.append(self._kep_row(plan, rng))
        self.keps = self._create(Kep, keps)
        self.kep_of = {plan.number: kep for plan, kep in zip(self.plans, self.keps, strict=True)}

        through = {
            name: getattr(Kep, name).through for name in ("participating_sigs", "authors", "reviewers", "approvers")
        }
        links: dict[str, list] = defaultdict(list)
        gates, approvals = [], []
        gate_names: set[str] = set()
        self.kep_authors: dict[int, list[Person]] = {}
        for plan, kep in zip(self.plans, self.keps, strict=True):
            pool = self.sig_people[plan.sig]
            leads, others = pool[:4], pool[4:]
            owner = self.sigs[plan.sig]
            for sig in rng.sample([s for s in self.sigs if s.pk != owner.pk], rng.choice([0, 0, 1, 1, 2])):
                links["participating_sigs"].append((kep.pk, sig.pk))
            authors = rng.sample(others, rng.randint(1, 3))
            self.kep_authors[kep.pk] = authors
            for field_name, people in (
                ("authors", authors),
                ("reviewers", rng.sample(others, rng.randint(1, 2))),
                ("approvers", rng.sample(leads, rng.randint(1, 2))),
            ):
                for person in people:
                    links[field_name].append((kep.pk, person.pk))
            if plan.provisional:
                continue
            for _ in range(0 if plan.kind == "removal" and rng.random() < 0.5 else rng.choice([1, 1, 1, 2])):
                words = [w for w in plan.title.replace("-", " ").split() if w.isalnum()][:4]
                base = "".join(w[0].upper() + w[1:] for w in words) or f"Kep{plan.number}"
                name, n = base, 2
                while name in gate_names:
                    name, n = f"{base}{n}", n + 1
                gate_names.add(name)
                components = list(SIG_TOPICS[SIGS[plan.sig][0]][1])
                if rng.random() < 0.3:
                    extra = rng.choice(GATE_COMPONENTS_EXTRA)
                    if extra not in components:
                        components.append(extra)
                gates.append(FeatureGate(name=name, kep=kep, components=components))
            stages = list(plan.done_at) + [a.target for a in plan.attempts if a.target not in plan.done_at]
            for stage in dict.fromkeys(stages):
                if stage in PRR_STAGE_OF:
                    approvals.append(
                        PrrApproval(kep=kep, stage=PRR_STAGE_OF[stage], approver=rng.choice(self.prr_approvers))
                    )
        for field_name, rows in links.items():
            target = "sig_id" if field_name == "participating_sigs" else "person_id"
            self._insert(through[field_name], ["kep_id", target], rows, label=f"keps.Kep.{field_name}")
        self._create(FeatureGate, gates)
        self._create(PrrApproval, approvals)

    def _kep_row(self, plan: _KepPlan, rng: random.Random) -> Kep:
        """The kep.yaml a KEP would have at the reference instant, derived from its journey."""
        milestones = {stage: f"1.{minor}" for stage, minor in plan.done_at.items()}
        last = plan.attempts[-1] if plan.attempts else None
        if plan.provisional:
            status = rng.choice(
                [KepStatus.PROVISIONAL] * 4 + [KepStatus.WITHDRAWN, KepStatus.REJECTED, KepStatus.REPLACED]
            )
            stage, latest = "", ""
        else:
            if last and last.outcome == "open":
                milestones[last.target] = f"1.{20 + last.release}"
                stage = KEP_STAGE_OF[last.target]
            elif plan.done_at:
                stage = KEP_STAGE_OF[max(plan.done_at, key=lambda s: LADDERS[plan.kind].index(s))]
            else:
                stage = KEP_STAGE_OF[LADDERS[plan.kind][0]]
            if last:
                latest = f"1.{20 + last.release}"
            elif plan.done_at:
                latest = f"1.{max(plan.done_at.values())}"
            else:
                # Not tracked yet: aims at the release it plans to opt into.
                latest = f"1.{20 + min(plan.next_release, PLANNING)}"
                milestones.setdefault(LADDERS[plan.kind][plan.stage_idx], latest)
            if plan.abandoned:
                status = rng.choice([KepStatus.DEFERRED, KepStatus.WITHDRAWN])
            elif plan.finished:
                status = KepStatus.IMPLEMENTED
            else:
                status = KepStatus.IMPLEMENTABLE
        if last:
            updated = self.schedules[last.release][MilestoneKind.ENHANCEMENTS_FREEZE].date() - datetime.timedelta(
                days=rng.randint(1, 20)
            )
        else:
            updated = plan.created + datetime.timedelta(days=rng.randint(0, 200))
        updated = min(max(updated, plan.created), self.reference.date())
        kep_slug = f"{plan.number}-" + "-".join(
            "".join(ch for ch in word.lower() if ch.isalnum()) for word in plan.title.split()[:6]
        )
        return Kep(
            number=plan.number,
            title=plan.title,
            slug=kep_slug.rstrip("-")[:200],
            owning_sig=self.sigs[plan.sig],
            status=status,
            stage=stage,
            latest_milestone=latest,
            alpha_milestone=milestones.get(TargetStage.ALPHA, ""),
            beta_milestone=milestones.get(TargetStage.BETA, ""),
            stable_milestone=milestones.get(TargetStage.STABLE, ""),
            deprecated_milestone=milestones.get(TargetStage.DEPRECATION, ""),
            creation_date=plan.created,
            last_updated=updated,
            disable_supported=None if plan.created.year < 2020 else rng.random() < 0.85,
            tracking_issue_url=f"https://github.com/kubernetes/enhancements/issues/{plan.number}",
        )
