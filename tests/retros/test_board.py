"""The retro board: its window, items, votes, hide and merge, action items, the API's answers, the Markdown export
and the follow-through sync against a GitHub stand-in over HTTP."""

import datetime
import io

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from rest_framework.test import APIClient

from community.choices import SigRole
from community.models import SigMembership
from releases.choices import MilestoneKind
from retros import selectors
from retros.choices import ActionStatus
from retros.markdown import board_markdown
from retros.models import ActionItemStatusChange, RetroItem
from retros.services.board import BoardRefused, board_window, retro_item_add, retro_item_vote, retro_items_merge
from tests.factories import MilestoneFactory, ReleaseFactory, SigFactory
from tests.github.standin import TOKEN, StandInGitHub

pytestmark = pytest.mark.django_db
UTC = datetime.UTC
HOSTILE = '<script>alert(1)</script> & "quotes"'


@pytest.fixture
def board(settings):
    """v1.90 in its cycle (started 30 days ago, released in 30 days, retro in 40), sig-node with a lead."""
    settings.SIGTRACKER_API_THROTTLE_CACHE = "default"
    caches["default"].clear()  # the per-person counts of an earlier test (user ids repeat)
    today = datetime.date.today()
    release = ReleaseFactory(
        version="1.90",
        cycle_start=today - datetime.timedelta(days=30),
        planned_release_date=today + datetime.timedelta(days=30),
    )
    MilestoneFactory(
        release=release,
        kind=MilestoneKind.RETROSPECTIVE,
        at=datetime.datetime.combine(today + datetime.timedelta(days=40), datetime.time(17), tzinfo=UTC),
    )
    sig = SigFactory(slug="sig-node")
    lead = User.objects.create_user("lead")
    SigMembership.objects.create(user=lead, sig=sig, role=SigRole.LEAD)
    return release, sig, lead, User.objects.create_user("ann"), User.objects.create_user("bob")


def test_the_window_opens_with_the_cycle_and_closes_a_week_after_the_retro(board):
    release, *_ = board
    window = board_window(release=release)
    assert window.opens.date() == release.cycle_start
    assert window.state(window.opens - datetime.timedelta(seconds=1)) == "before"
    assert window.state(window.closes - datetime.timedelta(seconds=1)) == "open"
    assert window.state(window.closes) == "after"
    assert (window.closes - datetime.timedelta(days=7)).date() == datetime.date.today() + datetime.timedelta(days=40)


def test_without_a_retro_milestone_the_window_closes_four_weeks_after_release_day(db):
    release = ReleaseFactory(
        version="1.91", cycle_start=datetime.date(2026, 1, 5), planned_release_date=datetime.date(2026, 4, 21)
    )
    window = board_window(release=release)
    assert window.closes == datetime.datetime(2026, 5, 19, tzinfo=UTC)
    sig, user = SigFactory(slug="sig-apps"), User.objects.create_user("late")
    with pytest.raises(BoardRefused, match="closed on 2026-05-19"):
        retro_item_add(
            user=user,
            release=release,
            sig=sig,
            category="went_well",
            text="late",
            now=datetime.datetime(2026, 5, 20, tzinfo=UTC),
        )
    with pytest.raises(BoardRefused, match="opens on 2026-01-05"):
        retro_item_add(
            user=user,
            release=release,
            sig=sig,
            category="went_well",
            text="early",
            now=datetime.datetime(2026, 1, 1, tzinfo=UTC),
        )


def test_a_retro_exists_in_the_api_as_soon_as_its_board_opens(board):
    api = APIClient()
    (retro,) = api.get("/api/v1/retrospectives/", {"release": "1.90", "sig": "sig-node"}).json()["results"]
    assert (retro["release"], retro["sig"], retro["collecting"], retro["items"]) == ("1.90", "sig-node", True, [])
    assert retro["carried_over"] == [] and retro["follow_through"] == {"action_items": 0, "done": 0}
    closed = ReleaseFactory(
        version="1.10", cycle_start=datetime.date(2017, 12, 1), planned_release_date=datetime.date(2018, 3, 26)
    )
    assert api.get("/api/v1/retrospectives/", {"release": closed.version, "sig": "sig-node"}).json()["results"] == []


