"""The plan pages: pick a SIG, a SIG's plan for a release (with its decision and proposal forms, Markdown, issue
commands and CSV), and a SIG's plans across releases. Thin: each calls one selector or service."""

from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from community.models import Sig
from core.charts import Series, line_bar_chart
from keps.models import Kep

from .choices import PlanDecisionKind
from .exports import issue_commands, plan_csv, plan_markdown
from .forms import DecisionForm, ProposalForm
from .policy import can_decide_plan, can_propose
from .selectors import plan_for, plan_version_known
from .selectors_outcome import sig_outcomes
from .services import PlanInvalid, PlanRefused, plan_candidate_propose, plan_decision_record


def _version(version: str) -> str:
    if not plan_version_known(version):
        raise Http404(f"No release v{version} is scheduled or named by any kep.yaml.")
    return version


def _refused(request, reason: str, *, sig: Sig, version: str):
    return render(request, "planning/refused.html", {"reason": reason, "sig": sig, "version": version}, status=403)


def plan_index(request, version: str):
    """/releases/<version>/plan/: every SIG, with how many of its KEPs kep.yaml names for the release today."""
    version = _version(version)
    named = Q(owned_keps__latest_milestone=version)
    for stage in ("alpha", "beta", "stable", "deprecated"):
        named |= Q(owned_keps__stage=stage, **{f"owned_keps__{stage}_milestone": version})
    sigs = Sig.objects.annotate(named=Count("owned_keps", filter=named, distinct=True)).order_by("-named", "slug")
    return render(request, "planning/plan_index.html", {"version": version, "sigs": sigs})


def sig_plan(request, version: str, sig: str):
    """/releases/<version>/plan/<sig>/: the SIG's plan."""
    version = _version(version)
    sig = get_object_or_404(Sig, slug=sig)
    plan = plan_for(version=version, sig=sig)
    committed = [(c, issue_commands(version=version, stage=c.stage)) for c in plan.committed]
    context = {
        "plan": plan,
        "version": version,
        "sig": sig,
        "may_decide": can_decide_plan(request.user, sig),
        "may_propose": can_propose(request.user),
        "decision_choices": PlanDecisionKind.choices,
        "proposal_form": ProposalForm(),
        "markdown": plan_markdown(plan),
        "committed": committed,
        "commands_text": "\n\n".join(f"KEP-{c.kep.number}:\n" + "\n".join(commands) for c, commands in committed),
    }
    return render(request, "planning/sig_plan.html", context)


def sig_plan_csv(request, version: str, sig: str):
    version = _version(version)
    sig = get_object_or_404(Sig, slug=sig)
    response = HttpResponse(plan_csv(plan_for(version=version, sig=sig)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{sig.slug}-plan-v{version}.csv"'
    return response


@require_POST
def decide(request, version: str, sig: str):
    """A lead's (or curator's) decision on one candidate; 403 naming what is missing for anyone else."""
    version = _version(version)
    sig = get_object_or_404(Sig, slug=sig)
    verdict = can_decide_plan(request.user, sig)
    if not verdict:
        return _refused(request, verdict.reason, sig=sig, version=version)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return redirect("planning:sig_plan", version=version, sig=sig.slug)
    plan = plan_for(version=version, sig=sig)
    try:
        kep = _kep_named(form)
        plan_decision_record(
            user=request.user,
            release=version,
            sig=sig,
            kep=kep,
            decision=form.cleaned_data["decision"],
            note=form.cleaned_data["note"],
            candidates=plan.candidate_numbers,
        )
    except PlanRefused as exc:
        return _refused(request, str(exc), sig=sig, version=version)
    except PlanInvalid as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"KEP-{kep.number}: {PlanDecisionKind(form.cleaned_data['decision']).label}.")
    return redirect("planning:sig_plan", version=version, sig=sig.slug)


def _kep_named(form) -> Kep:
    """The KEP a decision or proposal form names; PlanInvalid (shown to the person) when sigtracker has none."""
    kep = Kep.objects.filter(number=form.cleaned_data["kep"]).first()
    if kep is None:
        raise PlanInvalid(f"kep: no KEP-{form.cleaned_data['kep']} in sigtracker")
    return kep


@require_POST
def propose(request, version: str, sig: str):
    """Anyone signed in proposes a KEP for the plan."""
    version = _version(version)
    sig = get_object_or_404(Sig, slug=sig)
    verdict = can_propose(request.user)
    if not verdict:
        return _refused(request, verdict.reason, sig=sig, version=version)
    form = ProposalForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return redirect("planning:sig_plan", version=version, sig=sig.slug)
    try:
        kep = _kep_named(form)
        plan_candidate_propose(
            user=request.user,
            release=version,
            sig=sig,
            kep=kep,
            stage=form.cleaned_data["stage"],
            note=form.cleaned_data["note"],
        )
    except PlanRefused as exc:
        return _refused(request, str(exc), sig=sig, version=version)
    except PlanInvalid as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"KEP-{kep.number} proposed.")
    return redirect("planning:sig_plan", version=version, sig=sig.slug)


def _form_errors(form) -> str:
    return "; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items())


def sig_plans(request, slug: str):
    """/sigs/<slug>/plans/: what the SIG planned and what shipped, release by release, with a chart."""
    sig = get_object_or_404(Sig, slug=slug)
    outcomes = sig_outcomes(sig=sig, now=timezone.now())
    shown = [o for o in outcomes if o.known]
    chart = line_bar_chart(
        title=f"{sig.slug}: planned at enhancements freeze, tracked and shipped per release",
        labels=[f"v{o.version}" for o in shown],
        series=[
            Series(
                "planned at enhancements freeze (kep.yaml)", [o.planned_at_enhancements_freeze for o in shown], "bar"
            ),
            Series("tracked at enhancements freeze", [o.tracked_at_enhancements_freeze for o in shown], "bar"),
            Series("shipped", [o.shipped for o in shown], "bar"),
            Series("committed here", [o.committed for o in shown], "line"),
        ],
    )
    return render(request, "planning/sig_plans.html", {"sig": sig, "outcomes": outcomes, "chart": chart})
