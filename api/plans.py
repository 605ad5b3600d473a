"""A SIG's plan for a release in the API: `GET /api/v1/plans/<version>/<sig>/` (candidates, capacity, outcome) and
`GET`/`POST /api/v1/plans/<version>/<sig>/decisions/` (the decision history, newest first; a lead's or curator's
decision). The plan is `planning.selectors.plan_for`, the same reading as the page; who may decide is
`planning.policy.can_decide_plan`, the page's rule, and its refusal says what is missing."""

from django.conf import settings
from django.core.cache import caches
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.throttling import UserRateThrottle
from rest_framework.views import APIView

from community.models import Sig
from keps.models import Kep
from planning.choices import CapacityRole, PlanDecisionKind
from planning.models import NOTE_MAX_LENGTH, PlanDecision
from planning.policy import can_decide_plan
from planning.selectors import plan_for, plan_version_known
from planning.services import PlanInvalid, PlanRefused, plan_decision_record

from .caching import ConditionalGetMixin
from .permissions import PublicReadOnly
from .throttling import AnonymousIpThrottle

#: The history answer's bound: the newest this many decisions of one plan.
HISTORY_LIMIT = 1000


class CandidateSerializer(serializers.Serializer):
    kep = serializers.IntegerField()
    title = serializers.CharField()
    stage = serializers.CharField()
    sources = serializers.ListField(child=serializers.CharField())
    decision = serializers.CharField(help_text="commit, maybe, not_this_release, or empty when none.")
    flags = serializers.ListField(child=serializers.CharField())
    slips = serializers.IntegerField(help_text="Planned slips, from the kep.yaml history.")
    approvers = serializers.ListField(child=serializers.CharField())
    reviewers = serializers.ListField(child=serializers.CharField())
    prr_approver = serializers.CharField(help_text="GitHub handle of the PRR approver for the stage, or empty.")


class CapacitySerializer(serializers.Serializer):
    person = serializers.CharField(help_text="GitHub handle.")
    role = serializers.ChoiceField(choices=CapacityRole.choices)
    planned = serializers.IntegerField()
    limit = serializers.IntegerField()
    over = serializers.BooleanField()
    basis = serializers.CharField(help_text="How the limit was found.")


class OutcomeSerializer(serializers.Serializer):
    planned_at_enhancements_freeze = serializers.IntegerField(allow_null=True)
    committed = serializers.IntegerField(allow_null=True)
    tracked_at_enhancements_freeze = serializers.IntegerField(allow_null=True)
    shipped = serializers.IntegerField(allow_null=True)


class PlanSerializer(serializers.Serializer):
    release = serializers.CharField()
    sig = serializers.CharField()
    candidates = CandidateSerializer(many=True)
    capacity = CapacitySerializer(many=True)
    outcome = OutcomeSerializer(help_text="null is not known (yet), never zero.")


class DecisionSerializer(serializers.Serializer):
    kep = serializers.IntegerField(source="kep.number")
    decision = serializers.ChoiceField(choices=PlanDecisionKind.choices)
    note = serializers.CharField()
    by = serializers.CharField(source="by.username")
    at = serializers.DateTimeField()
    previous = serializers.CharField(source="from_decision", help_text="The decision this one replaced, or empty.")


class DecisionInputSerializer(serializers.Serializer):
    kep = serializers.IntegerField(min_value=1, max_value=99999, help_text="KEP number: one of the plan's candidates.")
    decision = serializers.ChoiceField(choices=PlanDecisionKind.choices)
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=NOTE_MAX_LENGTH)


def _plan_data(plan) -> dict:
    return {
        "release": plan.version,
        "sig": plan.sig.slug,
        "candidates": [
            {
                "kep": c.kep.number,
                "title": c.kep.title,
                "stage": c.stage,
                "sources": c.sources,
                "decision": c.decision_value,
                "flags": c.flags,
                "slips": c.slips,
                "approvers": c.approvers,
                "reviewers": c.reviewers,
                "prr_approver": c.prr_approver,
            }
            for c in plan.candidates
        ],
        "capacity": [
            {
                "person": row.person,
                "role": row.role,
                "planned": row.planned,
                "limit": row.limit,
                "over": row.over,
                "basis": row.basis,
            }
            for row in plan.capacity
        ],
        "outcome": plan.outcome.as_dict(),
    }


