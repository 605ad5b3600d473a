"""generate_synthetic: sizes at scale 1, determinism, refusal on a non-empty database, valid rows."""

import datetime
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import Count, F, Max, Min, Q

from community.models import Person, Sig
from devdata.synthetic import SyntheticDataError, reference_instant, synthetic_data_generate
from keps.models import DesignGroup, FeatureGate, Kep, PrrApproval
from meetings.models import AgendaItem, Meeting
from releases.choices import EnhancementStatus, MilestoneKind, ReleaseState
from releases.models import EnhancementStatusChange, Milestone, Release, TrackedEnhancement, parse_version
from releases.rules import FINAL_STATUSES
from retros.choices import RetroCategory
from retros.models import RetroItem, Retrospective
from tests.factories import KepFactory, PersonFactory, SigFactory

pytestmark = pytest.mark.django_db

#: Every model the generator writes, parents before children (for the snapshot's foreign keys).
MODELS = [
    Sig,
    Person,
    Release,
    Milestone,
    Kep,
    FeatureGate,
    PrrApproval,
    DesignGroup,
    TrackedEnhancement,
    EnhancementStatusChange,
    Meeting,
    AgendaItem,
    Retrospective,
    RetroItem,
]


def generate(*args, verbosity=0):
    out = io.StringIO()
    call_command("generate_synthetic", *args, verbosity=verbosity, stdout=out)
    return out.getvalue()


def snapshot() -> dict:
    """All generated data without primary keys: foreign keys and many-to-many links are replaced by the
    referenced row's own values, so two runs compare equal exactly when they wrote the same data."""
    keys: dict = {}
    result = {}
    for model in MODELS:
        rows = []
        for obj in model.objects.all():
            values = []
            for f in model._meta.concrete_fields:
                if f.primary_key:
                    continue
                value = getattr(obj, f.attname)
                if f.is_relation and value is not None:
                    value = keys[(f.related_model, value)]
                elif isinstance(value, dict | list):
                    value = json.dumps(value, sort_keys=True)
                values.append(value)
            keys[(model, obj.pk)] = repr(values)
            rows.append(repr(values))
        result[model._meta.label] = sorted(rows)
        for m2m in model._meta.many_to_many:
            through = m2m.remote_field.through
            source, target = m2m.m2m_field_name() + "_id", m2m.m2m_reverse_field_name() + "_id"
            links = through.objects.values_list(source, target)
            result[f"{model._meta.label}.{m2m.name}"] = sorted(
                (keys[(model, a)], keys[(m2m.related_model, b)]) for a, b in links
            )
    return result


def wipe():
    """Delete everything the generator wrote, children first."""
    for model in (Meeting, Release, DesignGroup, Kep, Person, Sig):
        model.objects.all().delete()


def test_scale_1_has_sig_nodes_history_sizes():
    output = generate("--scale", "1", "--seed", "1", verbosity=1)

    assert Kep.objects.count() == 130
    assert Release.objects.count() == 16
    assert Meeting.objects.count() == 500
    assert AgendaItem.objects.count() == 3000
    assert TrackedEnhancement.objects.count() == 400
    assert RetroItem.objects.count() == 50
    assert set(Kep.objects.values_list("owning_sig__slug", flat=True)) == {"sig-node"}
    # The summary lists counts per model.
    assert "keps.Kep" in output and "130" in output and "meetings.AgendaItem" in output and "3,000" in output
    # Realistic detail, not bare rows.
    assert Person.objects.count() >= 40
    assert FeatureGate.objects.exclude(components=[]).count() >= 100
    assert PrrApproval.objects.count() >= 130
    assert 3 <= DesignGroup.objects.count() <= 10
    assert AgendaItem.objects.filter(keps__isnull=False).distinct().count() >= 1500
    assert AgendaItem.objects.filter(body__contains="https://github.com/kubernetes/kubernetes/pull/").count() >= 2000
    assert Meeting.objects.filter(cancelled=False, open_prs__isnull=False).count() >= 450
    assert EnhancementStatusChange.objects.count() >= 4 * 400
    categories = set(RetroItem.objects.values_list("category", flat=True))
    # "To discuss" exists only on live boards; the generated history has the notes' three lists.
    assert categories == set(RetroCategory.values) - {RetroCategory.DISCUSS}
    assert not RetroItem.objects.filter(category=RetroCategory.ACTION_ITEM, owner__isnull=True).exists()
    # Perma-betas: KEPs still in beta six or more releases after their beta milestone.
    perma = [
        kep
        for kep in Kep.objects.filter(stage="beta").exclude(beta_milestone="")
        if parse_version(kep.beta_milestone)[1] <= 34 - 6
    ]
    assert len(perma) >= 5


