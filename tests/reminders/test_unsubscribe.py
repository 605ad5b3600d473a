"""One-click unsubscribe (RFC 8058): tokens that cannot be forged or moved to another address or kind, the
confirm page, the CSRF-free one-click POST (also as a bare `curl -X POST` against a live server), and reminder
emails that carry the headers and stop going to the address that clicked."""

import datetime
import subprocess
from email.utils import parseaddr

import pytest
from django.core import mail, signing
from django.test import Client

from people.models import PreferenceChange, Profile
from releases.choices import EnhancementStatus, MilestoneKind
from releases.models import EnhancementStatusChange
from reminders.choices import DeliveryState, ReminderKind
from reminders.delivery import reminder_deliver_batch
from reminders.leases import reminder_deliveries_claim
from reminders.models import ReminderDelivery, Unsubscription
from reminders.services import freeze_reminders_send
from reminders.unsubscribe import BadToken, unsubscribe_address, unsubscribe_token, unsubscribe_url
from tests.factories import (
    KepFactory,
    MilestoneFactory,
    PersonFactory,
    ReleaseFactory,
    SigFactory,
    TrackedEnhancementFactory,
)

pytestmark = pytest.mark.django_db

FREEZE = datetime.datetime(2030, 3, 4, 18, 0, tzinfo=datetime.UTC)
DAY = datetime.timedelta(days=1)
NODE_LIST = "kubernetes-sig-node@googlegroups.com"


def path_of(url: str) -> str:
    return url.split("://", 1)[1].split("/", 1)[1].join(["/", ""])


def test_a_token_names_one_address_and_one_kind():
    token = unsubscribe_token(address="Alice@Example.com", kind=ReminderKind.PERSONAL)
    assert unsubscribe_address(token=token, kind=ReminderKind.PERSONAL) == "alice@example.com"
    with pytest.raises(BadToken):
        unsubscribe_address(token=token, kind=ReminderKind.DIGEST)
    # Another address in the payload: the signature no longer matches.
    payload, rest = token.split(":", 1)
    other = unsubscribe_token(address="mallory@example.com", kind=ReminderKind.PERSONAL).split(":", 1)[0]
    with pytest.raises(BadToken):
        unsubscribe_address(token=f"{other}:{rest}", kind=ReminderKind.PERSONAL)
    # Signed with another key (or another salt) is a forgery.
    forged = signing.dumps({"a": "alice@example.com"}, key="not-our-key", salt="sigtracker.people.unsubscribe.personal")
    with pytest.raises(BadToken):
        unsubscribe_address(token=forged, kind=ReminderKind.PERSONAL)
    with pytest.raises(BadToken):
        unsubscribe_address(token="garbage", kind="no-such-kind")


def test_an_expired_token_is_refused(settings):
    token = unsubscribe_token(address="alice@example.com", kind=ReminderKind.PERSONAL)
    settings.SIGTRACKER_UNSUBSCRIBE_MAX_AGE_DAYS = -1
    with pytest.raises(BadToken, match="expired"):
        unsubscribe_address(token=token, kind=ReminderKind.PERSONAL)
    response = Client().post(path_of(unsubscribe_url(address="alice@example.com", kind="personal")))
    assert response.status_code == 400 and not Unsubscription.objects.exists()


