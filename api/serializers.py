"""What each API row says: the columns of the matching page, with `url` to the page. Every field reads only
what the view's selector joined or prefetched, so a list costs the same queries whatever its length."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from community.models import Sig
from keps.models import DesignGroup, FeatureGate, Kep, KepPlanChange
from meetings.models import AgendaItem, Meeting
from releases.models import (
    EnhancementException,
    EnhancementStatusChange,
    Milestone,
    Release,
    ReleaseStats,
    ReleaseTeamMember,
    TrackedEnhancement,
)
from releases.prr import prr_approver_of, prr_of
from releases.rules import scope_label
from releases.selectors_kep_timeline import kep_timeline
from retros import selectors as retro_selectors
from retros.models import RetroItem, Retrospective


@extend_schema_field(OpenApiTypes.URI)
class PageUrlField(serializers.Field):
    """The absolute address of the object's page (`get_absolute_url`)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("source", "*")
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, obj):
        url = obj.get_absolute_url()
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url


def slugs() -> serializers.SlugRelatedField:
    """A many-to-many field as a list of slugs."""
    return serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)


def handles() -> serializers.SlugRelatedField:
    """A many-to-many field of people as a list of GitHub handles."""
    return serializers.SlugRelatedField(slug_field="github", many=True, read_only=True)


class SigSerializer(serializers.ModelSerializer):
    display_name = serializers.CharField(read_only=True)

    class Meta:
        model = Sig
        fields = [
            "slug",
            "name",
            "display_name",
            "kind",
            "label",
            "mission",
            "mailing_list_url",
            "slack_channel",
            "in_community",
        ]


class MilestoneSerializer(serializers.ModelSerializer):
    sig = serializers.CharField(source="sig.slug", read_only=True, allow_null=True, default=None)
    title = serializers.SerializerMethodField()

    class Meta:
        model = Milestone
        fields = ["kind", "title", "at", "all_day", "quoted_timezone", "exception_deadline", "sig"]

    def get_title(self, obj) -> str:
        return obj.label or obj.get_kind_display()


class ReleaseStatsSerializer(serializers.ModelSerializer):
    sig = serializers.CharField(source="sig.slug", read_only=True, allow_null=True, default=None)
    figures_known = serializers.BooleanField(
        read_only=True,
        help_text="False: nothing of this release is recorded (no enhancement, no retro tally), so its zeros "
        "count nothing; the pages show no figures.",
    )
    tracked_at_freeze = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text="How many were tracked at the enhancements freeze; null for a release over with no freeze dated "
        "(`tracked` then counts its listed enhancements as they stand).",
    )
    outcome_not_recorded = serializers.IntegerField(
        read_only=True,
        help_text="For a release that is over: listed enhancements never marked done, deferred or removed, whose "
        "outcome is therefore unknown; `done` counts none of them (0 in a cycle, or with a retro tally).",
    )
    scope_label = serializers.CharField(
        read_only=True, help_text='What the figures cover: "release-wide", "recorded for 1 SIG", or the SIG.'
    )

    class Meta:
        model = ReleaseStats
        fields = [
            "sig",
            "scope",
            "scope_label",
            "release_wide_known",
            "sigs_recorded",
            "figures_from",
            "source",
            "tracked",
            "tracked_at_freeze",
            "done",
            "outcome_not_recorded",
            "tracked_source",
            "not_recorded",
            "in_cycle",
            "figures_known",
            "recorded_tracked",
            "recorded_done",
            "deferred",
            "removed",
            "merge_rate",
            "rate_over",
            "merge_rate_change",
            "counts",
            "funnel",
            "slips",
            "computed_at",
        ]


class ReleaseTeamMemberSerializer(serializers.ModelSerializer):
    github = serializers.CharField(source="person.github", read_only=True)
    name = serializers.CharField(source="person.name", read_only=True)

    class Meta:
        model = ReleaseTeamMember
        fields = ["role", "role_label", "is_shadow", "github", "name"]


