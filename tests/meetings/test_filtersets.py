"""One test per filter of the meetings list, and the agenda search on both databases."""

import datetime

import pytest
from django.db import connection

from meetings.filtersets import MeetingFilterSet
from meetings.models import Meeting
from meetings.search import matching_agenda_items
from tests.factories import AgendaItemFactory, KepFactory, MeetingFactory, PersonFactory, SigFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def meetings():
    node, sched = SigFactory(slug="sig-node"), SigFactory(slug="sig-scheduling")
    mrunal = PersonFactory(github="mrunalp")
    resize = KepFactory(number=1287)
    m1 = MeetingFactory(sig=node, date=datetime.date(2021, 11, 2))
    m2 = MeetingFactory(sig=node, date=datetime.date(2022, 3, 1))
    m3 = MeetingFactory(sig=node, date=datetime.date(2022, 3, 8), cancelled=True)
    m4 = MeetingFactory(sig=sched, date=datetime.date(2022, 3, 3))
    a = AgendaItemFactory(meeting=m1, title="No more perma-beta features", body="Graduate or deprecate.")
    a.presenters.add(mrunal)
    AgendaItemFactory(meeting=m1, title="Pod resize beta plan", presenters_text="Vinay Kulkarni").keps.add(resize)
    AgendaItemFactory(meeting=m2, title="Swap support", body="Beta blockers: metrics, evictions").keps.add(resize)
    AgendaItemFactory(meeting=m4, title="Queueing hints", body="Beta in 1.28?")
    return {"m1": m1, "m2": m2, "m3": m3, "m4": m4}


def count(data):
    return MeetingFilterSet(data, queryset=Meeting.objects.all()).qs.count()


def test_no_filter(meetings):
    assert count({}) == 4


def test_sig(meetings):
    assert count({"sig": "sig-node"}) == 3


def test_year(meetings):
    assert count({"year": "2022"}) == 3
    assert count({"year": "2021"}) == 1


def test_year_choices_come_from_the_meetings(meetings):
    field = MeetingFilterSet({}, queryset=Meeting.objects.all()).form.fields["year"]
    assert [value for value, _ in field.choices][1:] == [2022, 2021]


def test_presenter_by_handle_or_as_written(meetings):
    assert count({"presenter": "@MrunalP"}) == 1
    assert count({"presenter": "kulkarni"}) == 1


def test_kep(meetings):
    assert count({"kep": "1287"}) == 2


def test_cancelled(meetings):
    assert count({"cancelled": "true"}) == 1
    assert count({"cancelled": "false"}) == 3


def test_search_needs_every_word_and_counts_meetings_once(meetings):
    # Meeting m1 has two items containing "beta": it is still one meeting.
    assert count({"q": "beta"}) == 3
    assert count({"q": "perma beta"}) == 1
    assert count({"q": "swap"}) == 1
    assert count({"q": "no-such-word-anywhere"}) == 0


def test_search_results_carry_their_matching_items(meetings):
    (meeting,) = MeetingFilterSet({"q": "swap"}, queryset=Meeting.objects.all()).qs
    assert [item.title for item in meeting.matches] == ["Swap support"]


def test_search_combines_with_other_filters(meetings):
    assert count({"q": "beta", "sig": "sig-scheduling"}) == 1
    assert count({"q": "beta", "kep": "1287"}) == 2


def test_full_text_search_on_postgresql(postgres_only, meetings):
    """Stemming and the websearch syntax: "perma beta" finds "perma-beta", "graduating" finds "Graduate"."""
    titles = {item.title for item in matching_agenda_items("perma beta")}
    assert titles == {"No more perma-beta features"}
    assert {i.title for i in matching_agenda_items("graduating")} == {"No more perma-beta features"}
    assert {i.title for i in matching_agenda_items('"beta blockers"')} == {"Swap support"}
    assert {i.title for i in matching_agenda_items("beta -swap -perma")} == {"Pod resize beta plan", "Queueing hints"}
    ranked = list(matching_agenda_items("beta").order_by("-rank"))
    assert ranked[0].rank >= ranked[-1].rank > 0


def test_full_text_search_uses_the_gin_index(postgres_only, meetings):
    items = matching_agenda_items("perma beta")
    sql, params = items.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "agendaitem_search_vector_idx" in plan, plan


def test_search_reads_the_stored_vector_which_follows_every_edit(postgres_only, meetings):
    from meetings.models import AgendaItem

    AgendaItem.objects.filter(title="Queueing hints").update(body="Kubelet restarts in 1.28")
    assert {i.title for i in matching_agenda_items("kubelet")} == {"Queueing hints"}
    AgendaItem.objects.filter(title="Queueing hints").update(title="Kubelet hints", body="")
    assert {i.title for i in matching_agenda_items("kubelet")} == {"Kubelet hints"}


def test_search_lists_the_meeting_of_the_best_match_first(postgres_only, meetings):
    from meetings.models import AgendaItem

    # m4's item says "beta" in its title and notes; m1's and m2's say it once each.
    AgendaItem.objects.filter(title="Queueing hints").update(title="Beta beta beta", body="beta, beta and beta")
    found = list(MeetingFilterSet({"q": "beta"}, queryset=Meeting.objects.all()).qs)
    assert found[0] == meetings["m4"] and len(found) == 3
    assert found[0].search_rank > found[-1].search_rank > 0


def test_a_word_finds_the_longer_words_it_begins(meetings):
    # "retro" finds "retrospective" (prefix of the stemmed word on PostgreSQL, part of a word on SQLite), and
    # "retrospectives" finds it too (stemming; a crude stem on SQLite).
    later = MeetingFactory(sig=SigFactory(slug="sig-node"), date=datetime.date(2022, 4, 26))
    AgendaItemFactory(meeting=later, title="1.24 retrospective", body="What went well")
    AgendaItemFactory(meeting=meetings["m2"], title="Retro of 1.23", body="")
    assert {item.title for item in matching_agenda_items("retro")} == {"1.24 retrospective", "Retro of 1.23"}
    assert {item.title for item in matching_agenda_items("retrospectives")} == {"1.24 retrospective"}
    assert {item.title for item in matching_agenda_items("retrospective went")} == {"1.24 retrospective"}
    # Newest first where the ranks tie (on SQLite every rank is 0).
    found = list(MeetingFilterSet({"q": "what went well"}, queryset=Meeting.objects.all()).qs)
    assert found == [later]


def test_search_orders_by_rank_then_newest(postgres_only, meetings):
    from meetings.models import AgendaItem

    AgendaItem.objects.filter(title="Swap support").update(body="")
    AgendaItem.objects.filter(title="Queueing hints").update(body="")
    # Equal ranks ("swap" once in a title each): the newest meeting first.
    newer = MeetingFactory(sig=SigFactory(slug="sig-node"), date=datetime.date(2023, 1, 10))
    AgendaItemFactory(meeting=newer, title="Swap support", body="")
    found = list(MeetingFilterSet({"q": "swap"}, queryset=Meeting.objects.all()).qs)
    assert found == [newer, meetings["m2"]]
