"""The figures of a release, computed from its board or recorded by its retros (`ReleaseStats`)."""

from django.db import models
from django.utils import timezone

from community.models import Sig

from ..choices import FigureScope, StatsSource
from ..rules import figures_known, outcome_not_recorded, scope_label, sources_label
from .release import Release


class ReleaseStats(models.Model):
    """Computed (or recorded) figures for one release, for one SIG or (sig empty) all SIGs together."""

    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="stats")
    sig = models.ForeignKey(Sig, on_delete=models.CASCADE, null=True, blank=True, related_name="release_stats")
    source = models.CharField(max_length=20, choices=StatsSource.choices, default=StatsSource.TRACKED_ROWS)
    # None on a release-wide row whose SIGs are not all recorded (`releases.rules.figures`): unknown is not zero.
    tracked = models.PositiveIntegerField(default=0, null=True, blank=True)
    done = models.PositiveIntegerField(default=0, null=True, blank=True)
    deferred = models.PositiveIntegerField(default=0)
    removed = models.PositiveIntegerField(default=0)
    merge_rate = models.FloatField(null=True, blank=True, help_text="done / tracked, 0..1.")
    merge_rate_change = models.FloatField(null=True, blank=True, help_text="Against the previous release.")
    recorded_tracked = models.PositiveIntegerField(
        null=True, blank=True, help_text="The retro's recorded tally of tracked KEPs, kept beside computed figures."
    )
    recorded_done = models.PositiveIntegerField(
        null=True, blank=True, help_text="The retro's recorded tally of merged KEPs."
    )
    # Where `tracked` and `done` come from, and what they may claim (`releases.rules.merge_figures`).
    tracked_source = models.CharField(
        max_length=20,
        choices=StatsSource.choices,
        default=StatsSource.TRACKED_ROWS,
        help_text="Tracked and done from the board's history, or from the retro's tally when the history covers less.",
    )
    not_recorded = models.PositiveIntegerField(
        default=0, help_text="KEPs whose standing at enhancements freeze the history does not record."
    )
    in_cycle = models.BooleanField(
        default=False, help_text="Computed before the release day: tracked and done so far, no merge rate."
    )
    scope = models.CharField(
        max_length=10,
        choices=FigureScope.choices,
        default=FigureScope.RELEASE,
        help_text="Release-wide (sig empty) or one SIG's figures.",
    )
    release_wide_known = models.BooleanField(
        default=True,
        help_text="False on the release-wide row when only some SIGs' figures are recorded: tracked, done and "
        "merge rate are then empty and the per-SIG rows carry them.",
    )
    sigs_recorded = models.PositiveIntegerField(
        null=True, blank=True, help_text="Release-wide row: how many SIGs have figures recorded."
    )
    figures_from = models.JSONField(
        default=list, blank=True, help_text="Where the figures come from (FigureSource values), most rows first."
    )
    rate_over = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="How many enhancements the merge rate is over: tracked at enhancements freeze with a recorded "
        "outcome.",
    )
    counts = models.JSONField(default=dict, blank=True, help_text="Counts by status, type and stage.")
    funnel = models.JSONField(default=list, blank=True, help_text="Opted in → at each freeze → shipped.")
    slips = models.JSONField(default=list, blank=True, help_text="KEPs slipped in this release and how often.")
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["release__major", "release__minor", "sig__slug"]
        verbose_name_plural = "release stats"
        constraints = [
            models.UniqueConstraint(
                fields=["release", "sig"],
                condition=models.Q(sig__isnull=False),
                name="stats_unique_release_sig",
                violation_error_message="Stats exist for this release and SIG.",
            ),
            models.UniqueConstraint(
                fields=["release"],
                condition=models.Q(sig__isnull=True),
                name="stats_unique_release_all_sigs",
                violation_error_message="Stats exist for this release.",
            ),
            models.CheckConstraint(
                condition=models.Q(merge_rate__isnull=True) | models.Q(merge_rate__gte=0, merge_rate__lte=1),
                name="stats_merge_rate_range",
                violation_error_message="Merge rate must be within 0..1.",
            ),
            models.CheckConstraint(
                condition=models.Q(done__lte=models.F("tracked")),
                name="stats_done_le_tracked",
                violation_error_message="More done than tracked.",
            ),
            models.CheckConstraint(
                condition=models.Q(source__in=StatsSource.values),
                name="stats_source_valid",
                violation_error_message="Unknown source.",
            ),
            models.CheckConstraint(
                condition=models.Q(scope__in=FigureScope.values),
                name="stats_scope_valid",
                violation_error_message="Unknown scope.",
            ),
            models.CheckConstraint(
                condition=models.Q(tracked_source__in=StatsSource.values),
                name="stats_tracked_source_valid",
                violation_error_message="Unknown source of the tracked figure.",
            ),
        ]

    def __str__(self):
        return f"{self.release.version} stats ({self.sig or 'all SIGs'})"

    @property
    def tracked_at_freeze(self) -> int | None:
        """How many were tracked at the enhancements freeze; None once the release is over when that is not
        known: no freeze of it is dated (`tracked` then counts its enhancements as they stand), or its history,
        with no retro tally to stand in, does not say where `not_recorded` of them stood at the freeze
        (`tracked` then counts only the others)."""
        if self.tracked is None or self.in_cycle:
            return self.tracked
        undated = (self.counts or {}).get("freezes_undated")
        if undated or (self.not_recorded and self.tracked_source != StatsSource.RECORDED_TALLY):
            return None
        return self.tracked

    @property
    def scope_label(self) -> str:
        """`rules.scope_label`: "sig-node", "release-wide" or "recorded for 1 SIG"."""
        return scope_label(
            sig=self.sig.slug if self.sig_id else None, sigs_recorded=self.sigs_recorded, known=self.release_wide_known
        )

    @property
    def sources_label(self) -> str:
        """`rules.sources_label` of `figures_from`: "the enhancements board", "SIG meeting notes"."""
        return sources_label(self.figures_from or ())

    @property
    def listed(self) -> int | None:
        """How many enhancements the release lists (its funnel's first step, "opted in"); None without a funnel."""
        return next((step["count"] for step in self.funnel or () if step["step"] == "opted_in"), None)

    @property
    def outcome_not_recorded(self) -> int:
        """`rules.outcome_not_recorded`: listed enhancements of a release that is over whose end was never
        recorded, so that `done` is a floor, not a count of what shipped."""
        return outcome_not_recorded(
            status_counts=(self.counts or {}).get("status", {}),
            in_cycle=self.in_cycle,
            from_tally=self.tracked_source == StatsSource.RECORDED_TALLY,
        )

    @property
    def figures_known(self) -> bool:
        """`rules.figures_known`: the counts by status are of the release's listed enhancements, so they are
        empty when none is listed."""
        return figures_known(
            tracked=self.tracked,
            has_enhancements=any((self.counts or {}).get("status", {}).values()),
            recorded_tracked=self.recorded_tracked,
            in_cycle=self.in_cycle,
            sigs_recorded=self.sigs_recorded or 0,
        )
