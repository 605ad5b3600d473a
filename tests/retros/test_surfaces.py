"""What the board's writes show elsewhere: private mode, the admin's history and escaping, feeds without hidden items,
the release list's follow-through chart, and the release page's link to each board."""

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.urls import reverse

from retros.models import ActionItemStatusChange, RetroItem
from retros.services.actions import action_item_create
from retros.services.board import retro_item_add, retro_item_hide
from tests.retros.test_board import HOSTILE, board  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db


def test_private_mode_hides_the_board_from_anonymous_readers(board, client, settings):  # noqa: F811
    release, sig, *_ = board
    settings.SIGTRACKER_REQUIRE_LOGIN = True
    url = reverse("retros:board", args=[release.version, sig.slug])
    assert client.get(url).status_code == 302
    client.force_login(User.objects.get(username="ann"))
    assert client.get(url).status_code == 200


def test_every_board_write_is_in_the_admins_history_and_the_admin_escapes(board, client):  # noqa: F811
    release, sig, lead, ann, _ = board
    item = retro_item_add(user=ann, release=release, sig=sig, category="to_improve", text=HOSTILE)
    retro_item_hide(user=lead, item=item, reason="<b>spam</b>")
    action = action_item_create(user=lead, release=release, sig=sig, text=HOSTILE, owner="alice")
    entries = list(LogEntry.objects.order_by("pk").values_list("user__username", "object_id", "change_message"))
    assert entries[0][:2] == ("ann", str(item.pk)) and entries[1] == ("lead", str(item.pk), "Hidden: <b>spam</b>")
    assert entries[2][:2] == ("lead", str(action.pk))
    superuser = User.objects.create_superuser("curator", "c@example.com", "x")
    client.force_login(superuser)
    page = client.get(reverse("admin:retros_retroitem_change", args=[action.pk])).content.decode()
    assert "<script>alert(1)</script>" not in page
    response = client.post(
        reverse("admin:retros_retroitem_changelist"), {"action": "mark_done", "_selected_action": [action.pk]}
    )
    assert response.status_code == 302
    history = list(ActionItemStatusChange.objects.filter(item=action).values_list("new_status", "source", "author"))
    assert history == [("open", "board", "lead"), ("done", "admin", "curator")]


def test_a_hidden_action_item_leaves_the_feed_and_text_is_escaped_there(board, client):  # noqa: F811
    release, sig, lead, *_ = board
    shown = action_item_create(user=lead, release=release, sig=sig, text=HOSTILE)
    hidden = action_item_create(user=lead, release=release, sig=sig, text="secret plan")
    retro_item_hide(user=lead, item=hidden, reason="posted by mistake")
    feed = client.get(reverse("feeds:action_items")).content.decode()
    assert "secret plan" not in feed and "<script>" not in feed and "&lt;script&gt;" in feed
    assert RetroItem.objects.filter(pk=shown.pk).exists()


def test_the_release_list_charts_follow_through_and_the_release_page_links_each_board(board, client):  # noqa: F811
    release, sig, lead, *_ = board
    done = action_item_create(user=lead, release=release, sig=sig, text="a", due_release=release)
    action_item_create(user=lead, release=release, sig=sig, text="b", due_release=release)
    from retros.services.actions import action_item_set_status

    action_item_set_status(item=done, status="done", source="board")
    page = client.get("/releases/").content.decode()
    assert 'id="follow-through"' in page and "Retro action items due per release and done" in page
    detail = client.get(release.get_absolute_url()).content.decode()
    assert reverse("retros:board", args=[release.version, sig.slug]) in detail
    assert 'id="retro-boards"' in detail  # in its cycle: every SIG's board is linked


def test_a_board_post_without_its_csrf_token_is_refused(board):  # noqa: F811
    from django.test import Client

    release, sig, _, ann, _ = board
    client = Client(enforce_csrf_checks=True)
    client.force_login(ann)
    url = reverse("retros:board", args=[release.version, sig.slug])
    response = client.post(url, {"action": "add", "category": "went_well", "text": "forged"})
    assert response.status_code == 403 and not RetroItem.objects.exists()
    page = client.get(url)
    token = page.cookies["csrftoken"].value
    response = client.post(
        url, {"action": "add", "category": "went_well", "text": "real", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 303 and RetroItem.objects.get().text == "real"


def test_a_status_changed_in_the_retros_admin_form_is_kept_in_the_items_history(board, admin_client):  # noqa: F811
    from tests.releases.test_board import _retro_post

    release, sig, lead, *_ = board
    item = action_item_create(user=lead, release=release, sig=sig, text="write it down")
    retro = item.retrospective
    data = _retro_post(retro)
    row = {"id": item.pk, "retrospective": retro.pk, "text": item.text, "status": "done", "order": item.order}
    data.update({"items-3-TOTAL_FORMS": "1", "items-3-INITIAL_FORMS": "1"})
    data.update({f"items-3-0-{name}": value for name, value in row.items()})
    response = admin_client.post(reverse("admin:retros_retrospective_change", args=[retro.pk]), data)
    assert response.status_code == 302, response.content.decode()[:1500]
    history = list(ActionItemStatusChange.objects.filter(item=item).values_list("old_status", "new_status", "source"))
    assert history == [("", "open", "board"), ("open", "done", "admin")]