def test_votes_count_once_a_person_and_sort_items_within_their_category(board):
    release, sig, _, ann, bob = board
    first = retro_item_add(user=ann, release=release, sig=sig, category="to_improve", text="flaky e2e")
    second = retro_item_add(user=ann, release=release, sig=sig, category="to_improve", text="late reviews")
    assert retro_item_vote(user=bob, item=second) is True
    assert retro_item_vote(user=bob, item=second) is False
    assert retro_item_vote(user=ann, item=second) is True
    got = selectors.board_get(release=release, sig=sig)
    assert [(i.text, i.vote_count) for i in got.columns["to_improve"]] == [("late reviews", 2), ("flaky e2e", 0)]
    assert first.author == ann


def test_a_lead_merges_duplicates_with_votes_combined_and_no_double_votes(board):
    release, sig, lead, ann, bob = board
    keep = retro_item_add(user=ann, release=release, sig=sig, category="discuss", text="CI")
    dup = retro_item_add(user=bob, release=release, sig=sig, category="discuss", text="CI again")
    for user, item in ((ann, keep), (bob, keep), (bob, dup), (lead, dup)):
        retro_item_vote(user=user, item=item)
    with pytest.raises(BoardRefused, match="not a lead of sig-node"):
        retro_items_merge(user=ann, keep=keep, duplicate=dup)
    retro_items_merge(user=lead, keep=keep, duplicate=dup)
    assert sorted(keep.votes.values_list("user__username", flat=True)) == ["ann", "bob", "lead"]
    dup.refresh_from_db()
    assert dup.merged_into == keep and dup.hidden_reason == f"merged into item {keep.pk}"
    assert [i.text for i in selectors.board_get(release=release, sig=sig).columns["discuss"]] == ["CI"]


def test_the_page_escapes_hidden_items_leave_it_and_only_leads_hide(board, client):
    release, sig, lead, ann, _ = board
    url = reverse("retros:board", args=[release.version, sig.slug])
    client.force_login(ann)
    assert client.post(url, {"action": "add", "category": "went_well", "text": HOSTILE}).status_code == 303
    item = RetroItem.objects.get()
    page = client.get(url).content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    refused = client.post(url, {"action": "hide", "item": item.pk, "reason": "spam"})
    assert refused.status_code == 403 and "not a lead of sig-node" in refused.content.decode()
    client.force_login(lead)
    assert client.post(url, {"action": "hide", "item": item.pk, "reason": "spam"}).status_code == 303
    assert "alert(1)" not in client.get(url).content.decode()
    assert RetroItem.objects.get().hidden_reason == "spam"  # kept, with the reason
    api = APIClient()
    assert api.get("/api/v1/retro-items/", {"release": "1.90", "sig": "sig-node"}).json()["results"] == []


