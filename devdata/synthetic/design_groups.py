"""Design groups that merge related KEPs across SIGs."""

from keps.choices import CoverageStatus
from keps.models import DesignGroup

from .calendar import _rng
from .vocabulary import SIGS


class DesignGroupsPhase:
    """Design groups: the generator's last phase.

    Mixed into `generator._Generator`, whose state (random streams, plans, rows made so far) these methods share.
    """

    # -- design groups --------------------------------------------------------------------------------
    def _design_groups(self) -> None:
        """The coverage overview's groups, plus one roadmap group per additional SIG at larger scales."""
        rng = _rng(self.seed, "design-groups")
        groups = [
            ("Scheduler core", ["sig-scheduling"], CoverageStatus.DETAILED),
            ("Workload and gang scheduling", ["sig-scheduling", "sig-apps"], CoverageStatus.IN_PROGRESS),
            ("Dynamic resource allocation", ["sig-node", "sig-scheduling"], CoverageStatus.DETAILED),
            ("HPA and autoscaling", ["sig-autoscaling"], CoverageStatus.PLANNED),
            ("In-place pod resize", ["sig-node", "sig-autoscaling"], CoverageStatus.DETAILED),
            ("Node runtime, observability and security", ["sig-node"], CoverageStatus.SUPPLEMENTARY),
        ]
        for slug, name, _ in SIGS[4 : self.nsigs]:
            groups.append((f"{name} roadmap", [slug], rng.choice(CoverageStatus.values)))
        sig_by_slug = {sig.slug: sig for sig in self.sigs}
        rows = []
        for name, slugs, coverage in groups:
            slug = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).replace("--", "-").strip("-")
            rows.append(
                DesignGroup(
                    name=name,
                    slug=slug,
                    summary=f"KEPs of {', '.join(slugs)} that are designed and reviewed together.",
                    coverage_status=coverage,
                )
            )
        rows = self._create(DesignGroup, rows)
        sig_through, kep_through = DesignGroup.sigs.through, DesignGroup.keps.through
        sig_links, kep_links = [], []
        for group, (_, slugs, _) in zip(rows, groups, strict=True):
            for slug in slugs:
                sig_links.append(sig_through(designgroup_id=group.pk, sig_id=sig_by_slug[slug].pk))
            owners = [i for i, (s, _, _) in enumerate(SIGS[: self.nsigs]) if s in slugs]
            candidates = [p for p in self.plans if p.sig in owners and not p.provisional] or [
                p for p in self.plans if not p.provisional
            ]
            for plan in rng.sample(candidates, min(len(candidates), rng.randint(3, 8))):
                kep_links.append(kep_through(designgroup_id=group.pk, kep_id=self.kep_of[plan.number].pk))
        self._create(sig_through, sig_links, label="keps.DesignGroup.sigs")
        self._create(kep_through, kep_links, label="keps.DesignGroup.keps")
