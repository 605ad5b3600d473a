import pytest
from django.db import IntegrityError, transaction

from meetings.models import PR_FLOW_FIELDS, Meeting
from tests.factories import AgendaItemFactory, MeetingFactory

pytestmark = pytest.mark.django_db


def test_one_meeting_per_sig_and_day():
    meeting = MeetingFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        MeetingFactory(sig=meeting.sig, date=meeting.date)


@pytest.mark.parametrize("field", PR_FLOW_FIELDS)
def test_pr_flow_counts_cannot_be_negative(field):
    meeting = MeetingFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Meeting.objects.filter(pk=meeting.pk).update(**{field: -1})


def test_agenda_order_unique_within_meeting():
    item = AgendaItemFactory(order=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        AgendaItemFactory(meeting=item.meeting, order=1)
