"""The plan pages: reading, deciding (lead, another SIG's lead, a signed-in person without a role, anonymous),
proposing, history, exports, the release page's line and the SIG's plans page."""

import csv
import io

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from planning.models import PlanCandidate, PlanDecision
from tests.factories import KepFactory, PersonFactory, PrrApprovalFactory

pytestmark = pytest.mark.django_db

PAGE = "/releases/1.31/plan/sig-node/"
DECIDE = PAGE + "decide/"
PROPOSE = PAGE + "propose/"


def csrf_client(user=None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    return client


def post_with_csrf(client: Client, url: str, data: dict):
    client.get(PAGE)
    if "csrftoken" not in client.cookies:  # a page without a form sets no token: bring a valid one of our own
        client.cookies["csrftoken"] = "a" * 32
    return client.post(url, {**data, "csrfmiddlewaretoken": client.cookies["csrftoken"].value})


def test_plan_page_lists_candidates_flags_and_load(client, node):
    page = client.get(PAGE).content.decode()
    assert 'id="kep-91001"' in page and 'id="kep-91002"' in page and 'id="kep-92001"' not in page
    row = page.split('id="kep-91002"')[1].split("</tr>")[0]
    assert "withdrawn" in row and "no-approver" in row
    assert "dawn" in page.split('id="plan-capacity"')[1]
    assert "at least 3" in page.split('id="plan-capacity"')[1]
    assert "Only sig-node's leads and curators decide" in page
    assert 'action="/releases/1.31/plan/sig-node/decide/"' not in page  # no form for anonymous


def test_index_lists_sigs_with_their_kep_yaml_counts(client, node):
    page = client.get("/releases/1.31/plan/").content.decode()
    assert '<a href="/releases/1.31/plan/sig-node/">sig-node</a></td><td>2</td>' in page
    assert '<a href="/releases/1.31/plan/sig-apps/">sig-apps</a></td><td>1</td>' in page


def test_unknown_version_and_sig_are_404(client, node):
    assert client.get("/releases/1.99/plan/sig-node/").status_code == 404
    assert client.get("/releases/banana/plan/").status_code == 404
    assert client.get("/releases/1.31/plan/sig-nope/").status_code == 404


def test_lead_decides_and_every_change_is_kept(node, users):
    client = csrf_client(users["lead"])
    response = post_with_csrf(client, DECIDE, {"kep": 91001, "decision": "maybe", "note": "needs a reviewer"})
    assert response.status_code == 302
    post_with_csrf(client, DECIDE, {"kep": 91001, "decision": "commit", "note": "<b>go</b>"})
    rows = list(PlanDecision.objects.order_by("at", "pk").values_list("from_decision", "decision", "by__username"))
    assert rows == [("", "maybe", "lead"), ("maybe", "commit", "lead")]
    page = client.get(PAGE).content.decode()
    row = page.split('id="kep-91001"')[1].split("</tr>")[0]
    assert "<strong>Commit</strong>" in row and "&lt;b&gt;go&lt;/b&gt;" in row and "<b>go</b>" not in row
    commands = page.split('id="issue-commands"')[1].split("</textarea>")[0]
    assert "/milestone v1.31" in commands and "/label lead-opted-in" in commands and "/label stage/alpha" in commands


def test_curator_decides(node, users):
    response = post_with_csrf(csrf_client(users["curator"]), DECIDE, {"kep": 91003, "decision": "not_this_release"})
    assert response.status_code == 302
    assert PlanDecision.objects.get().by == users["curator"]


@pytest.mark.parametrize(
    ("who", "reason"),
    [
        ("other_lead", "not a lead of sig-node"),
        ("liaison", "not a lead of sig-node"),
        ("nobody", "not a lead of sig-node"),
        (None, "not signed in"),
    ],
)
def test_others_are_refused_with_what_is_missing(node, users, who, reason):
    client = csrf_client(users[who] if who else None)
    response = post_with_csrf(client, DECIDE, {"kep": 91001, "decision": "commit"})
    assert response.status_code == 403
    assert reason in response.content.decode()
    assert "private" not in response.content.decode()
    assert not PlanDecision.objects.exists()


def test_decision_without_csrf_token_is_refused(node, users):
    client = csrf_client(users["lead"])
    assert client.post(DECIDE, {"kep": 91001, "decision": "commit"}).status_code == 403
    assert not PlanDecision.objects.exists()


def test_decision_on_a_kep_that_is_not_a_candidate_is_refused(node, users):
    client = csrf_client(users["lead"])
    response = post_with_csrf(client, DECIDE, {"kep": 92001, "decision": "commit"})
    assert response.status_code == 302
    assert not PlanDecision.objects.exists()
    assert "KEP-92001 is not a candidate" in client.get(PAGE).content.decode()


def test_any_signed_in_person_proposes_and_anonymous_cannot(node, users):
    client = csrf_client(users["nobody"])
    response = post_with_csrf(client, PROPOSE, {"kep": 91005, "stage": "beta", "note": "we have time"})
    assert response.status_code == 302
    proposal = PlanCandidate.objects.get()
    assert (proposal.kep.number, proposal.stage, proposal.proposed_by.username) == (91005, "beta", "nobody")
    page = client.get(PAGE).content.decode()
    assert "proposed" in page.split('id="kep-91005"')[1].split("</tr>")[0]
    anonymous = post_with_csrf(csrf_client(), PROPOSE, {"kep": 91001, "stage": "beta"})
    assert anonymous.status_code == 403 and "sign in" in anonymous.content.decode()


def test_proposal_of_an_unknown_kep_says_so(node, users):
    client = csrf_client(users["nobody"])
    post_with_csrf(client, PROPOSE, {"kep": 9999, "stage": "beta"})
    assert "no KEP-9999 in sigtracker" in client.get(PAGE).content.decode()


def test_csv_and_markdown(client, node, users):
    PlanDecision.objects.create(
        release="1.31", sig=node["sig"], kep=node["keps"][0], decision="commit", note="a | b <x>", by=users["lead"]
    )
    rows = list(csv.DictReader(io.StringIO(client.get(PAGE + "plan.csv").content.decode())))
    assert [r["kep"] for r in rows] == ["91001", "91003", "91004", "91002"]
    assert rows[0]["decision"] == "commit" and rows[0]["prr_approver"] == "pat"
    assert rows[3]["flags"] == "withdrawn no-prr-approver no-approver"
    page = client.get(PAGE).content.decode()
    markdown = page.split('id="plan-markdown"')[1].split("</textarea>")[0]
    assert "| commit |" in markdown and "a \\| b &amp;lt;x&amp;gt;" in markdown


def test_release_page_line_and_sig_plans_page(client, node, users):
    PlanDecision.objects.create(
        release="1.31", sig=node["sig"], kep=node["keps"][0], decision="commit", by=users["lead"]
    )
    page = client.get("/releases/1.31/").content.decode()
    line = page.split('id="release-plan-line"')[1].split("</p>")[0]
    assert "1 KEP committed by 1 SIG here" in line and 'href="/releases/1.31/plan/"' in line
    plans = client.get("/sigs/sig-node/plans/").content.decode()
    assert "<svg" in plans
    row = plans.split('href="/releases/1.31/plan/sig-node/">v1.31</a>')[1].split("</tr>")[0]
    assert "<td>1</td>" in row  # committed


def test_plan_page_queries_do_not_grow_with_candidates(client, node, users):
    def count():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(PAGE).status_code == 200
        return len(queries)

    few = count()
    for _ in range(20):
        kep = KepFactory(owning_sig=node["sig"], stage="beta", beta_milestone="1.31")
        kep.approvers.add(PersonFactory())
        kep.reviewers.add(PersonFactory())
        PrrApprovalFactory(kep=kep, stage="beta")
        PlanDecision.objects.create(release="1.31", sig=node["sig"], kep=kep, decision="commit", by=users["lead"])
        stuck = KepFactory(owning_sig=node["sig"], stage="beta", beta_milestone="1.20")  # perma-beta
        stuck.approvers.add(PersonFactory())
    assert count() == few