def test_releases_milestones_and_states():
    generate("--scale", "0.2", "--seed", "4")
    reference = reference_instant(4)
    versions = list(Release.objects.values_list("version", "major", "minor", "state"))
    assert [v for v, *_ in versions] == [f"1.{n}" for n in range(20, 36)]
    assert all(parse_version(v) == (major, minor) for v, major, minor, _ in versions)
    states = [state for *_, state in versions]
    assert states == [ReleaseState.RELEASED] * 14 + [ReleaseState.ACTIVE, ReleaseState.PLANNING]
    for release in Release.objects.all():
        milestones = {m.kind: m for m in release.milestones.all()}
        assert set(milestones) == set(MilestoneKind.values) - {MilestoneKind.OTHER}
        order = [
            MilestoneKind.CYCLE_START,
            MilestoneKind.PRR_FREEZE,
            MilestoneKind.ENHANCEMENTS_FREEZE,
            MilestoneKind.SIG_SOFT_FREEZE,
            MilestoneKind.CODE_FREEZE,
            MilestoneKind.TEST_FREEZE,
            MilestoneKind.DOCS_FREEZE,
            MilestoneKind.RELEASE,
            MilestoneKind.RETROSPECTIVE,
        ]
        instants = [milestones[kind].at for kind in order]
        assert instants == sorted(instants), release.version
        assert all(m.at.tzinfo is not None for m in milestones.values())
        if release.state == ReleaseState.RELEASED:
            assert milestones[MilestoneKind.RETROSPECTIVE].at < reference
        if release.state == ReleaseState.ACTIVE:
            assert (
                milestones[MilestoneKind.ENHANCEMENTS_FREEZE].at < reference < milestones[MilestoneKind.CODE_FREEZE].at
            )
        if release.state == ReleaseState.PLANNING:
            assert reference < milestones[MilestoneKind.CYCLE_START].at
    # Freezes quoted in Pacific time land an hour apart in UTC between PDT and PST.
    pacific_hours = {
        m.at.hour for m in Milestone.objects.filter(kind=MilestoneKind.ENHANCEMENTS_FREEZE, quoted_timezone="PT")
    }
    assert pacific_hours == {1, 2}


def test_status_histories_reproduce_the_board():
    generate("--scale", "1", "--seed", "2")
    reference = reference_instant(2)
    rows = TrackedEnhancement.objects.select_related("release").prefetch_related("history")
    release_day = dict(Milestone.objects.filter(kind=MilestoneKind.RELEASE).values_list("release_id", "at"))
    for row in rows:
        history = list(row.history.all())
        assert history, row
        assert [h.changed_at for h in history] == sorted(h.changed_at for h in history)
        assert history[0].from_status == ""
        assert all(a.to_status == b.from_status for a, b in zip(history, history[1:], strict=False))
        assert row.status == history[-1].to_status
        assert row.updated_at == history[-1].changed_at
        if row.release.state == ReleaseState.RELEASED:
            assert row.status in FINAL_STATUSES
            if row.status == EnhancementStatus.DONE:
                # Shipped by release day: the board as it stood at the release milestone shows it done.
                assert history[-1].changed_at <= release_day[row.release_id]
        else:
            assert history[-1].changed_at <= reference
            assert row.status != EnhancementStatus.DONE
    # The merge rate falls to a low at 1.24 and then recovers.
    rates = {
        r.version: r.done / r.tracked
        for r in Release.objects.annotate(
            tracked=Count("tracked_enhancements"),
            done=Count("tracked_enhancements", filter=Q(tracked_enhancements__status=EnhancementStatus.DONE)),
        ).filter(tracked__gt=0, state=ReleaseState.RELEASED)
    }
    assert rates["1.24"] == min(rates.values())
    assert rates["1.22"] > rates["1.24"] + 0.15 and rates["1.33"] > rates["1.24"] + 0.3
    # Slips: KEPs removed or deferred, several of them more than once.
    slipped = (
        TrackedEnhancement.objects.filter(status__in=[EnhancementStatus.REMOVED, EnhancementStatus.DEFERRED])
        .values("kep")
        .annotate(n=Count("id"))
    )
    assert sum(1 for s in slipped if s["n"] >= 2) >= 5
    # Old releases keep only a recorded retro tally.
    assert not TrackedEnhancement.objects.filter(release__version__in=["1.20", "1.21"]).exists()
    assert Retrospective.objects.filter(recorded_tracked__isnull=False).count() == 2


