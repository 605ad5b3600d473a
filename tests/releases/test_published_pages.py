"""What import_releases brings shows on the pages and in the API alike: exception requests (release and KEP pages,
/api/v1/exception-requests/ with the same filters), the release team (release page, API, /me/, reminder signature)."""

import io

import pytest
from django.core import mail
from django.core.management import call_command

from people.models import Profile
from releases.choices import EnhancementStatus as S
from releases.choices import ExceptionDecision, Freeze, MilestoneKind, ReleaseRoleKind
from releases.models import EnhancementException, ReleaseTeamMember
from tests.digest_scene import DAY, FREEZE, NODE_LIST, WEEK_BEFORE
from tests.digest_scene import tracked_kep as _kep
from tests.factories import MilestoneFactory, PersonFactory, ReleaseFactory, SigFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(upstream_dir):
    call_command("import_keps", str(upstream_dir / "enhancements" / "keps"), verbosity=0)
    for version in ("1.16", "1.25", "1.35"):
        folder = upstream_dir / "sig-release" / "releases" / f"release-{version}"
        call_command("import_releases", str(folder), verbosity=0, stdout=io.StringIO(), stderr=io.StringIO())


def _api(client, query):
    rows, url = [], f"/api/v1/exception-requests/?{query}"
    while url:
        answer = client.get(url, HTTP_ACCEPT="application/json")
        assert answer.status_code == 200, answer.content[:300]
        rows += answer.json()["results"]
        url = answer.json()["next"]
    return rows


def test_release_page_counts_by_freeze_and_decision_match_the_api(client, imported):
    page = client.get("/releases/1.25/")
    assert page.status_code == 200
    counts = {row.freeze: {d: n for d, _, n in row.counts} for row in page.context["exception_counts"]}
    assert counts[Freeze.CODE][ExceptionDecision.APPROVED] == 7
    assert counts[Freeze.CODE][ExceptionDecision.REJECTED] == 5
    assert counts[Freeze.ENHANCEMENTS][ExceptionDecision.APPROVED] == 1
    for freeze, by_decision in counts.items():
        for decision, n in by_decision.items():
            assert len(_api(client, f"release=1.25&freeze={freeze}&decision={decision}")) == n
    html = page.content.decode()
    assert 'id="exceptions"' in html and "Exception requests" in html
    # Every request is linked: its KEP and its thread.
    assert 'href="/keps/1287/"' in html and "https://groups.google.com/g/kubernetes-sig-release/c/ztEx9R1M7qo" in html


def test_kep_page_lists_its_requests_of_every_release_as_the_api_does(client, imported):
    page = client.get("/keps/1287/")
    requests = page.context["exception_requests"]
    assert [(r.release.version, r.decision) for r in requests] == [("1.25", ExceptionDecision.REJECTED)]
    assert [row["id"] for row in _api(client, "kep=1287")] == [r.pk for r in requests]
    assert "Exception requests" in page.content.decode()


def test_api_lists_kep_less_requests_and_filters_by_each_field(client):
    release = ReleaseFactory(version="1.17")
    EnhancementException.objects.create(
        release=release,
        issue_url="https://github.com/kubernetes/kubernetes/issues/85000",
        freeze=Freeze.CODE,
        decision=ExceptionDecision.APPROVED,
        decided_at=release_time(),
        requested_at=release_time(),
    )
    (row,) = _api(client, "release=1.17")
    assert row["kep"] is None and row["issue_url"].endswith("/85000") and row["source"] == "admin"
    assert _api(client, "release=1.17&decision=rejected") == []
    assert _api(client, "release=1.17&freeze=docs") == []
    assert client.get("/api/v1/exception-requests/?freeze=nonsense").status_code == 400


def release_time():
    import datetime

    return datetime.datetime(2019, 11, 14, tzinfo=datetime.UTC)


def test_schema_names_the_endpoint_and_its_filters(client):
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/v1/exception-requests/"]["get"]
    assert {"release", "kep", "freeze", "decision"} <= {p["name"] for p in operation["parameters"]}
    assert "release_team" in schema["components"]["schemas"]["Release"]["properties"]
    assert "source" in schema["components"]["schemas"]["TrackedEnhancement"]["properties"]


def test_release_team_on_the_page_and_in_the_api(client, imported):
    html = client.get("/releases/1.35/").content.decode()
    assert "Release team" in html and "@rayandas" in html and "@jmickey" in html
    release = client.get("/api/v1/releases/1.35/", HTTP_ACCEPT="application/json").json()
    enhancements = [m for m in release["release_team"] if m["role"] == ReleaseRoleKind.ENHANCEMENTS]
    assert enhancements[0] == {
        "role": "enhancements",
        "role_label": "Enhancements",
        "is_shadow": False,
        "github": "rayandas",
        "name": "Rayan Das",
    }
    assert len(enhancements) == 6
    rows = client.get("/api/v1/tracked-enhancements/?release=1.25", HTTP_ACCEPT="application/json").json()["results"]
    assert rows and {row["source"] for row in rows} == {"exception_file"}


def test_me_shows_the_release_roles_i_held(client, imported, django_user_model):
    person = ReleaseTeamMember.objects.get(release__version="1.35", person__github="rayandas").person
    user = django_user_model.objects.create_user("rayandas")
    Profile.objects.create(person=person, user=user)
    client.force_login(user)
    html = client.get("/me/").content.decode()
    assert "v1.35</a>: Enhancements lead" in html


@pytest.mark.django_db(transaction=True)
def test_reminders_are_signed_by_the_enhancements_lead_naming_the_shadows():
    release = ReleaseFactory(version="1.26")
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=FREEZE)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    _kep(release, node, 2001, S.AT_RISK_ENHANCEMENTS, PersonFactory(github="alice", email="alice@example.com"))
    lead = PersonFactory(github="enhlead", name="Enh Lead")
    shadow = PersonFactory(github="enhshadow")
    for order, (person, is_shadow) in enumerate([(lead, False), (shadow, True)]):
        ReleaseTeamMember.objects.create(
            release=release,
            person=person,
            role=ReleaseRoleKind.ENHANCEMENTS,
            role_label="Enhancements",
            is_shadow=is_shadow,
            order=order,
        )
    call_command("send_freeze_reminders", "--now", WEEK_BEFORE.isoformat(), verbosity=0)
    assert mail.outbox
    for message in mail.outbox:
        assert "Enh Lead (@enhlead), enhancements lead of v1.26" in message.body
        assert "Ask the release's enhancements team: @enhshadow." in message.body
        assert "@enhlead" in message.alternatives[0][0]


@pytest.mark.django_db(transaction=True)
def test_an_approved_request_of_no_kep_with_a_deadline_reminds_nobody_and_breaks_nothing():
    release = ReleaseFactory(version="1.26")
    MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=FREEZE)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    _kep(release, node, 2001, S.AT_RISK_CODE, PersonFactory(github="alice", email="alice@example.com"))
    EnhancementException.objects.create(
        release=release,
        issue_url="https://github.com/kubernetes/kubernetes/issues/1",
        freeze=Freeze.CODE,
        requested_at=FREEZE - 10 * DAY,
        decision=ExceptionDecision.APPROVED,
        decided_at=FREEZE - 9 * DAY,
        deadline=WEEK_BEFORE + DAY,
    )
    call_command("send_freeze_reminders", "--now", WEEK_BEFORE.isoformat(), verbosity=0)
    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", NODE_LIST]