class PlanDecisionThrottle(UserRateThrottle):
    """SIGTRACKER_PLAN_DECISION_RATE decisions per signed-in user (reads are not counted here)."""

    scope = "plan_decisions"

    def get_rate(self):
        return settings.SIGTRACKER_PLAN_DECISION_RATE

    def allow_request(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.cache = caches[settings.SIGTRACKER_API_THROTTLE_CACHE]
        return super().allow_request(request, view)


class MayDecidePlan(PublicReadOnly):
    """Reads as every API read; a decision only from the SIG's leads and curators, refused with what is missing."""

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return super().has_permission(request, view)
        verdict = can_decide_plan(request.user, view.get_sig())
        if not verdict:
            if not (request.user and request.user.is_authenticated):
                raise exceptions.NotAuthenticated(verdict.reason)
            raise exceptions.PermissionDenied(verdict.reason)
        return True


class _PlanMixin:
    def get_version(self) -> str:
        version = self.kwargs["version"]
        if not plan_version_known(version):
            raise Http404(f"No release v{version} is scheduled or named by any kep.yaml.")
        return version

    def get_sig(self) -> Sig:
        if not hasattr(self, "_sig"):
            self._sig = get_object_or_404(Sig, slug=self.kwargs["sig"])
        return self._sig


class PlanView(ConditionalGetMixin, _PlanMixin, APIView):
    """A SIG's plan for a release: candidates (with sources, decision and flags), approver and reviewer load
    against capacity, and the plan against outcome."""

    permission_classes = [PublicReadOnly]

    @extend_schema(responses=PlanSerializer, operation_id="plans_retrieve")
    def get(self, request, version: str, sig: str):
        plan = plan_for(version=self.get_version(), sig=self.get_sig())
        # The body is built in the serializer's shape (the schema test validates it against PlanSerializer);
        # running 60 candidates through DRF's field machinery again would only cost time.
        return Response(_plan_data(plan))


class PlanDecisionsView(ConditionalGetMixin, _PlanMixin, APIView):
    """The decisions on a SIG's plan, newest first (append-only: each change is kept); a lead or curator posts a
    new one."""

    permission_classes = [MayDecidePlan]
    throttle_classes = [AnonymousIpThrottle, PlanDecisionThrottle]
    parser_classes = [JSONParser]

    @extend_schema(responses=DecisionSerializer(many=True), operation_id="plans_decisions_list")
    def get(self, request, version: str, sig: str):
        rows = (
            PlanDecision.objects.filter(release=self.get_version(), sig=self.get_sig())
            .select_related("kep", "by")
            .order_by("-at", "-pk")[:HISTORY_LIMIT]
        )
        return Response(DecisionSerializer(rows, many=True).data)

    @extend_schema(
        request=DecisionInputSerializer,
        responses={201: DecisionSerializer},
        operation_id="plans_decisions_create",
    )
    def post(self, request, version: str, sig: str):
        version, sig = self.get_version(), self.get_sig()
        given = DecisionInputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        number = given.validated_data["kep"]
        kep = Kep.objects.filter(number=number).first()
        plan = plan_for(version=version, sig=sig)
        if kep is None or number not in plan.candidate_numbers:
            raise exceptions.ValidationError(
                {"kep": [f"KEP-{number} is not a candidate of {sig.slug}'s plan for v{version}"]}
            )
        try:
            row = plan_decision_record(
                user=request.user,
                release=version,
                sig=sig,
                kep=kep,
                decision=given.validated_data["decision"],
                note=given.validated_data["note"],
                candidates=plan.candidate_numbers,
            )
        except PlanRefused as exc:
            raise exceptions.PermissionDenied(str(exc)) from None
        except PlanInvalid as exc:
            raise exceptions.ValidationError({"detail": str(exc)}) from None
        return Response(DecisionSerializer(row).data, status=status.HTTP_201_CREATED)
