import datetime
import zoneinfo

from django.template import Context, Template


def _render(value) -> str:
    return Template("{% load sigtracker_tags %}{{ value|utc_minute }}").render(Context({"value": value}))


def test_an_aware_time_is_shown_in_utc_to_the_minute():
    pacific = datetime.datetime(2026, 3, 8, 23, 59, 59, tzinfo=zoneinfo.ZoneInfo("America/Los_Angeles"))
    assert _render(pacific) == "2026-03-09 06:59"


def test_no_time_is_nothing():
    assert _render(None) == "" and _render("2026-03-09") == ""