class ReleaseSerializer(serializers.ModelSerializer):
    release_date = serializers.DateField(source="release_on", read_only=True, allow_null=True)
    enhancements_freeze_at = serializers.DateTimeField(read_only=True, allow_null=True)
    code_freeze_at = serializers.DateTimeField(read_only=True, allow_null=True)
    tracked = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text="All SIGs, tracked at the enhancements freeze; null: not computed, nothing of it is recorded, "
        "or no freeze of it is dated.",
    )
    done = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text="All SIGs; null: not computed, nothing of it is recorded, or recorded for some SIGs only "
        "(`release_wide_known` false: see `stats` for each SIG's).",
    )
    merge_rate = serializers.FloatField(
        read_only=True,
        allow_null=True,
        help_text="done / tracked at enhancements freeze with a recorded outcome, 0..1; null when no outcome is "
        "recorded, before the release day, or recorded for some SIGs only.",
    )
    scope = serializers.SerializerMethodField(help_text="What `tracked`, `done` and `merge_rate` cover.")
    release_wide_known = serializers.BooleanField(
        read_only=True,
        allow_null=True,
        help_text="False: only some SIGs' figures are recorded (one SIG's notes or retro tally, an exception file), "
        "so the release-wide figures are null; null: not computed.",
    )
    sigs_recorded = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="How many SIGs have figures recorded for this release."
    )
    figures_from = serializers.JSONField(
        read_only=True,
        allow_null=True,
        help_text="Where the release-wide figures come from, the headline's source first: board, labels, notes, "
        "exception_file, feature_sheet, retro_tally, admin.",
    )
    milestones = MilestoneSerializer(many=True, read_only=True)
    stats = ReleaseStatsSerializer(many=True, read_only=True, help_text="All SIGs (sig null) and each SIG.")
    release_team = ReleaseTeamMemberSerializer(
        source="team_members", many=True, read_only=True, help_text="Each role's lead and shadows (release-team.md)."
    )
    url = PageUrlField()

    class Meta:
        model = Release
        fields = [
            "version",
            "name",
            "state",
            "cycle_start",
            "planned_release_date",
            "actual_release_date",
            "release_date",
            "enhancements_freeze_at",
            "code_freeze_at",
            "tracked",
            "done",
            "merge_rate",
            "scope",
            "release_wide_known",
            "sigs_recorded",
            "figures_from",
            "milestones",
            "stats",
            "release_team",
            "url",
        ]

    def get_scope(self, obj) -> str:
        """`rules.scope_label`: "release-wide", or "recorded for N SIGs" when only some SIGs are."""
        known = getattr(obj, "release_wide_known", None) is not False
        return scope_label(sig=None, sigs_recorded=getattr(obj, "sigs_recorded", None), known=known)


class CurrentReleaseSerializer(serializers.Serializer):
    """`/releases/current/`: the release whose cycle contains now, else the latest released one."""

    in_cycle = serializers.BooleanField(help_text="False between cycles: the release named is the latest released.")
    summary = serializers.CharField(help_text='e.g. "v1.37 released 26 Aug 2026; the v1.38 schedule is not ..."')
    next_release = serializers.CharField(allow_null=True, help_text="The next release, when its schedule is known.")
    release = ReleaseSerializer()


class TrackedEnhancementSerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="release.version", read_only=True)
    kep = serializers.IntegerField(
        source="kep.number", read_only=True, allow_null=True, default=None, help_text="Null for a KEP-less feature."
    )
    kep_title = serializers.CharField(source="kep.title", read_only=True, allow_null=True, default=None)
    feature_name = serializers.SerializerMethodField(
        help_text="An early feature sheet's name for a feature with no KEP (kep null); null for a KEP."
    )
    sig = serializers.CharField(source="sig.slug", read_only=True)
    enhancements_contact = serializers.CharField(
        source="enhancements_contact.github", read_only=True, allow_null=True, default=None
    )
    slips = serializers.IntegerField(read_only=True, help_text="Slips of this KEP up to and including this release.")
    is_at_risk = serializers.BooleanField(read_only=True)
    is_final = serializers.BooleanField(read_only=True)
    prr_status = serializers.SerializerMethodField(
        help_text="The board's PRR status, else approved when the KEP's prod-readiness file names an approver for "
        "the target stage."
    )
    prr_approver = serializers.SerializerMethodField(help_text="GitHub handle of the PRR approver; null if none.")
    url = PageUrlField()

    def get_prr_status(self, obj) -> str:
        return prr_of(obj)

    def get_feature_name(self, obj) -> str | None:
        return None if obj.kep_id else obj.feature_name

    def get_prr_approver(self, obj) -> str | None:
        return prr_approver_of(obj) or None

    class Meta:
        model = TrackedEnhancement
        fields = [
            "id",
            "release",
            "kep",
            "kep_title",
            "feature_name",
            "sig",
            "type",
            "target_stage",
            "status",
            "board_status",
            "is_at_risk",
            "is_final",
            "prr_status",
            "prr_approver",
            "enhancements_contact",
            "slips",
            "source",
            "github_issue_url",
            "updated_at",
            "url",
        ]


class ExceptionRequestSerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="release.version", read_only=True)
    kep = serializers.SerializerMethodField(help_text="The KEP asked about; null for a kubernetes/kubernetes issue.")
    tracked_enhancement = serializers.IntegerField(source="tracked_enhancement_id", read_only=True, allow_null=True)
    pull_requests = serializers.ListField(source="pull_request_list", child=serializers.URLField(), read_only=True)

    class Meta:
        model = EnhancementException
        fields = [
            "id",
            "release",
            "kep",
            "tracked_enhancement",
            "title",
            "issue_url",
            "freeze",
            "requested_at",
            "thread_url",
            "pull_requests",
            "decision",
            "decided_at",
            "deadline",
            "additional_time",
            "liaison",
            "notes",
            "source",
        ]

    def get_kep(self, obj) -> int | None:
        if obj.kep_number:
            return obj.kep_number
        row = obj.tracked_enhancement if obj.tracked_enhancement_id else None
        return row.kep.number if row is not None and row.kep_id else None


class StatusChangeSerializer(serializers.ModelSerializer):
    tracked_enhancement = serializers.IntegerField(source="tracked_enhancement_id", read_only=True)
    release = serializers.CharField(source="tracked_enhancement.release.version", read_only=True)
    kep = serializers.IntegerField(
        source="tracked_enhancement.kep.number",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="Null for a KEP-less feature.",
    )
    sig = serializers.CharField(source="tracked_enhancement.sig.slug", read_only=True)
    instant = serializers.SerializerMethodField(
        help_text="exact: when it happened; observed: a sync saw it, it happened between observed_since and "
        "changed_at; assumed: a stand-in instant (e.g. first seen by the first board sync)."
    )

    def get_instant(self, obj) -> str:
        if obj.observed_since is not None:
            return "observed"
        return "assumed" if obj.assumed else "exact"

    class Meta:
        model = EnhancementStatusChange
        fields = [
            "id",
            "tracked_enhancement",
            "release",
            "kep",
            "sig",
            "from_status",
            "to_status",
            "changed_at",
            "author",
            "source",
            "link",
            "assumed",
            "instant",
            "observed_since",
            "note",
        ]


class KepSerializer(serializers.ModelSerializer):
    owning_sig = serializers.CharField(source="owning_sig.slug", read_only=True)
    design_groups = slugs()
    url = PageUrlField()
    issue_url = serializers.URLField(read_only=True)

    class Meta:
        model = Kep
        fields = [
            "number",
            "title",
            "slug",
            "owning_sig",
            "status",
            "stage",
            "latest_milestone",
            "alpha_milestone",
            "beta_milestone",
            "stable_milestone",
            "deprecated_milestone",
            "design_groups",
            "issue_url",
            "url",
        ]
        # kep.yaml's milestones are what the KEP's authors plan, not what shipped (see the detail's `stages`).
        extra_kwargs = {
            f"{stage}_milestone": {"help_text": f"The release kep.yaml plans {stage} for: a plan, not a fact."}
            for stage in ("alpha", "beta", "stable", "deprecated")
        }


class PrrApprovalSerializer(serializers.Serializer):
    stage = serializers.CharField()
    approver = serializers.CharField(source="approver.github")


class PlanChangeSerializer(serializers.ModelSerializer):
    """One change of the KEP's kep.yaml plan on kubernetes/enhancements master (the plan after the commit)."""

    commit_url = serializers.URLField(read_only=True)

    class Meta:
        model = KepPlanChange
        fields = [
            "committed_at",
            "commit_sha",
            "commit_url",
            "path",
            "stage",
            "status",
            "latest_milestone",
            "milestones",
            "target_milestone",
            "slipped_from",
        ]


