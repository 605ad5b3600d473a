"""The release-wide board: every SIG's board of a release side by side, read-only, for the release team."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from retros.services.actions import action_item_create, action_item_set_status
from retros.services.board import retro_item_add, retro_item_hide, retro_item_vote
from tests.factories import SigFactory
from tests.retros.test_board import HOSTILE, board  # noqa: F401  (the fixture)

pytestmark = pytest.mark.django_db


def _two_boards(board):  # noqa: F811
    release, node, lead, ann, bob = board
    apps = SigFactory(slug="sig-apps")
    slow = retro_item_add(user=ann, release=release, sig=node, category="to_improve", text="reviews came late")
    flaky = retro_item_add(user=bob, release=release, sig=apps, category="to_improve", text=HOSTILE)
    well = retro_item_add(user=ann, release=release, sig=apps, category="went_well", text="docs on time")
    spam = retro_item_add(user=bob, release=release, sig=node, category="to_improve", text="buy now")
    for user in (ann, bob, lead):
        retro_item_vote(user=user, item=flaky)
    retro_item_vote(user=bob, item=slow)
    retro_item_hide(user=lead, item=spam, reason="spam")
    done = action_item_create(user=lead, release=release, sig=node, text="review rota", owner="alice")
    action_item_set_status(item=done, status="done", source="board", author="lead")
    action_item_create(user=lead, release=release, sig=node, text="triage flakes", owner="bob")
    return release, node, apps, slow, flaky, well


def test_each_sig_and_the_most_voted_lines_across_sigs(board, client):  # noqa: F811
    release, node, apps, slow, flaky, well = _two_boards(board)
    page = client.get(reverse("retros:release_board", args=[release.version])).content.decode()
    table = page.split('id="release-boards"')[1].split("</table>")[0]
    # sig-apps: 1 went well, 1 to improve, 3 votes; sig-node: 1 to improve (one hidden), 1 vote, 2 action items.
    assert table.index(">sig-apps</a>") < table.index(">sig-node</a>")
    rows = {slug: table.split(f">{slug}</a>")[1].split("</tr>")[0] for slug in ("sig-apps", "sig-node")}
    cells = {slug: re.findall(r"<td>([^<]*)</td>", row) for slug, row in rows.items()}
    assert cells["sig-apps"] == ["1", "1", "0", "3", "0 (0 / 0)"]
    assert cells["sig-node"] == ["0", "1", "0", "1", "2 (1 / 1)"]
    improve = page.split('aria-label="To improve"')[1].split("</section>")[0]
    assert improve.index(f'id="item-{flaky.pk}"') < improve.index(f'id="item-{slow.pk}"')
    assert "buy now" not in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "review rota" in page and "triage flakes" in page


def test_its_queries_do_not_grow_with_the_lines(board, client):  # noqa: F811
    release, node, lead, ann, bob = board
    url = reverse("retros:release_board", args=[release.version])
    client.get(url)
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for n in range(30):
        item = retro_item_add(user=ann, release=release, sig=node, category="discuss", text=f"line {n}")
        retro_item_vote(user=bob, item=item)
    with CaptureQueriesContext(connection) as many:
        assert client.get(url).status_code == 200
    assert len(many) <= len(few) + 2  # the retro row and its SIG appear with the first line


def test_linked_from_the_release_page_and_each_board_and_unknown_releases_are_404(board, client):  # noqa: F811
    release, node, lead, ann, _ = board
    retro_item_add(user=ann, release=release, sig=node, category="went_well", text="ok")
    url = reverse("retros:release_board", args=[release.version])
    assert url in client.get(release.get_absolute_url()).content.decode()
    assert url in client.get(reverse("retros:board", args=[release.version, node.slug])).content.decode()
    assert client.get(reverse("retros:release_board", args=["9.99"])).status_code == 404


def test_private_mode_hides_it_from_anonymous_readers(board, client, settings):  # noqa: F811
    release, *_ = board
    settings.SIGTRACKER_REQUIRE_LOGIN = True
    assert client.get(reverse("retros:release_board", args=[release.version])).status_code == 302
