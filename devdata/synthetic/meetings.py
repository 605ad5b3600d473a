"""Weekly SIG meetings with PR-flow figures, and their agenda items."""

import datetime
import math
from collections import defaultdict

from keps.models import Kep
from meetings.models import AgendaItem, Meeting
from releases.choices import (
    MilestoneKind,
)

from .calendar import _pr_number, _release_index_at, _rng, _split, _spread
from .plans import _KepPlan
from .vocabulary import AGENDA_CI_TOPICS, SIGS


class MeetingsPhase:
    """Meetings and agenda items: the generator's meeting phases.

    Mixed into `generator._Generator`, whose state (random streams, plans, rows made so far) these methods share.
    """

    # -- meetings and agenda items -------------------------------------------------------------------
    def _meeting_dates(self, weekday: int, count: int) -> list[datetime.date]:
        """`count` meeting days, newest at or before the reference date, oldest first.

        Weekly on the SIG's day; when ten years of weeks would not be enough (large scales), the SIG
        meets on the following days of the week too (a subproject meeting).
        """
        per_week = max(1, math.ceil(count / 520))
        day = self.reference.date()
        day -= datetime.timedelta(days=(day.weekday() - weekday) % 7)
        dates = []
        while len(dates) < count:
            for extra in range(per_week):
                candidate = day + datetime.timedelta(days=extra)
                if candidate <= self.reference.date() and len(dates) < count:
                    dates.append(candidate)
            day -= datetime.timedelta(days=7)
        return sorted(dates)

    def _meetings(self) -> None:
        rng = _rng(self.seed, "meetings")
        meetings, meeting_sig = [], []
        for sig_index, count in enumerate(_split(self.sizes["meetings"], self.nsigs)):
            slug, name, weekday = SIGS[sig_index]
            size = 1.0 if sig_index == 0 else rng.uniform(0.3, 0.8)
            open_prs = round(180 * size)
            meeting_days = self._meeting_dates(weekday, count)
            span_days = (meeting_days[-1] - meeting_days[0]).days
            for day in meeting_days:
                cancelled = (day.month == 12 and day.day >= 22) or (day.month == 1 and day.day <= 3)
                cancelled = cancelled or rng.random() < 0.03
                figures = {}
                if not cancelled:
                    created = max(0, round(rng.gauss(38, 9) * size))
                    # Merged + closed roughly match created, pulled back towards a backlog that grows
                    # from ~180 to ~300 open PRs over the decade (SIG Node's order of magnitude).
                    backlog = size * (180 + 120 * (day - meeting_days[0]).days / max(1, span_days))
                    outflow = max(0.0, created + 0.08 * (open_prs - backlog) + rng.gauss(0, 4 * size))
                    share = rng.uniform(0.6, 0.8)
                    merged, closed = round(outflow * share), round(outflow * (1 - share))
                    open_prs = max(0, open_prs + created - merged - closed)
                    figures = {
                        "open_prs": open_prs,
                        "prs_created": created,
                        "prs_updated": created + max(0, round(rng.gauss(90, 20) * size)),
                        "prs_closed": closed,
                        "prs_merged": merged,
                    }
                video = "".join(
                    rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") for _ in range(11)
                )
                meetings.append(
                    Meeting(
                        sig=self.sigs[sig_index],
                        date=day,
                        title=f"{name} weekly meeting" + (" (cancelled)" if cancelled else ""),
                        cancelled=cancelled,
                        recording_url="" if cancelled else f"https://www.youtube.com/watch?v={video}",
                        source=self.source,
                        **figures,
                    )
                )
                meeting_sig.append(sig_index)
        meetings = self._create(Meeting, meetings)
        self._agenda(meetings, meeting_sig)

    def _agenda(self, meetings: list[Meeting], meeting_sig: list[int]) -> None:
        rng = _rng(self.seed, "agenda")
        items, item_keps, item_people = [], [], []
        kep_plans_by_sig: dict[int, list[_KepPlan]] = defaultdict(list)
        for plan in self.plans:
            kep_plans_by_sig[plan.sig].append(plan)
        for sig_index, total in enumerate(_split(self.sizes["agenda_items"], self.nsigs)):
            held = [(m, s) for m, s in zip(meetings, meeting_sig, strict=True) if s == sig_index and not m.cancelled]
            counts = _spread(total, [rng.uniform(0.4, 1.6) for _ in held])
            pool = self.sig_people[sig_index]
            for (meeting, _), count in zip(held, counts, strict=True):
                release_index = _release_index_at(meeting.date)
                tracked = self.tracked_by_release.get((sig_index, release_index), [])
                known = [p for p in kep_plans_by_sig[sig_index] if p.created <= meeting.date]
                for order in range(1, count + 1):
                    item, keps, people = self._agenda_item(meeting, order, release_index, tracked, known, pool, rng)
                    items.append(item)
                    item_keps.append(keps)
                    item_people.append(people)
        columns = ["meeting_id", "order", "title", "presenters_text", "body", "links", "related_release_id"]
        ids = self._insert(AgendaItem, columns, items)
        self._insert(
            AgendaItem.keps.through,
            ["agendaitem_id", "kep_id"],
            [(pk, kep.pk) for pk, keps in zip(ids, item_keps, strict=True) for kep in keps],
            label="meetings.AgendaItem.keps",
        )
        self._insert(
            AgendaItem.presenters.through,
            ["agendaitem_id", "person_id"],
            [(pk, person.pk) for pk, people in zip(ids, item_people, strict=True) for person in people],
            label="meetings.AgendaItem.presenters",
        )

    def _agenda_item(self, meeting, order, release_index, tracked, known, pool, rng):
        """One agenda item: a KEP update, a PR review request, release planning, CI or triage."""
        release = self.releases[release_index] if release_index is not None else None
        version = release.version if release else ""
        kind = rng.choices(["kep", "pr", "planning", "ci", "triage"], weights=[40, 30, 10, 12, 8])[0]
        enh = self.schedules[release_index][MilestoneKind.ENHANCEMENTS_FREEZE].date() if release else None
        if kind == "planning" and not (tracked and meeting.date <= enh):
            kind = "kep"
        candidates = tracked or known
        if kind in ("kep", "pr") and not candidates:
            kind = "ci"
        prs = [_pr_number(meeting.date, rng) for _ in range(rng.randint(1, 3))]
        pr_urls = [f"https://github.com/kubernetes/kubernetes/pull/{n}" for n in prs]
        keps: list[Kep] = []
        related = None
        if kind == "kep":
            title, body, keps, people = self._kep_update_item(rng, candidates, release_index, version, pr_urls)
            related = release if tracked else None
        elif kind == "pr":
            title, body, keps, people = self._pr_review_item(rng, candidates, pr_urls, pool)
        elif kind == "planning":
            title, body, keps, people = self._planning_item(rng, tracked, version, pool)
            related = release
        elif kind == "ci":
            title, body, people = _ci_item(rng, prs, pr_urls, pool)
            pr_urls = [f"https://github.com/kubernetes/kubernetes/issues/{prs[0]}", *pr_urls]
        else:
            title, body, people = _triage_item(rng, meeting, pr_urls, pool)
        presenters = ", ".join(f"@{p.github}" for p in people)
        item = (meeting.pk, order, title[:500], presenters, body, pr_urls, related.pk if related else None)
        return item, keps, people

    def _kep_update_item(self, rng, candidates, release_index, version, pr_urls):
        """A KEP's update by its authors: its aim in the release, its PRs and where it stands."""
        plan = rng.choice(candidates)
        kep = self.kep_of[plan.number]
        stage = next((a.target for a in plan.attempts if a.release == release_index), "")
        aim = f" — {stage} in v{version}" if stage and version else ""
        title = f"[KEP-{plan.number}] {plan.title}{aim}"
        body = (
            f"**KEP-{plan.number}** ([issue](https://github.com/kubernetes/enhancements/issues/{plan.number})): "
            f"{plan.title}.\n\n"
            f"- Implementation PR: {pr_urls[0]}\n"
            + "".join(f"- Follow-up: {url}\n" for url in pr_urls[1:])
            + rng.choice(
                [
                    "- Needs an approver before the freeze.\n",
                    "- PRR questionnaire updated; waiting for review.\n",
                    "- Test plan discussed; e2e coverage to be added.\n",
                    "- Feedback from the last meeting addressed.\n",
                ]
            )
        )
        people = rng.sample(self.kep_authors[kep.pk], min(len(self.kep_authors[kep.pk]), rng.randint(1, 2)))
        return title, body, [kep], people

    def _pr_review_item(self, rng, candidates, pr_urls, pool):
        """A request for review of some PRs, half the time of a KEP."""
        plan = rng.choice(candidates) if rng.random() < 0.5 else None
        keps = [self.kep_of[plan.number]] if plan else []
        title = f"PR review request: {pr_urls[0].rsplit('/', 1)[1]}" + (f" (KEP-{plan.number})" if plan else "")
        body = "".join(f"- {url}\n" for url in pr_urls) + rng.choice(
            ["- Looking for a reviewer.\n", "- Needs /approve from a kubelet approver.\n", "- Rebased; ready.\n"]
        )
        return title, body, keps, rng.sample(pool, rng.randint(1, 2))

    def _planning_item(self, rng, tracked, version, pool):
        """Release planning before enhancements freeze: the KEPs the SIG opts into the release."""
        chosen = rng.sample(tracked, min(len(tracked), rng.randint(3, 6)))
        title = f"v{version} planning: KEPs for the enhancements freeze"
        body = f"KEPs the SIG opts into v{version}:\n\n" + "".join(
            f"- [KEP-{p.number}](https://github.com/kubernetes/enhancements/issues/{p.number}) {p.title}\n"
            for p in chosen
        )
        return title, body, [self.kep_of[p.number] for p in chosen], pool[: rng.randint(1, 2)]


def _ci_item(rng, prs, pr_urls, pool):
    """A CI subproject update: a topic, its tracking issue and the fix in review."""
    topic = rng.choice(AGENDA_CI_TOPICS)
    title = f"CI subproject update: {topic}"
    body = f"- Tracking issue: https://github.com/kubernetes/kubernetes/issues/{prs[0] - rng.randint(1, 400)}\n"
    body += f"- Fix in review: {pr_urls[0]}\n"
    return title, body, rng.sample(pool, 1)


def _triage_item(rng, meeting, pr_urls, pool):
    """Triage of the PRs and issues waiting on the SIG, with the week's open PR count."""
    open_prs = meeting.open_prs or 0
    title = "Triage: PRs and issues waiting on the SIG"
    body = f"{open_prs} open PRs this week. Oldest first:\n\n" + "".join(f"- {url}\n" for url in pr_urls)
    return title, body, rng.sample(pool, 1)