def test_get_confirms_and_post_unsubscribes_without_login_or_csrf():
    client = Client(enforce_csrf_checks=True)
    path = path_of(unsubscribe_url(address="alice@example.com", kind=ReminderKind.PERSONAL))
    page = client.get(path)
    assert page.status_code == 200 and b"alice@example.com" in page.content
    assert not Unsubscription.objects.exists(), "a GET (a link scanner) must change nothing"
    assert client.post(path, {}).status_code == 400
    done = client.post(path, {"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200 and b"Unsubscribed" in done.content
    again = client.post(path, {"List-Unsubscribe": "One-Click"})
    assert again.status_code == 200 and b"already" in again.content
    assert list(Unsubscription.objects.values_list("address", "kind")) == [("alice@example.com", "personal")]
    assert PreferenceChange.objects.filter(address="alice@example.com", source="unsubscribe").count() == 1
    # Same token, other kind in the URL: refused.
    other_kind = path.replace("/personal/", "/digest/")
    assert client.post(other_kind, {"List-Unsubscribe": "One-Click"}).status_code == 400


def test_bare_curl_post_of_the_one_click_form(live_server, settings):
    settings.SIGTRACKER_BASE_URL = live_server.url
    settings.SIGTRACKER_REQUIRE_LOGIN = True  # private mode: the endpoint stays reachable
    url = unsubscribe_url(address="bob@example.com", kind=ReminderKind.DIGEST)
    result = subprocess.run(
        ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-d", "List-Unsubscribe=One-Click", url],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.stdout == "200", result.stderr
    assert Unsubscription.objects.filter(address="bob@example.com", kind="digest").exists()


@pytest.fixture
def board():
    release = ReleaseFactory(version="1.40")
    freeze = MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=FREEZE)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    alice = PersonFactory(github="alice", email="alice@example.com")
    kep = KepFactory(number=2001, title="Sidecar containers", owning_sig=node)
    kep.authors.add(alice)
    row = TrackedEnhancementFactory(release=release, kep=kep, created_at=FREEZE - 30 * DAY)
    EnhancementStatusChange.objects.create(
        tracked_enhancement=row, from_status="", to_status=EnhancementStatus.AT_RISK_ENHANCEMENTS,
        changed_at=FREEZE - 30 * DAY,
    )  # fmt: skip
    row.status = EnhancementStatus.AT_RISK_ENHANCEMENTS
    row.save()
    return {"freeze": freeze, "alice": alice}


def sent_to(address):
    return [m for m in mail.outbox if m.to == [address]]


@pytest.mark.django_db(transaction=True)
def test_reminders_carry_the_headers_and_stop_after_one_click(board, settings):
    settings.SIGTRACKER_BASE_URL = "https://sigtracker.example.org"
    freeze_reminders_send(now=FREEZE - 14 * DAY)
    note, digest = sent_to("alice@example.com")[0], sent_to(NODE_LIST)[0]
    for message, kind in ((note, "personal"), (digest, "digest")):
        header = message.extra_headers["List-Unsubscribe"]
        https, mailto = [part.strip(" <>") for part in header.split(",")]
        assert https.startswith(f"https://sigtracker.example.org/unsubscribe/{kind}/")
        assert mailto.startswith(f"mailto:{parseaddr(settings.DEFAULT_FROM_EMAIL)[1]}?subject=unsubscribe")
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # Alice's link cannot unsubscribe the list, and the list's cannot unsubscribe Alice.
    alice_url = note.extra_headers["List-Unsubscribe"].split(",")[0].strip(" <>")
    assert Client().post(path_of(alice_url), {"List-Unsubscribe": "One-Click"}).status_code == 200
    assert list(Unsubscription.objects.values_list("address", "kind")) == [("alice@example.com", "personal")]

    mail.outbox.clear()
    report = freeze_reminders_send(now=FREEZE - 7 * DAY)
    assert sent_to("alice@example.com") == [] and len(sent_to(NODE_LIST)) == 1
    skipped = ReminderDelivery.objects.get(offset_hours=7 * 24, kind="personal")
    assert skipped.state == DeliveryState.SKIPPED and "unsubscribed" in skipped.error
    assert report.sent == 1


@pytest.mark.django_db(transaction=True)
def test_an_unsubscribe_between_planning_and_sending_is_honoured(board):
    ids = reminder_deliveries_claim(now=FREEZE - 2 * DAY)
    Client().post(
        path_of(unsubscribe_url(address="alice@example.com", kind="personal")), {"List-Unsubscribe": "One-Click"}
    )
    reminder_deliver_batch(delivery_ids=ids, as_of=FREEZE - 2 * DAY)
    note = ReminderDelivery.objects.get(kind="personal")
    assert note.state == DeliveryState.SKIPPED and "one click" in note.error
    assert sent_to("alice@example.com") == [] and len(sent_to(NODE_LIST)) == 1


@pytest.mark.django_db(transaction=True)
def test_chosen_offsets_and_email_off_are_honoured(board):
    Profile.objects.create(person=board["alice"], reminder_offsets=[24])
    freeze_reminders_send(now=FREEZE - 7 * DAY)
    assert sent_to("alice@example.com") == []
    assert "chose not to be reminded 7 days before" in ReminderDelivery.objects.get(kind="personal").error
    freeze_reminders_send(now=FREEZE - DAY)
    assert len(sent_to("alice@example.com")) == 1
    Profile.objects.filter(person=board["alice"]).update(email_reminders=False)
    freeze_reminders_send(now=FREEZE)
    assert len(sent_to("alice@example.com")) == 1
    assert "switched reminder emails off" in ReminderDelivery.objects.get(kind="personal", offset_hours=0).error
