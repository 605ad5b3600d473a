"""Plans in the admin: a lead adds decisions (kept, never changed), a curator sets capacity limits."""

import pytest

from planning.choices import CapacityRole
from planning.models import CapacityLimit, PlanDecision
from planning.selectors import plan_for

pytestmark = pytest.mark.django_db


def test_lead_adds_a_decision_in_the_admin_and_it_cannot_be_changed(client, node, users):
    client.force_login(users["lead"])
    kep = node["keps"][0]
    for decision in ("maybe", "commit"):
        response = client.post(
            "/admin/planning/plandecision/add/",
            {"release": "1.31", "sig": node["sig"].pk, "kep": kep.pk, "decision": decision, "note": "admin"},
        )
        assert response.status_code == 302, response.content.decode()[:2000]
    rows = list(PlanDecision.objects.order_by("at", "pk").values_list("from_decision", "decision", "by__username"))
    assert rows == [("", "maybe", "lead"), ("maybe", "commit", "lead")]
    row = PlanDecision.objects.order_by("pk").first()
    page = client.get(f"/admin/planning/plandecision/{row.pk}/change/")
    assert page.status_code == 200 and b'name="decision"' not in page.content  # read-only
    assert client.post(f"/admin/planning/plandecision/{row.pk}/delete/", {"post": "yes"}).status_code == 403
    assert PlanDecision.objects.count() == 2


def test_lead_of_another_sig_cannot_add_a_decision_for_sig_node(client, node, users):
    client.force_login(users["other_lead"])
    response = client.post(
        "/admin/planning/plandecision/add/",
        {"release": "1.31", "sig": node["sig"].pk, "kep": node["keps"][0].pk, "decision": "commit"},
    )
    assert response.status_code in (200, 403)  # the SIG is not among the choices offered
    assert not PlanDecision.objects.exists()


def test_curator_sets_a_capacity_limit_and_the_plan_uses_it(client, node, users):
    client.force_login(users["curator"])
    response = client.post(
        "/admin/planning/capacitylimit/add/",
        {"person": node["dawn"].pk, "role": CapacityRole.APPROVER, "limit": 2, "note": "on leave half the cycle"},
    )
    assert response.status_code == 302
    limit = CapacityLimit.objects.get()
    assert limit.set_by == users["curator"]
    row = next(r for r in plan_for(version="1.31", sig=node["sig"]).capacity if r.person == "dawn")
    assert (row.planned, row.limit, row.over) == (3, 2, True)
    assert row.basis.endswith(": on leave half the cycle")


def test_a_lead_cannot_set_capacity_limits(client, node, users):
    client.force_login(users["lead"])
    assert client.get("/admin/planning/capacitylimit/").status_code == 403


def test_limit_out_of_range_is_refused_with_its_message(client, node, users):
    client.force_login(users["curator"])
    response = client.post(
        "/admin/planning/capacitylimit/add/", {"person": node["dawn"].pk, "role": CapacityRole.APPROVER, "limit": 0}
    )
    assert response.status_code == 200
    assert "Limit: between 1 and 100 KEPs." in response.content.decode()


def test_admin_refuses_a_decision_on_a_kep_that_is_not_a_candidate(client, node, users):
    client.force_login(users["lead"])
    other = node["keps"][4]  # KEP-91005 plans 1.32
    response = client.post(
        "/admin/planning/plandecision/add/",
        {"release": "1.31", "sig": node["sig"].pk, "kep": other.pk, "decision": "commit"},
    )
    assert response.status_code == 200
    assert "KEP-91005 is not a candidate of sig-node&#x27;s plan for v1.31." in response.content.decode()
    assert not PlanDecision.objects.exists()
