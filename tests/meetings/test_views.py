"""The meetings list (search, filters, chart, CSV) and one meeting's page, as an anonymous visitor sees them."""

import csv
import datetime
import io
import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import AgendaItemFactory, KepFactory, MeetingFactory, PersonFactory, ReleaseFactory, SigFactory
from tests.worlds import MAX_QUERIES, build_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def meeting():
    node = SigFactory(slug="sig-node", name="SIG Node")
    kep = KepFactory(number=2727, title="gRPC probes", owning_sig=node)
    meeting = MeetingFactory(
        sig=node,
        date=datetime.date(2022, 3, 1),
        title="SIG Node weekly",
        recording_url="https://www.youtube.com/watch?v=abc",
        open_prs=214,
        prs_created=31,
        prs_updated=80,
        prs_closed=9,
        prs_merged=25,
    )
    item = AgendaItemFactory(
        meeting=meeting,
        order=1,
        title="Perma-beta review for 1.24",
        body="We should *graduate* these.\n\n- probes\n- swap",
        links=["https://github.com/kubernetes/kubernetes/pull/107734", "javascript:alert(1)"],
        related_release=ReleaseFactory(version="1.24"),
    )
    item.keps.add(kep)
    item.presenters.add(PersonFactory(github="SergeyKanzhelev"))
    AgendaItemFactory(meeting=meeting, order=2, title="Open floor", presenters_text="Derek Carr")
    return meeting


def test_list_and_detail_open_to_anonymous_visitors(client, meeting):
    assert client.get("/meetings/").status_code == 200
    assert client.get("/meetings/sig-node/2022-03-01/").status_code == 200


@pytest.mark.parametrize(
    "url",
    [
        "/meetings/sig-node/2022-03-02/",  # no meeting that day
        "/meetings/sig-apps/2022-03-01/",  # no such SIG
        "/meetings/sig-node/2022-02-30/",  # no such date
        "/meetings/sig-node/2022-3-1/",  # not YYYY-MM-DD
    ],
)
def test_unknown_meeting_is_404(client, meeting, url):
    assert client.get(url).status_code == 404


def test_empty_list_says_what_to_do(client):
    page = client.get("/meetings/").content.decode()
    assert "import a SIG&#x27;s meeting notes" in page or "import a SIG's meeting notes" in page


def test_list_shows_counts_figures_and_chart(client, meeting):
    MeetingFactory(sig=meeting.sig, date=datetime.date(2022, 3, 8), cancelled=True)
    page = client.get("/meetings/").content.decode()
    assert 'href="/meetings/sig-node/2022-03-01/"' in page
    assert "<svg" in page and "Open PRs" in page
    assert "cancelled" in page
    assert "Matching agenda items" not in page  # only on search results


def test_search_lists_matching_items_linked_to_their_anchor(client, meeting):
    MeetingFactory(sig=meeting.sig, date=datetime.date(2022, 3, 8))
    page = client.get("/meetings/", {"q": "perma beta"}).content.decode()
    assert "1 meeting" in page
    assert "Matching agenda items" in page
    assert 'href="/meetings/sig-node/2022-03-01/#item-1">Perma-beta review for 1.24</a>' in page


def test_csv_keeps_filters_and_search(client, meeting):
    MeetingFactory(sig=meeting.sig, date=datetime.date(2023, 1, 3))
    rows = list(csv.DictReader(io.StringIO(client.get("/meetings/?year=2022&_export=csv").content.decode())))
    assert [r["Date"] for r in rows] == ["2022-03-01"]
    assert rows[0]["Agenda items"] == "2" and rows[0]["Open PRs"] == "214"
    rows = list(csv.DictReader(io.StringIO(client.get("/meetings/?q=perma+beta&_export=csv").content.decode())))
    assert rows[0]["Matching agenda items"] == "Perma-beta review for 1.24"


def test_detail_shows_recording_flow_agenda_links_and_notes(client, meeting):
    page = client.get("/meetings/sig-node/2022-03-01/").content.decode()
    assert 'href="https://www.youtube.com/watch?v=abc"' in page
    assert '<th scope="row">PRs merged that week</th><td>25</td>' in page
    assert page.index("Perma-beta review for 1.24") < page.index("Open floor")
    assert 'id="item-1"' in page and 'id="item-2"' in page
    assert "@SergeyKanzhelev" in page and "Derek Carr" in page
    assert 'href="/keps/2727/">KEP-2727</a>' in page
    assert ">kubernetes/kubernetes#107734</a>" in page
    assert 'href="javascript:' not in page  # a non-web link is shown as text
    assert "<em>graduate</em>" in page and "<li>probes</li>" in page
    assert 'href="/releases/1.24/"' in page


def test_hostile_notes_are_inert(client, meeting):
    AgendaItemFactory(
        meeting=meeting,
        order=3,
        title="<script>alert('title')</script>",
        body="<script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3)) "
        "![p](data:image/png;base64,AAAA) <a href='https://ok.example' onclick='alert(4)'>ok</a>",
    )
    page = client.get("/meetings/sig-node/2022-03-01/").content.decode()
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#x27;title&#x27;)&lt;/script&gt;" in page  # the title is escaped text
    for hostile in ("onerror", "onclick", 'href="javascript:', "data:image", "alert(2)", "alert(3)", "alert(4)"):
        assert hostile not in page
    assert "<li>javascript:alert(1)</li>" in page  # a non-web link from `links` stays plain text


