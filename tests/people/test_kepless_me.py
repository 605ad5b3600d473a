"""/me/, its calendar and the dashboard with a KEP-less tracked enhancement assigned to me (a feature sheet's
feature naming no KEP): listed by its name, with no KEP link, and no KEP roles read from it."""

import icalendar
import pytest

from keps.models import Sig
from releases.choices import EnhancementStatus, HistorySource
from releases.models import Release
from releases.services.tracking import tracked_enhancement_create
from tests.people.test_views import world  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db


def test_me_and_my_calendar_list_a_kepless_feature_assigned_to_me(client, world):  # noqa: F811
    tracked_enhancement_create(
        release=Release.objects.get(version="1.33"),
        feature_name="Sheet feature",
        sig=Sig.objects.get(slug="sig-node"),
        status=EnhancementStatus.AT_RISK_ENHANCEMENTS,
        source=HistorySource.FEATURE_SHEET,
        assignee=world["me"],
    )
    client.force_login(world["user"])
    response = client.get("/me/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Sheet feature (feature sheet, no KEP)" in page and "KEP-2727" in page
    secret = world["profile"].calendar_secret
    client.logout()
    calendar = icalendar.Calendar.from_ical(client.get(f"/me/calendar/{secret}.ics").content)
    summaries = [str(event["summary"]) for event in calendar.walk("VEVENT")]
    assert any("Sheet feature (feature sheet, no KEP)" in summary for summary in summaries)
    # The dashboard's at-risk list of the current release names it too.
    dashboard = client.get("/")
    assert dashboard.status_code == 200 and "Sheet feature" in dashboard.content.decode()
