"""Per-SIG roles in the admin: a wrangler of one SIG cannot see or change another SIG's rows by any admin URL."""

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.urls import reverse

from community.models import Sig
from community.roles import sig_membership_grant
from keps.models import FeatureGate
from tests.factories import (
    AgendaItemFactory,
    FeatureGateFactory,
    KepFactory,
    MeetingFactory,
    MilestoneFactory,
    PersonFactory,
    ReleaseFactory,
    RetroItemFactory,
    RetrospectiveFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def sigs():
    return SigFactory(slug="sig-node"), SigFactory(slug="sig-scheduling")


@pytest.fixture
def rows(sigs):
    node, scheduling = sigs
    release = ReleaseFactory(version="1.24")
    made = {}
    for sig in (node, scheduling):
        kep = KepFactory(owning_sig=sig)
        made[sig.slug] = {
            "trackedenhancement": TrackedEnhancementFactory(release=release, kep=kep, sig=sig),
            "meeting": (meeting := MeetingFactory(sig=sig)),
            "agendaitem": AgendaItemFactory(meeting=meeting),
            "retrospective": (retro := RetrospectiveFactory(release=release, sig=sig)),
            "retroitem": RetroItemFactory(retrospective=retro),
        }
    return made


def _client_for(client, role, sig):
    user = get_user_model().objects.create_user(f"{role}-{sig.slug}", password="x" * 12)
    sig_membership_grant(user=user, sig=sig, role=role)
    client.force_login(user)
    return client


def _url(obj, view, *args):
    meta = obj._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}", args=args or (obj.pk,))


@pytest.mark.parametrize("model", ["trackedenhancement", "meeting", "agendaitem", "retrospective", "retroitem"])
def test_wrangler_cannot_reach_other_sigs_rows(client, sigs, rows, model):
    scheduling = sigs[1]
    client = _client_for(client, "liaison", scheduling)
    foreign = rows["sig-node"][model]
    own = rows["sig-scheduling"][model]

    # follow: the tracked-enhancement list first redirects to its current release (both rows are in it).
    changelist = client.get(reverse(f"admin:{foreign._meta.app_label}_{model}_changelist"), follow=True)
    assert changelist.status_code == 200
    assert changelist.context["cl"].result_count == 1
    assert list(changelist.context["cl"].queryset) == [own]

    # Guessing the id of the other SIG's row: every object URL answers as for a missing row.
    for view in ("change", "delete", "history"):
        response = client.get(_url(foreign, view))
        assert response.status_code in (302, 404), view
        if response.status_code == 302:
            assert str(foreign.pk) not in response.headers.get("Location", "")
    before = type(foreign).objects.get(pk=foreign.pk)
    client.post(_url(foreign, "delete"), {"post": "yes"})
    assert type(foreign).objects.filter(pk=foreign.pk).exists()
    assert type(foreign).objects.get(pk=foreign.pk).pk == before.pk

    # Their own row they may open and change.
    assert client.get(_url(own, "change")).status_code == 200