class SlipCountsSerializer(serializers.Serializer):
    planned = serializers.IntegerField(
        source="plan_slips", help_text="kep.yaml history: the milestone for its stage moved to a later release."
    )
    tracked = serializers.IntegerField(
        source="tracked_slips", help_text="Enhancements boards: releases that removed or deferred it."
    )


class KepDetailSerializer(KepSerializer):
    plan_history = serializers.SerializerMethodField()
    slips = SlipCountsSerializer(source="*", read_only=True)
    participating_sigs = slugs()
    authors = handles()
    reviewers = handles()
    approvers = handles()
    feature_gates = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    prr_approvals = PrrApprovalSerializer(many=True, read_only=True)
    stages = serializers.SerializerMethodField(
        help_text="`reached`: stage -> release it shipped in (a done tracked enhancement of a released release) and "
        "where that comes from; `planned`: stage -> release kep.yaml plans it for, where not reached there."
    )

    def get_stages(self, obj) -> dict:
        timeline = kep_timeline(kep=obj)
        reached = timeline.reached.items()
        return {
            "reached": {str(stage): {"release": version, "source": source} for stage, (version, source) in reached},
            "planned": {str(stage): version for stage, version in timeline.planned.items()},
        }

    class Meta(KepSerializer.Meta):
        fields = [
            *KepSerializer.Meta.fields,
            "participating_sigs",
            "authors",
            "reviewers",
            "approvers",
            "feature_gates",
            "prr_approvals",
            "stages",
            "creation_date",
            "last_updated",
            "disable_supported",
            "plan_history",
            "slips",
        ]

    @extend_schema_field(PlanChangeSerializer(many=True))
    def get_plan_history(self, obj) -> list:
        changes = KepPlanChange.objects.filter(kep_number=obj.number).order_by("position", "committed_at", "pk")
        return PlanChangeSerializer(changes, many=True).data


class FeatureGateSerializer(serializers.ModelSerializer):
    kep = serializers.IntegerField(source="kep.number", read_only=True)
    kep_title = serializers.CharField(source="kep.title", read_only=True)
    owning_sig = serializers.CharField(source="kep.owning_sig.slug", read_only=True)
    stage = serializers.CharField(source="kep.stage", read_only=True, help_text="The stage kep.yaml plans.")
    alpha_reached = serializers.CharField(read_only=True, allow_null=True, help_text="Release it shipped alpha in.")
    beta_reached = serializers.CharField(read_only=True, allow_null=True)
    stable_reached = serializers.CharField(read_only=True, allow_null=True)

    class Meta:
        model = FeatureGate
        fields = [
            "name",
            "components",
            "kep",
            "kep_title",
            "owning_sig",
            "stage",
            "alpha_reached",
            "beta_reached",
            "stable_reached",
        ]


class DesignGroupSerializer(serializers.ModelSerializer):
    sigs = slugs()
    keps = serializers.SlugRelatedField(slug_field="number", many=True, read_only=True)
    kep_count = serializers.IntegerField(read_only=True)
    active_count = serializers.IntegerField(read_only=True)
    url = PageUrlField()

    class Meta:
        model = DesignGroup
        fields = ["slug", "name", "summary", "coverage_status", "sigs", "keps", "kep_count", "active_count", "url"]


class MeetingSerializer(serializers.ModelSerializer):
    sig = serializers.CharField(source="sig.slug", read_only=True)
    item_count = serializers.IntegerField(read_only=True)
    url = PageUrlField()

    class Meta:
        model = Meeting
        fields = [
            "id",
            "sig",
            "date",
            "title",
            "cancelled",
            "recording_url",
            "open_prs",
            "prs_created",
            "prs_updated",
            "prs_closed",
            "prs_merged",
            "item_count",
            "url",
        ]


class AgendaItemSerializer(serializers.ModelSerializer):
    meeting = serializers.IntegerField(source="meeting_id", read_only=True)
    sig = serializers.CharField(source="meeting.sig.slug", read_only=True)
    date = serializers.DateField(source="meeting.date", read_only=True)
    presenters = handles()
    keps = serializers.SlugRelatedField(slug_field="number", many=True, read_only=True)
    related_release = serializers.CharField(
        source="related_release.version", read_only=True, allow_null=True, default=None
    )
    links = serializers.ListField(child=serializers.CharField(), read_only=True)
    url = PageUrlField()

    class Meta:
        model = AgendaItem
        fields = [
            "id",
            "meeting",
            "sig",
            "date",
            "order",
            "title",
            "presenters",
            "presenters_text",
            "body",
            "keps",
            "links",
            "related_release",
            "url",
        ]


