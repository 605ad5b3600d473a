"""Meeting selectors: counts that joins cannot inflate, the PR-flow chart, one meeting with its agenda."""

import datetime

import pytest

from meetings import selectors
from meetings.models import Meeting
from tests.factories import AgendaItemFactory, KepFactory, MeetingFactory, PersonFactory, SigFactory

pytestmark = pytest.mark.django_db


def test_item_count_not_multiplied_by_filters():
    meeting = MeetingFactory()
    kep = KepFactory(number=2727)
    for order in range(3):
        item = AgendaItemFactory(meeting=meeting, order=order, title=f"probes {order}")
        item.keps.add(kep)
        item.presenters.add(PersonFactory(github=f"p{order}"), PersonFactory(github=f"q{order}"))
    MeetingFactory()  # no agenda at all
    counts = sorted(m.item_count for m in selectors.meeting_list())
    assert counts == [0, 3]
    (found,) = selectors.meeting_list(filters={"kep": "2727", "q": "probes", "presenter": "p1"})
    assert found.item_count == 3


def test_chart_has_open_prs_line_and_weekly_bars_oldest_first():
    node, sched = SigFactory(slug="sig-node"), SigFactory(slug="sig-scheduling")
    MeetingFactory(sig=node, date=datetime.date(2022, 1, 4), open_prs=210, prs_created=31, prs_merged=25)
    MeetingFactory(sig=node, date=datetime.date(2022, 1, 11), open_prs=205, prs_created=28, prs_merged=30)
    MeetingFactory(sig=sched, date=datetime.date(2022, 1, 11), open_prs=40, prs_created=5, prs_merged=2)
    MeetingFactory(sig=node, date=datetime.date(2022, 1, 18))  # no figures: left out
    svg = selectors.pr_flow_chart(meetings=Meeting.objects.all())
    assert svg.startswith("<svg")
    # Two dates; meetings of two SIGs on one date are added up.
    assert "Open PRs: 2022-01-04 210, 2022-01-11 245" in svg
    assert "PRs merged that week: 2022-01-04 25, 2022-01-11 32" in svg
    assert "2022-01-18" not in svg


def test_chart_keeps_the_latest_points():
    for week in range(10):
        MeetingFactory(date=datetime.date(2022, 1, 4) + datetime.timedelta(weeks=week), open_prs=week)
    svg = selectors.pr_flow_chart(meetings=Meeting.objects.all(), points=3)
    assert "Open PRs: 2022-02-22 7, 2022-03-01 8, 2022-03-08 9" in svg


def test_no_figures_no_chart():
    MeetingFactory()
    assert selectors.pr_flow_chart(meetings=Meeting.objects.all()) == ""


def test_meeting_detail_agenda_in_order_and_neighbours():
    node = SigFactory(slug="sig-node")
    earlier = MeetingFactory(sig=node, date=datetime.date(2022, 2, 22))
    meeting = MeetingFactory(sig=node, date=datetime.date(2022, 3, 1), open_prs=200, prs_merged=12)
    later = MeetingFactory(sig=node, date=datetime.date(2022, 3, 8))
    MeetingFactory(sig=SigFactory(slug="sig-apps"), date=datetime.date(2022, 3, 2))
    AgendaItemFactory(meeting=meeting, order=2, title="second")
    AgendaItemFactory(meeting=meeting, order=1, title="first")
    found = selectors.meeting_detail(sig="sig-node", date=datetime.date(2022, 3, 1))
    assert [item.title for item in found.agenda_items.all()] == ["first", "second"]
    assert selectors.meeting_neighbours(meeting=found) == (earlier, later)
    assert dict(selectors.pr_flow_rows(found))["Open PRs at the meeting"] == 200
    assert dict(selectors.pr_flow_rows(found))["PRs created that week"] is None
    assert selectors.meeting_detail(sig="sig-apps", date=datetime.date(2022, 3, 1)) is None


def test_search_ranks_meetings_by_their_best_item_and_counts_each_meeting_once(postgres_only):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    node = SigFactory(slug="sig-node")
    # Two matching items in one meeting: the join that ranks them must not count the meeting (or its PRs) twice.
    twice = MeetingFactory(sig=node, date=datetime.date(2022, 3, 1), open_prs=100, prs_created=10, prs_merged=5)
    AgendaItemFactory(meeting=twice, order=1, title="kubelet kubelet kubelet", body="kubelet restarts")
    AgendaItemFactory(meeting=twice, order=2, title="kubelet", body="")
    AgendaItemFactory(meeting=twice, order=3, title="Swap", body="")
    once = MeetingFactory(sig=node, date=datetime.date(2022, 3, 8), open_prs=90, prs_created=4, prs_merged=3)
    AgendaItemFactory(meeting=once, order=1, title="Swap", body="the kubelet's swap")
    MeetingFactory(sig=node, date=datetime.date(2022, 3, 15), open_prs=80)  # no match
    found = selectors.meeting_list(filters={"q": "kubelet"})
    assert found.count() == 2
    rows = list(found)
    assert rows == [twice, once] and rows[0].search_rank > rows[1].search_rank > 0
    assert [m.item_count for m in rows] == [3, 1]
    assert [[item.order for item in m.matches] for m in rows] == [[1, 2], [1]]
    # The meeting with two matches counts its PRs once.
    chart = selectors.pr_flow_chart(meetings=found)
    assert "Open PRs: 2022-03-01 100, 2022-03-08 90" in chart
    assert "PRs merged that week: 2022-03-01 5, 2022-03-08 3" in chart
    # Each item is matched and ranked in one query: no subquery per matching meeting.
    with CaptureQueriesContext(connection) as queries:
        list(selectors.meeting_list(filters={"q": "kubelet"})[:50])
    ranked = next(q["sql"] for q in queries.captured_queries if "ts_rank" in q["sql"])
    assert "MAX(ts_rank(" in ranked and ranked.count("ts_rank") == 1 and "LIMIT 1)" not in ranked


def test_search_results_chart_what_the_chart_of_their_meetings_shows():
    node, sched = SigFactory(slug="sig-node"), SigFactory(slug="sig-scheduling")
    figures = [
        (node, datetime.date(2022, 1, 4), 210, 31, None),
        (sched, datetime.date(2022, 1, 4), 40, None, None),  # two SIGs on one date are added up; None is no figure
        (node, datetime.date(2022, 1, 11), None, None, None),  # no figures at all: no point
        (node, datetime.date(2022, 1, 18), None, 4, 2),
        (sched, datetime.date(2022, 1, 25), 38, 1, 1),
    ]
    for sig, date, open_prs, created, merged in figures:
        meeting = MeetingFactory(sig=sig, date=date, open_prs=open_prs, prs_created=created, prs_merged=merged)
        AgendaItemFactory(meeting=meeting, title="kubelet restarts", body="")
        AgendaItemFactory(meeting=meeting, title="kubelet swap", body="")  # two matches: figures still counted once
    MeetingFactory(sig=node, date=datetime.date(2022, 2, 1), open_prs=999)  # no match
    matched = selectors.meeting_list(filters={"q": "kubelet"})
    results = selectors.meeting_search_results(matched=matched, shown=selectors.meeting_list(), text="kubelet")
    for points in (52, 2):
        chart = selectors.pr_flow_chart(meetings=results, points=points)
        assert chart == selectors.pr_flow_chart(meetings=Meeting.objects.exclude(open_prs=999), points=points)
    assert "Open PRs: 2022-01-04 250, 2022-01-25 38" in selectors.pr_flow_chart(meetings=results)