def test_the_api_adds_votes_refuses_and_limits(board, settings):
    release, sig, lead, ann, bob = board
    settings.SIGTRACKER_RETRO_ITEM_RATE = (2, 3600)
    api = APIClient()
    body = {"release": "1.90", "sig": "sig-node", "category": "went_well", "text": "soft freeze"}
    assert api.post("/api/v1/retro-items/", body, format="json").status_code in (401, 403)
    api.force_authenticate(ann)
    created = api.post("/api/v1/retro-items/", body, format="json")
    assert created.status_code == 201
    assert api.post("/api/v1/retro-items/", {**body, "category": "nope"}, format="json").status_code == 400
    assert api.post("/api/v1/retro-items/", {**body, "text": ""}, format="json").status_code == 400
    assert api.post("/api/v1/retro-items/", {**body, "text": "x" * 2001}, format="json").status_code == 400
    assert api.post("/api/v1/retro-items/", body, format="json").status_code == 201
    assert api.post("/api/v1/retro-items/", body, format="json").status_code == 429
    item_id = created.json()["id"]
    api.force_authenticate(bob)
    assert api.post(f"/api/v1/retro-items/{item_id}/votes/").status_code == 201
    assert api.post(f"/api/v1/retro-items/{item_id}/votes/").json()["votes"] == 1
    listed = api.get("/api/v1/retro-items/", {"release": "1.90", "sig": "sig-node"}).json()["results"]
    assert {(row["text"], row["author"], row["votes"]) for row in listed} == {
        ("soft freeze", "ann", 1),
        ("soft freeze", "ann", 0),
    }
    action = {
        "release": "1.90",
        "sig": "sig-node",
        "text": "",
        "owner": "alice",
        "due_release": "1.90",
        "issue_url": "https://github.com/kubernetes/kubernetes/issues/7",
        "from_item": item_id,
    }
    refused = api.post("/api/v1/action-items/", action, format="json")
    assert refused.status_code == 403 and "not a lead of sig-node" in refused.json()["detail"]
    api.force_authenticate(lead)
    made = api.post("/api/v1/action-items/", action, format="json")
    assert made.status_code == 201, made.content
    got = api.get(f"/api/v1/action-items/{made.json()['id']}/").json()
    assert (got["status"], got["owner"], got["text"]) == ("open", "alice", "soft freeze")
    retro = api.get("/api/v1/retrospectives/", {"release": "1.90", "sig": "sig-node"}).json()["results"][0]
    assert retro["collecting"] is True
    assert retro["follow_through"] == {"action_items": 1, "done": 0}


def test_the_follow_through_sync_follows_the_issue_over_http(board, settings):
    release, sig, lead, ann, _ = board
    from retros.services.actions import action_item_create

    item = action_item_create(
        user=lead,
        release=release,
        sig=sig,
        text="fix the flake",
        owner="alice",
        due_release=release,
        issue_url="https://github.com/kubernetes/kubernetes/issues/42",
    )
    with StandInGitHub(repo="kubernetes/kubernetes") as github:
        settings.GITHUB_TOKEN, settings.GITHUB_API_URL = TOKEN, github.url
        issue = github.add_issue(42, title="fix the flake")

        def sync():
            call_command("sync_github", "--action-items", verbosity=0)
            item.refresh_from_db()
            return item.status

        assert sync() == "open"
        assert sync() == "open" and github.log[-1]["status"] == 304  # unchanged: a free conditional request
        issue.update(state="closed", state_reason="completed")
        assert sync() == "done"
        issue.update(state="open", state_reason="reopened")
        assert sync() == "open"
        issue.update(state="closed", state_reason="not_planned")
        assert sync() == "dropped"
        history = list(ActionItemStatusChange.objects.filter(item=item).values_list("old_status", "new_status"))
        assert history == [("", "open"), ("open", "done"), ("done", "open"), ("open", "dropped")]
        item.issue_url = "https://github.com/kubernetes/kubernetes/issues/404"
        item.issue_etag = ""
        item.save()
        err = io.StringIO()
        with pytest.raises(CommandError):
            call_command("sync_action_items", verbosity=0, stderr=err)
        assert "(404)" in err.getvalue()
        item.refresh_from_db()
        assert item.status == "dropped"


def test_markdown_carried_over_and_follow_through_on_hand_computed_data(board):
    release, sig, lead, ann, _ = board
    from retros.services.actions import action_item_create, action_item_set_status

    earlier = ReleaseFactory(
        version="1.89", cycle_start=datetime.date(2025, 9, 1), planned_release_date=datetime.date(2025, 12, 9)
    )
    old = action_item_create(
        user=lead,
        release=earlier,
        sig=sig,
        text="old, still open",
        owner="bob",
        due_release=release,
        now=datetime.datetime(2025, 12, 1, tzinfo=UTC),
    )
    done = action_item_create(
        user=lead,
        release=earlier,
        sig=sig,
        text="old, done",
        due_release=earlier,
        issue_url="https://github.com/kubernetes/kubernetes/issues/9",
    )
    action_item_set_status(item=done, status=ActionStatus.DONE, source="board")
    retro_item_add(user=ann, release=release, sig=sig, category="went_well", text="# not a heading <b>")
    noted = action_item_create(user=lead, release=earlier, sig=sig, text="suggested in the notes")
    action_item_set_status(item=noted, status=ActionStatus.NOT_RECORDED, source="notes")
    carried = [(i.text, i.status) for i in selectors.carried_over(release=release, sig=sig)]
    assert carried == [("old, still open", "open"), ("suggested in the notes", "not_recorded")]
    assert selectors.follow_through(release=release, sig=sig) == {"action_items": 2, "done": 1}
    text = board_markdown(selectors.board_get(release=earlier, sig=sig))
    assert "- [ ] old, still open (@bob, due v1.90)" in text
    assert "- [x] old, done (due v1.89, #9)" in text
    current = board_markdown(selectors.board_get(release=release, sig=sig))
    assert "- \\# not a heading &lt;b&gt;" in current
    assert old.status == "open"