class MeetingDetailSerializer(MeetingSerializer):
    agenda_items = AgendaItemSerializer(many=True, read_only=True)

    class Meta(MeetingSerializer.Meta):
        fields = [*MeetingSerializer.Meta.fields, "agenda_items"]


class RetroItemSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.github", read_only=True, allow_null=True, default=None)
    due_release = serializers.CharField(source="due_release.version", read_only=True, allow_null=True, default=None)

    class Meta:
        model = RetroItem
        fields = ["id", "category", "order", "text", "owner", "status", "due_release"]


class RetrospectiveSerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="release.version", read_only=True)
    sig = serializers.CharField(source="sig.slug", read_only=True)
    items = RetroItemSerializer(many=True, read_only=True)
    url = PageUrlField()

    class Meta:
        model = Retrospective
        fields = [
            "id",
            "release",
            "sig",
            "date",
            "summary",
            "source_url",
            "recorded_tracked",
            "recorded_merged",
            "items",
            "url",
            "collecting",
            "carried_over",
            "follow_through",
        ]

    collecting = serializers.SerializerMethodField(help_text="The board takes input now.")
    carried_over = serializers.SerializerMethodField(help_text="Open action items of the SIG's earlier retros.")
    follow_through = serializers.SerializerMethodField(
        help_text="Of the SIG's action items due by this release (status recorded), how many: `{action_items, done}`."
    )

    def _summary(self, obj) -> dict:
        """The page's summaries, computed once for all its retros (retros.selectors.retro_summaries)."""
        summaries = self.context.setdefault("retro_summaries", {})
        if obj.pk not in summaries:
            page = self.context.get("retro_page") or [obj]
            summaries.update(retro_selectors.retro_summaries(page if obj in page else [obj]))
        return summaries[obj.pk]

    def get_collecting(self, obj) -> bool:
        return self._summary(obj)["collecting"]

    def get_carried_over(self, obj) -> list[dict]:
        return [
            {
                "id": item.pk,
                "release": item.retrospective.release.version,
                "text": item.text,
                "status": item.status,
                "owner": item.owner.github if item.owner_id else None,
                "due_release": item.due_release.version if item.due_release_id else None,
            }
            for item in self._summary(obj)["carried_over"]
        ]

    @extend_schema_field(
        {"type": "object", "properties": {"action_items": {"type": "integer"}, "done": {"type": "integer"}}}
    )
    def get_follow_through(self, obj) -> dict:
        return self._summary(obj)["follow_through"]


class ActionItemSerializer(RetroItemSerializer):
    release = serializers.CharField(source="retrospective.release.version", read_only=True)
    sig = serializers.CharField(source="retrospective.sig.slug", read_only=True)
    retrospective = serializers.IntegerField(source="retrospective_id", read_only=True)
    url = serializers.SerializerMethodField()

    class Meta(RetroItemSerializer.Meta):
        fields = ["id", "release", "sig", "retrospective", "text", "owner", "status", "due_release", "issue_url", "url"]

    def get_url(self, obj) -> str:
        url = obj.retrospective.get_absolute_url()
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url


class UpstreamSourceSerializer(serializers.Serializer):
    """An upstream repository and the commit sigtracker's data is as of (null before its first import)."""

    name = serializers.CharField(help_text="enhancements, sig-release or community")
    url = serializers.CharField(help_text="The git URL refreshed from (without any credentials).")
    commit = serializers.CharField(allow_null=True, help_text="The last commit imported.")
    commit_date = serializers.DateTimeField(allow_null=True, help_text="Its committer date.")
    status = serializers.CharField(help_text="never, ok, skipped (current, some files skipped) or failed")
    error = serializers.CharField(help_text="Why the last refresh failed (empty otherwise).")
    last_success_at = serializers.DateTimeField(allow_null=True, help_text="When a refresh last left it current.")