def test_same_scale_and_seed_give_the_same_rows_and_another_seed_does_not():
    generate("--scale", "0.5", "--seed", "7")
    first = snapshot()
    wipe()
    assert not Kep.objects.exists()
    generate("--scale", "0.5", "--seed", "7")
    assert snapshot() == first
    wipe()
    generate("--scale", "0.5", "--seed", "8")
    assert snapshot() != first


def test_larger_scales_spread_over_more_sigs():
    result = synthetic_data_generate(scale=1.6, seed=1)
    assert result["sigs"] == ["sig-node", "sig-scheduling"]
    assert Kep.objects.count() == 208 and Release.objects.count() == 16
    per_sig = dict(Kep.objects.values_list("owning_sig__slug").annotate(n=Count("id")))
    assert per_sig == {"sig-node": 104, "sig-scheduling": 104}
    assert Meeting.objects.filter(sig__slug="sig-scheduling").count() == 400
    assert result["counts"]["meetings.AgendaItem"] == AgendaItem.objects.count() == 4800
    assert TrackedEnhancement.objects.filter(sig__slug="sig-scheduling").count() == 320
    assert TrackedEnhancement.objects.exclude(sig=F("kep__owning_sig")).count() == 0
    # Releases stay global: one row per version whatever the scale.
    assert Release.objects.aggregate(Min("version"), Max("version")) == {"version__min": "1.20", "version__max": "1.35"}


def test_rows_pass_model_validation():
    """A sample of every model passes full_clean (choices, lengths, URLs and constraints, which SQLite
    would not all enforce on insert)."""
    generate("--scale", "0.3", "--seed", "5")
    for model in MODELS:
        rows = list(model.objects.order_by("pk")[:6]) + list(model.objects.order_by("-pk")[:6])
        assert rows, model
        for obj in rows:
            obj.full_clean()
    assert not Meeting.objects.filter(date__gt=reference_instant(5).date()).exists()
    assert Kep.objects.filter(creation_date__gt=datetime.date(2025, 9, 1)).count() == 0


def test_reuses_sigs_and_avoids_handles_already_there():
    """SIGs and people alone do not make a database "non-empty": the run keeps them and adds its own."""
    SigFactory(slug="sig-node", name="SIG Node (curated)")
    PersonFactory(github="someone-else")
    generate("--scale", "0.1", "--seed", "1")
    assert Sig.objects.get(slug="sig-node").name == "SIG Node (curated)"
    assert Sig.objects.count() == 10
    assert Kep.objects.filter(owning_sig__slug="sig-node").count() == 13
    assert Person.objects.filter(github__iexact="someone-else").count() == 1


def test_refuses_a_database_that_already_holds_data():
    KepFactory(number=42)
    with pytest.raises(CommandError, match="not empty") as exc_info:
        generate("--scale", "1")
    assert exc_info.value.returncode == 2
    assert Kep.objects.count() == 1
    assert not Release.objects.exists() and not Meeting.objects.exists() and not Person.objects.exists()


@pytest.mark.parametrize("scale", ["0", "-1", "abc", "1e9"])
def test_rejects_a_bad_scale(scale):
    with pytest.raises((CommandError, SyntheticDataError), match="scale") as exc_info:
        generate("--scale", scale)
    if isinstance(exc_info.value, CommandError):
        assert exc_info.value.returncode == 2
    assert not Kep.objects.exists()


def test_dry_run_counts_but_writes_nothing():
    output = generate("--scale", "0.1", "--seed", "1", "--dry-run", verbosity=1)
    assert output.startswith("Dry run (nothing written)")
    assert "keps.Kep " in output and " 13" in output
    assert not Kep.objects.exists() and not Sig.objects.exists() and not Person.objects.exists()


def test_quiet_at_verbosity_0():
    assert generate("--scale", "0.1", verbosity=0) == ""
    assert Kep.objects.count() == 13
