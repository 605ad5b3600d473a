"""core/panels.py: a lower app's page shows what upper apps register for it, without importing them."""

import pytest
from django.test import override_settings

from core.panels import panel_context, panel_functions
from tests.factories import AgendaItemFactory, KepFactory

pytestmark = pytest.mark.django_db


def test_panels_are_called_in_order_and_merged():
    with override_settings(
        SIGTRACKER_PAGE_PANELS={"p": ["tests.core.test_panels.first_panel", "tests.core.test_panels.second_panel"]}
    ):
        assert panel_context("p", n=2) == {"n": 2, "doubled": 4, "who": "second"}
        assert panel_context("other page") == {}


def first_panel(*, n, **_):
    return {"n": n, "who": "first"}


def second_panel(*, n, **_):
    return {"doubled": 2 * n, "who": "second"}


def test_every_registered_panel_can_be_loaded(settings):
    for page in settings.SIGTRACKER_PAGE_PANELS:
        assert panel_functions(page)


def test_the_kep_page_shows_its_meeting_mentions_only_through_the_registered_panel(client):
    kep = KepFactory(number=4222)
    item = AgendaItemFactory(title="KEP-4222 sidecar containers")
    item.keps.add(kep)
    assert item.title in client.get("/keps/4222/").content.decode()
    with override_settings(SIGTRACKER_PAGE_PANELS={"keps:kep_detail": ["releases.panels.kep_detail"]}):
        page = client.get("/keps/4222/", {"fresh": 1})
    assert page.status_code == 200 and item.title not in page.content.decode()