def test_an_unlinked_action_item_is_updated_by_its_owner_or_a_lead_and_a_linked_one_by_its_issue(board, client):
    from community.models import Person
    from people.models import Profile
    from retros.services.actions import action_item_create, action_item_update_status

    release, sig, lead, ann, bob = board
    item = action_item_create(user=lead, release=release, sig=sig, text="write the guide", owner="ann-gh")
    Profile.objects.create(person=Person.objects.get(github="ann-gh"), user=ann)
    with pytest.raises(BoardRefused, match="not its owner, not a lead of sig-node"):
        action_item_update_status(user=bob, item=item, status="done")
    url = reverse("retros:board", args=[release.version, sig.slug])
    client.force_login(ann)
    assert client.post(url, {"action": "status", "item": item.pk, "status": "in_progress"}).status_code == 303
    assert action_item_update_status(user=lead, item=item, status="done") is True
    assert list(item.status_changes.values_list("new_status", "author")) == [
        ("open", "lead"),
        ("in_progress", "ann"),
        ("done", "lead"),
    ]
    linked = action_item_create(
        user=lead, release=release, sig=sig, text="x", issue_url="https://github.com/kubernetes/kubernetes/issues/1"
    )
    with pytest.raises(BoardRefused, match="follows the issue"):
        action_item_update_status(user=lead, item=linked, status="done")


def test_the_sync_stops_at_its_deadline_and_keeps_what_it_read(board, settings):
    from retros.services.actions import action_item_create, action_items_sync

    release, sig, lead, *_ = board
    for number in (1, 2):
        action_item_create(
            user=lead,
            release=release,
            sig=sig,
            text=f"item {number}",
            issue_url=f"https://github.com/kubernetes/kubernetes/issues/{number}",
        )
    with StandInGitHub(repo="kubernetes/kubernetes", latency=1.5) as github:
        settings.GITHUB_TOKEN, settings.GITHUB_API_URL = TOKEN, github.url
        for number in (1, 2):
            github.add_issue(number)
        result = action_items_sync(deadline=0.5)
    assert result.read == 0 and len(result.failed) == 1 and result.failed[0].startswith("stopped at action item")


def test_open_an_issue_prefills_the_sigs_repository_and_a_pasted_url_must_be_an_issue(board, client):
    from urllib.parse import parse_qs, urlparse

    from retros.services.actions import action_item_create

    release, sig, lead, *_ = board
    with pytest.raises(BoardRefused, match="issue_url: a GitHub issue URL"):
        action_item_create(user=lead, release=release, sig=sig, text="x", issue_url="https://example.com/issues/1")
    item = action_item_create(user=lead, release=release, sig=sig, text="Write the\nreviewer guide")
    client.force_login(lead)
    page = client.get(reverse("retros:board", args=[release.version, sig.slug])).content.decode()
    link = page.split('href="https://github.com/kubernetes/kubernetes/issues/new?')[1].split('"')[0]
    query = parse_qs(urlparse("?" + link.replace("&amp;", "&")).query)
    assert query["title"] == ["Write the"]
    assert "Retro board: http://testserver/releases/1.90/retro/sig-node/" in query["body"][0]
    assert item.issue_url == ""