def test_wrangler_cannot_move_a_row_into_another_sig(client, sigs, rows):
    node, scheduling = sigs
    client = _client_for(client, "liaison", scheduling)
    own = rows["sig-scheduling"]["meeting"]
    response = client.post(
        _url(own, "change"),
        {
            "sig": node.pk,
            "date": own.date.isoformat(),
            "title": "moved",
            "agenda_items-TOTAL_FORMS": "0",
            "agenda_items-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 200  # the form comes back with an error
    own.refresh_from_db()
    assert own.sig == scheduling and own.title != "moved"


def test_wrangler_cannot_manage_releases_but_lead_can(client, sigs):
    node = sigs[0]
    wrangler = _client_for(client, "liaison", node)
    assert wrangler.get(reverse("admin:releases_release_add")).status_code == 403
    lead = _client_for(client, "lead", node)
    assert lead.get(reverse("admin:releases_release_add")).status_code == 200
    assert lead.get(reverse("admin:releases_milestone_add")).status_code == 200


def test_viewer_reads_but_cannot_change(client, sigs, rows):
    node = sigs[0]
    viewer = _client_for(client, "viewer", node)
    own = rows["sig-node"]["meeting"]
    assert viewer.get(reverse("admin:meetings_meeting_changelist")).status_code == 200
    response = viewer.post(_url(own, "change"), {"sig": node.pk, "date": own.date.isoformat(), "title": "x"})
    assert response.status_code == 403


def test_release_inline_only_shows_own_sigs_rows(client, sigs, rows):
    node = sigs[0]
    lead = _client_for(client, "lead", node)
    release = rows["sig-node"]["trackedenhancement"].release
    response = lead.get(_url(release, "change"))
    assert response.status_code == 200
    formset = next(f for f in response.context["inline_admin_formsets"] if f.formset.prefix == "tracked_enhancements")
    assert [form.instance.sig for form in formset.formset.initial_forms] == [node]


def test_admin_changes_are_attributable(client, sigs, rows):
    node = sigs[0]
    client = _client_for(client, "liaison", node)
    row = rows["sig-node"]["trackedenhancement"]
    response = client.post(
        _url(row, "change"),
        {
            "release": row.release.pk,
            "kep": row.kep.pk,
            "sig": node.pk,
            "type": "net_new",
            "target_stage": "beta",
            "status": "at_risk_code",
            "notes": "",
            "created_at_0": row.created_at.strftime("%Y-%m-%d"),
            "created_at_1": row.created_at.strftime("%H:%M:%S"),
            "history-TOTAL_FORMS": "0",
            "history-INITIAL_FORMS": "0",
            "prr_status": row.prr_status,
            "docs_status": row.docs_status,
            "exceptions-TOTAL_FORMS": "0",
            "exceptions-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302
    entry = LogEntry.objects.get(object_id=str(row.pk))
    assert entry.user.username == "liaison-sig-node"
    assert "status" in entry.get_change_message().lower()
    change = row.history.get()
    assert (change.from_status, change.to_status, change.changed_by.username) == (
        "tracked_enhancements",
        "at_risk_code",
        "liaison-sig-node",
    )


def test_role_groups_exist_after_migrate():
    from django.contrib.auth.models import Group

    names = set(Group.objects.values_list("name", flat=True))
    assert {"SIG lead", "Release liaison", "Viewer"} <= names
    assert Group.objects.get(name="Viewer").permissions.filter(codename__startswith="change").count() == 0
    assert Sig.objects.count() == 0


# Milestones. A SIG's own milestone (its soft freeze) belongs to that SIG's leads; release-wide
# milestones to every lead, as releases do.


def _milestone_form(milestone, **changes):
    data = {
        "release": milestone.release.pk,
        "kind": milestone.kind,
        "sig": milestone.sig_id or "",
        "at_0": milestone.at.strftime("%Y-%m-%d"),
        "at_1": milestone.at.strftime("%H:%M:%S"),
        "label": milestone.label,
        "quoted_timezone": "",
        "sends_reminders": "on",
        "source_text": "",
    }
    data.update(changes)
    return data


@pytest.fixture
def milestones(sigs):
    node, scheduling = sigs
    release = ReleaseFactory(version="1.24")
    return {
        "node": MilestoneFactory(release=release, sig=node, label="sig-node soft freeze"),
        "scheduling": MilestoneFactory(release=release, sig=scheduling, label="sig-scheduling soft freeze"),
        "release": MilestoneFactory(release=release, label="Enhancements freeze"),
    }


def test_lead_cannot_relabel_or_delete_another_sigs_milestone(client, sigs, milestones):
    lead = _client_for(client, "lead", sigs[1])
    foreign = milestones["node"]
    lead.post(_url(foreign, "change"), _milestone_form(foreign, label="relabelled"))
    lead.post(_url(foreign, "delete"), {"post": "yes"})
    foreign.refresh_from_db()
    assert foreign.label == "sig-node soft freeze"
    changelist = lead.get(reverse("admin:releases_milestone_changelist"))
    assert set(changelist.context["cl"].queryset) == {milestones["scheduling"], milestones["release"]}


def test_lead_changes_own_and_release_wide_milestones(client, sigs, milestones):
    lead = _client_for(client, "lead", sigs[1])
    for key in ("scheduling", "release"):
        milestone = milestones[key]
        response = lead.post(_url(milestone, "change"), _milestone_form(milestone, label=f"{key} relabelled"))
        assert response.status_code == 302, key
        milestone.refresh_from_db()
        assert milestone.label == f"{key} relabelled"


def test_liaison_cannot_change_milestones_even_of_their_sig(client, sigs, milestones):
    liaison = _client_for(client, "liaison", sigs[0])
    own = milestones["node"]
    assert liaison.post(_url(own, "change"), _milestone_form(own, label="x")).status_code == 403
    own.refresh_from_db()
    assert own.label == "sig-node soft freeze"


def test_lead_who_is_liaison_elsewhere_cannot_change_that_sigs_milestone(client, sigs, milestones):
    node, scheduling = sigs
    user = get_user_model().objects.create_user("both", password="x" * 12)
    sig_membership_grant(user=user, sig=scheduling, role="lead")
    sig_membership_grant(user=user, sig=node, role="liaison")
    client.force_login(user)
    foreign = milestones["node"]
    assert client.post(_url(foreign, "change"), _milestone_form(foreign, label="x")).status_code == 403
    foreign.refresh_from_db()
    assert foreign.label == "sig-node soft freeze"


def test_release_inline_hides_other_sigs_milestones(client, sigs, milestones):
    lead = _client_for(client, "lead", sigs[1])
    response = lead.get(_url(milestones["node"].release, "change"))
    formset = next(f for f in response.context["inline_admin_formsets"] if f.formset.prefix == "milestones")
    assert {form.instance for form in formset.formset.initial_forms} == {
        milestones["scheduling"],
        milestones["release"],
    }


# People and KEPs. A KEP is changed by leads and liaisons of its owning SIG; a person only by
# leads of a SIG the person belongs to (KEPs they author/review/approve, enhancements they are the contact of).


def _person_form(person, **changes):
    data = {"github": person.github, "name": person.name, "email": person.email}
    data.update(changes)
    return data


def test_liaison_cannot_redirect_a_persons_email(client, sigs):
    node, scheduling = sigs
    person = PersonFactory(email="dev@example.com")
    KepFactory(owning_sig=node).authors.add(person)
    for role, sig in (("liaison", scheduling), ("liaison", node), ("lead", scheduling)):
        other = _client_for(client, role, sig)
        assert other.post(_url(person, "change"), _person_form(person, email="evil@example.com")).status_code == 403
        other.post(_url(person, "delete"), {"post": "yes"})
        person.refresh_from_db()
        assert person.email == "dev@example.com", (role, sig.slug)


def test_lead_of_the_persons_sig_changes_them(client, sigs):
    node = sigs[0]
    person = PersonFactory(email="dev@example.com")
    TrackedEnhancementFactory(kep=KepFactory(owning_sig=node), enhancements_contact=person)
    lead = _client_for(client, "lead", node)
    assert lead.post(_url(person, "change"), _person_form(person, email="new@example.com")).status_code == 302
    person.refresh_from_db()
    assert person.email == "new@example.com"


def _kep_form(kep, **changes):
    data = {
        "number": kep.number,
        "title": kep.title,
        "slug": kep.slug,
        "owning_sig": kep.owning_sig_id,
        "status": kep.status,
        "stage": kep.stage,
        "feature_gates-TOTAL_FORMS": "0",
        "feature_gates-INITIAL_FORMS": "0",
        "prr_approvals-TOTAL_FORMS": "0",
        "prr_approvals-INITIAL_FORMS": "0",
    }
    data.update(changes)
    return data


def test_kep_is_changed_only_by_its_owning_sig(client, sigs):
    node, scheduling = sigs
    kep = KepFactory(owning_sig=node, title="Node KEP")
    gate = FeatureGateFactory(kep=kep, name="NodeGate")
    foreign = _client_for(client, "liaison", scheduling)
    assert foreign.get(_url(kep, "change")).status_code == 200  # KEPs are public: readable
    assert foreign.post(_url(kep, "change"), _kep_form(kep, title="hijacked")).status_code == 403
    foreign.post(_url(gate, "delete"), {"post": "yes"})
    kep.refresh_from_db()
    assert kep.title == "Node KEP" and FeatureGate.objects.filter(pk=gate.pk).exists()

    own = _client_for(client, "liaison", node)
    response = own.post(_url(kep, "change"), _kep_form(kep, title="Node KEP, revised"))
    assert response.status_code == 302
    kep.refresh_from_db()
    assert kep.title == "Node KEP, revised"
