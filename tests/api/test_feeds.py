"""Atom feeds parse, list the right entries after a change, link to the pages, and the pages advertise them."""

import re

import feedparser
import pytest

from releases.choices import EnhancementStatus
from releases.models import TrackedEnhancement
from releases.services.tracking import tracked_enhancement_set_status
from retros.choices import ActionStatus
from retros.models import RetroItem
from tests.factories import MeetingFactory

pytestmark = pytest.mark.django_db


def _feed(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.bozo_exception
    return feed


def _change(api_data, number, status):
    row = TrackedEnhancement.objects.get(release=api_data["r128"], kep__number=number)
    tracked_enhancement_set_status(tracked_enhancement=row, status=status, author="carol", note="moved on the board")


def test_release_feed_shows_a_status_change_first(client, api_data):
    before = _feed(client, "/feeds/releases/1.28/status.atom")
    assert len(before.entries) == 6
    _change(api_data, 2003, EnhancementStatus.TRACKED_CODE)
    feed = _feed(client, "/feeds/releases/1.28/status.atom")
    assert len(feed.entries) == 7
    entry = feed.entries[0]
    assert "KEP-2003" in entry.title and "At risk for code freeze → Tracked for code freeze" in entry.title
    assert entry.link == "http://testserver/releases/1.28/enhancements/?q=2003"
    assert entry.author == "carol"
    assert len({e.id for e in feed.entries}) == 7
    assert feed.feed.link == "http://testserver/releases/1.28/"


def test_kep_feed_lists_only_that_kep_across_releases(client, api_data):
    _change(api_data, 2000, EnhancementStatus.DONE)
    feed = _feed(client, "/feeds/keps/2000/status.atom")
    assert [e.title.split(": ", 1)[1] for e in feed.entries] == [
        "At risk for code freeze → Done (shipped)",
        "At risk for enhancements freeze → At risk for code freeze",
    ]
    assert all(e.link == "http://testserver/keps/2000/" for e in feed.entries)
    assert client.get("/feeds/keps/99999/status.atom").status_code == 404
    assert client.get("/feeds/keps/KEP-2000/status.atom").status_code == 200


def test_sig_feed_lists_only_that_sigs_changes(client, api_data):
    _change(api_data, 2001, EnhancementStatus.DONE)  # sig-apps
    node = _feed(client, "/feeds/sigs/sig-node/status.atom")
    apps = _feed(client, "/feeds/sigs/sig-apps/status.atom")
    assert {re.search(r"KEP-(\d+)", e.title).group(1) for e in node.entries} == {"2000", "2002", "2004"}
    assert "KEP-2001" in apps.entries[0].title and "Done" in apps.entries[0].title


def test_sig_meetings_feed_shows_a_new_meeting(client, api_data):
    MeetingFactory(sig=api_data["node"], date="2023-06-06", title="Swap GA")
    feed = _feed(client, "/feeds/sigs/sig-node/meetings.atom")
    assert feed.entries[0].title == "sig-node meeting, 2023-06-06: Swap GA"
    assert feed.entries[0].link == "http://testserver/meetings/sig-node/2023-06-06/"
    assert len(feed.entries) == 4


def test_action_item_feed_has_an_entry_when_an_item_closes(client, api_data):
    feed = _feed(client, "/feeds/action-items.atom")
    titles = [e.title for e in feed.entries]
    assert any(t.startswith("Opened: Write the docs") for t in titles)
    assert any(t.startswith("Closed (done): Fix CI") for t in titles)
    opened_ids = {e.id for e in feed.entries}
    RetroItem.objects.filter(text="Write the docs").update(status=ActionStatus.DONE)
    after = _feed(client, "/feeds/action-items.atom")
    new = [e for e in after.entries if e.id not in opened_ids]
    assert [e.title.split(" —")[0] for e in new] == ["Closed (done): Write the docs"]
    assert new[0].link == "http://testserver/releases/1.27/#retro"


@pytest.mark.parametrize(
    ("page", "feeds"),
    [
        ("/releases/1.28/", ["/feeds/releases/1.28/status.atom"]),
        (
            "/releases/1.28/enhancements/?sig=sig-apps",
            ["/feeds/releases/1.28/status.atom", "/feeds/sigs/sig-apps/status.atom"],
        ),
        ("/keps/2000/", ["/feeds/keps/2000/status.atom"]),
        ("/meetings/?sig=sig-node", ["/feeds/sigs/sig-node/meetings.atom", "/feeds/sigs/sig-node/status.atom"]),
        ("/", ["/feeds/releases/1.28/status.atom", "/feeds/action-items.atom"]),
    ],
)  # fmt: skip
def test_pages_advertise_their_feeds(client, api_data, page, feeds):
    html = client.get(page).content.decode()
    head = html.split("</head>", 1)[0]
    found = re.findall(r'<link rel="alternate" type="application/atom\+xml" title="[^"]+" href="([^"]+)">', head)
    assert found == feeds
    for url in found:
        assert client.get(url).status_code == 200


def test_a_page_without_a_sig_filter_advertises_no_sig_feed(client, api_data):
    assert "application/atom+xml" not in client.get("/meetings/?sig=not-a-sig").content.decode().split("</head>")[0]
