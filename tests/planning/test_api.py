"""/api/v1/plans/<version>/<sig>/ and its decisions: the shape, who may decide (token and session), refusals and
errors, the history kept, the schema."""

import json

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from api.services import api_token_create
from planning.models import PlanDecision
from tests.factories import KepFactory, PersonFactory

pytestmark = pytest.mark.django_db

PLAN = "/api/v1/plans/1.31/sig-node/"
DECISIONS = PLAN + "decisions/"


def token_for(user) -> dict:
    _, key = api_token_create(user=user, name="plan bot")
    return {"HTTP_AUTHORIZATION": f"Token {key}"}


def post(client, body, **headers):
    return client.post(DECISIONS, json.dumps(body), content_type="application/json", **headers)


def test_plan_shape(client, node):
    data = client.get(PLAN).json()
    assert data["release"] == "1.31" and data["sig"] == "sig-node"
    first = data["candidates"][0]
    assert first == {
        "kep": 91001,
        "title": "Planned",
        "stage": "alpha",
        "sources": ["kep.yaml"],
        "decision": "",
        "flags": [],
        "slips": 0,
        "approvers": ["dawn"],
        "reviewers": ["rev"],
        "prr_approver": "pat",
    }
    withdrawn = next(c for c in data["candidates"] if c["kep"] == 91002)
    assert "withdrawn" in withdrawn["flags"]
    dawn = next(row for row in data["capacity"] if row["person"] == "dawn")
    assert set(dawn) == {"person", "role", "planned", "limit", "over", "basis"}
    assert dawn["role"] == "approver" and dawn["planned"] == 3 and dawn["over"] is False
    assert data["outcome"] == {
        "planned_at_enhancements_freeze": None,
        "committed": None,
        "tracked_at_enhancements_freeze": None,
        "shipped": None,
    }


def test_unknown_plan_is_404(client, node):
    assert client.get("/api/v1/plans/1.99/sig-node/").status_code == 404
    assert client.get("/api/v1/plans/1.31/sig-nope/").status_code == 404


def test_lead_decides_with_a_token_and_the_history_is_kept_newest_first(client, node, users):
    headers = token_for(users["lead"])
    first = post(client, {"kep": 91001, "decision": "maybe", "note": "reviewer?"}, **headers)
    assert first.status_code == 201, first.content
    assert first.json()["decision"] == "maybe" and first.json()["by"] == "lead"
    second = post(client, {"kep": 91001, "decision": "commit"}, **headers)
    assert second.status_code == 201 and second.json()["previous"] == "maybe"
    history = client.get(DECISIONS).json()
    assert [(row["kep"], row["decision"], row["by"]) for row in history] == [
        (91001, "commit", "lead"),
        (91001, "maybe", "lead"),
    ]
    assert set(history[0]) >= {"kep", "decision", "note", "by", "at"}
    assert history[1]["note"] == "reviewer?"
    plan = client.get(PLAN).json()
    assert next(c for c in plan["candidates"] if c["kep"] == 91001)["decision"] == "commit"
    assert plan["outcome"]["committed"] == 1


def test_curator_decides(client, node, users):
    response = post(client, {"kep": 91003, "decision": "not_this_release"}, **token_for(users["curator"]))
    assert response.status_code == 201


@pytest.mark.parametrize("who", ["other_lead", "liaison", "nobody"])
def test_a_valid_token_without_the_role_is_403_naming_it(client, node, users, who):
    response = post(client, {"kep": 91001, "decision": "commit"}, **token_for(users[who]))
    assert response.status_code == 403
    assert response.json()["detail"] == "not a lead of sig-node"
    assert not PlanDecision.objects.exists()


def test_anonymous_is_refused(client, node):
    response = post(client, {"kep": 91001, "decision": "commit"})
    assert response.status_code == 401
    assert "not signed in" in response.json()["detail"] and "private" not in response.json()["detail"]
    assert not PlanDecision.objects.exists()


def test_session_needs_csrf(node, users):
    client = Client(enforce_csrf_checks=True)
    client.force_login(users["lead"])
    response = post(client, {"kep": 91001, "decision": "commit"})
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]
    assert not PlanDecision.objects.exists()


def test_unknown_decision_and_non_candidate_are_400(client, node, users):
    headers = token_for(users["lead"])
    unknown = post(client, {"kep": 91001, "decision": "yes please"}, **headers)
    assert unknown.status_code == 400 and "decision" in unknown.json()
    outsider = post(client, {"kep": 92001, "decision": "commit"}, **headers)
    assert outsider.status_code == 400
    assert outsider.json()["kep"] == ["KEP-92001 is not a candidate of sig-node's plan for v1.31"]
    missing = post(client, {"kep": 4242, "decision": "commit"}, **headers)
    assert missing.status_code == 400
    too_long = post(client, {"kep": 91001, "decision": "commit", "note": "x" * 2001}, **headers)
    assert too_long.status_code == 400 and "note" in too_long.json()
    assert not PlanDecision.objects.exists()


def test_decisions_are_throttled_per_user(client, node, users, settings):
    settings.SIGTRACKER_PLAN_DECISION_RATE = "2/minute"
    caches[settings.SIGTRACKER_API_THROTTLE_CACHE].clear()  # earlier tests' users had the same ids
    headers = token_for(users["lead"])
    codes = [post(client, {"kep": 91001, "decision": "maybe"}, **headers).status_code for _ in range(3)]
    assert codes == [201, 201, 429]
    assert client.get(DECISIONS, **headers).status_code == 200  # reads are not counted


def test_schema_lists_the_plan_endpoints(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content.decode()
    assert "/api/v1/plans/{version}/{sig}/" in schema and "/api/v1/plans/{version}/{sig}/decisions/" in schema
    assert "DecisionInput" in schema


def test_plan_queries_do_not_grow(client, node, users):
    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(PLAN).status_code == 200
        return len(queries)

    few = count()
    for _ in range(15):
        kep = KepFactory(owning_sig=node["sig"], stage="beta", beta_milestone="1.31")
        kep.approvers.add(PersonFactory())
        PlanDecision.objects.create(release="1.31", sig=node["sig"], kep=kep, decision="commit", by=users["lead"])
    assert count() == few
