"""Retrospectives with what went well, what to improve and action items."""

import random

from releases.choices import MilestoneKind
from retros.choices import ActionStatus, RetroCategory
from retros.models import RetroItem, Retrospective

from .calendar import _rng, _spread
from .vocabulary import ACTIONS, ACTIVE, FIRST_TRACKED, TO_IMPROVE, WENT_WELL


class RetrosPhase:
    """Retrospectives and their items: the generator's retro phase.

    Mixed into `generator._Generator`, whose state (random streams, plans, rows made so far) these methods share.
    """

    # -- retrospectives ------------------------------------------------------------------------------
    def _retrospectives(self) -> None:
        rng = _rng(self.seed, "retros")
        retros, retro_meta = self._retrospective_rows(rng)
        retros = self._create(Retrospective, retros)
        self._create(RetroItem, self._retro_items(rng, retros, retro_meta))

    def _retrospective_rows(self, rng: random.Random) -> tuple[list[Retrospective], list[tuple]]:
        """One unsaved retro per owning SIG and past release, with its summary (and, before the first tracked
        release, the tally it recorded); and beside each, what its items are written from."""
        retros, retro_meta = [], []
        for sig_index, sig in enumerate(self.owning_sigs):
            for index in range(ACTIVE):
                release = self.releases[index]
                plans = self.tracked_by_release.get((sig_index, index), [])
                outcomes = [a.outcome for p in plans for a in p.attempts if a.release == index]
                tally = {}
                if index < FIRST_TRACKED:
                    tracked = rng.randint(14, 28)
                    merged = round(tracked * rng.uniform(0.5, 0.65))
                    tally = {"recorded_tracked": tracked, "recorded_merged": merged}
                    summary = f"{sig.display_name} v{release.version} retro: {merged} of {tracked} tracked KEPs merged."
                else:
                    summary = (
                        f"{sig.display_name} v{release.version} retro: {outcomes.count('done')} of {len(outcomes)} "
                        f"tracked KEPs shipped, {outcomes.count('removed')} removed, "
                        f"{outcomes.count('deferred')} deferred."
                    )
                retros.append(
                    Retrospective(
                        release=release,
                        sig=sig,
                        date=self.schedules[index][MilestoneKind.RETROSPECTIVE].date(),
                        summary=summary,
                        **tally,
                    )
                )
                retro_meta.append((sig_index, index, plans, outcomes, tally))
        return retros, retro_meta

    def _retro_items(self, rng: random.Random, retros: list[Retrospective], retro_meta: list[tuple]) -> list[RetroItem]:
        """The retros' items, went well, to improve and action item in turn, their text filled in from the retro's
        release and KEPs."""
        items = []
        counts = _spread(self.sizes["retro_items"], [rng.uniform(0.5, 1.5) for _ in retros])
        for retro, (sig_index, index, plans, outcomes, tally), count in zip(retros, retro_meta, counts, strict=True):
            kep = rng.choice(plans).number if plans else rng.choice(self.plans).number
            values = {
                "v": self.releases[index].version,
                "next": self.releases[index + 1].version,
                "kep": kep,
                "done": outcomes.count("done") if outcomes else tally.get("recorded_merged", 0),
                "removed": outcomes.count("removed"),
                "tracked": len(outcomes),
            }
            for order in range(count):
                category = [RetroCategory.WENT_WELL, RetroCategory.TO_IMPROVE, RetroCategory.ACTION_ITEM][order % 3]
                status, owner, due = "", None, None
                if category == RetroCategory.WENT_WELL:
                    text = rng.choice(WENT_WELL)
                elif category == RetroCategory.TO_IMPROVE:
                    text = rng.choice(TO_IMPROVE if values["tracked"] else TO_IMPROVE[1:])
                else:
                    text = rng.choice(ACTIONS)
                    owner = rng.choice(self.sig_people[sig_index][:8])
                    due = self.releases[index + 1]
                    status = _action_status(rng, releases_since=ACTIVE - index)
                items.append(
                    RetroItem(
                        retrospective=retro,
                        category=category,
                        order=order,
                        text=text.format(**values),
                        owner=owner,
                        status=status,
                        due_release=due,
                    )
                )
        return items


def _action_status(rng: random.Random, *, releases_since: int) -> str:
    """An action item's status some releases after its retro: open or in progress at first, mostly settled later."""
    if releases_since <= 1:
        return rng.choice([ActionStatus.OPEN, ActionStatus.IN_PROGRESS])
    if releases_since <= 3:
        return rng.choice([ActionStatus.OPEN, ActionStatus.IN_PROGRESS, ActionStatus.DONE])
    return rng.choices([ActionStatus.DONE, ActionStatus.DROPPED, ActionStatus.IN_PROGRESS], weights=[6, 3, 1])[0]