@pytest.mark.parametrize("levels", [500, 1400])
def test_deeply_nested_agenda_item_does_not_take_the_page_down(client, meeting, levels):
    # A 500-level nested list raised RecursionError on every (uncached) request.
    body = "\n".join(f"{'    ' * level}- level {level}" for level in range(levels))
    AgendaItemFactory(meeting=meeting, order=3, title="Nested", body=body)
    client.get("/meetings/sig-node/2022-03-01/")  # templates and URL resolvers loaded before timing
    started = time.process_time()  # CPU time of this process: the render, not the load of the machine
    response = client.get("/meetings/sig-node/2022-03-01/")
    elapsed = time.process_time() - started
    assert response.status_code == 200
    assert elapsed < 1.0, elapsed
    assert "level 3" in response.content.decode()


def test_query_counts_constant_from_10_to_1000_rows(client):
    def measure():
        counts = {}
        for url in (
            "/meetings/",
            "/meetings/?q=perma+beta",
            "/meetings/?sig=sig-node&year=2020&kep=1&presenter=person3",
            "/meetings/?_export=csv",
            "/meetings/?q=review&_export=csv",
            "/meetings/sig-node/2020-01-07/",
        ):
            with CaptureQueriesContext(connection) as captured:
                assert client.get(url).status_code == 200, url
            counts[url] = len(captured)
        return counts

    build_world(10)
    small = measure()
    build_world(990, start=10)
    large = measure()
    assert large == small
    assert max(large.values()) <= MAX_QUERIES, large


def test_csv_export_holds_plain_values_not_html(client, meeting):
    body = client.get("/meetings/?q=perma+beta&_export=csv").content.decode()
    assert "<" not in body and "&amp;" not in body


@pytest.fixture
def kubelet_weeks():
    """60 weekly meetings (more than a page) whose items say "kubelet" one to four times, some in two items, with
    PR figures some of them lack; and one meeting that does not match."""
    node, apps = SigFactory(slug="sig-node"), SigFactory(slug="sig-apps")
    for week in range(60):
        meeting = MeetingFactory(
            sig=apps if week % 3 == 0 else node,
            date=datetime.date(2021, 1, 5) + datetime.timedelta(weeks=week),
            open_prs=None if week % 7 == 0 else 200 + week,
            prs_created=week % 5,
            prs_merged=None if week % 4 == 0 else week % 3,
        )
        AgendaItemFactory(meeting=meeting, order=1, title=" ".join(["kubelet"] * (1 + week % 4)), body="")
        if week % 5 == 0:
            AgendaItemFactory(meeting=meeting, order=2, title="Kubelet swap", body="")
        AgendaItemFactory(meeting=meeting, order=3, title="Scheduler", body="")
    MeetingFactory(sig=node, date=datetime.date(2020, 1, 7), open_prs=500)


def _shown(response):
    return [row.record for row in response.context["table"].page.object_list]


def _search_queries(captured):
    return [query["sql"] for query in captured if "kubelet" in query["sql"].lower()]


def test_search_matches_once_for_count_page_and_chart_as_the_search_queryset_lists(client, kubelet_weeks):
    from meetings import selectors
    from meetings.models import Meeting

    expected = list(selectors.meeting_list(filters={"q": "kubelet"}))
    assert len(expected) == 60
    for page in (1, 2):
        with CaptureQueriesContext(connection) as captured:
            response = client.get("/meetings/", {"q": "kubelet", "page": page})
        # The meetings are matched once (their count, their order, the page's meetings and the chart all come from
        # it); the shown meetings' matching items are the only other query that searches.
        assert len(_search_queries(captured)) == 2, _search_queries(captured)
        shown, wanted = _shown(response), expected[(page - 1) * 50 : page * 50]
        assert [(m.pk, m.search_rank, m.item_count) for m in shown] == [
            (m.pk, m.search_rank, m.item_count) for m in wanted
        ]
        assert [[item.title for item in m.matches] for m in shown] == [
            [item.title for item in m.matches] for m in wanted
        ]
    page = response.content.decode()
    assert "60 meetings" in page
    every_match = Meeting.objects.filter(pk__in=[m.pk for m in expected])
    assert response.context["chart"] == selectors.pr_flow_chart(meetings=every_match)
    rows = list(csv.DictReader(io.StringIO(client.get("/meetings/?q=kubelet&_export=csv").content.decode())))
    assert [row["Date"] for row in rows] == [m.date.isoformat() for m in expected]


def test_a_sorted_search_lists_its_meetings_in_the_column_order(client, kubelet_weeks):
    from meetings import selectors

    expected = list(selectors.meeting_list(filters={"q": "kubelet"}).order_by("date"))
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/meetings/", {"q": "kubelet", "sort": "date"})
    assert [m.pk for m in _shown(response)] == [m.pk for m in expected[:50]]
    assert "60 meetings" in response.content.decode()
    # The column's order is read once more; the count and the chart keep the first reading.
    assert len(_search_queries(captured)) == 3


def test_a_search_with_an_invalid_filter_lists_nothing(client, kubelet_weeks):
    response = client.get("/meetings/", {"q": "kubelet", "year": "1999"})  # not a year of the meetings
    assert response.status_code == 200
    assert _shown(response) == []
