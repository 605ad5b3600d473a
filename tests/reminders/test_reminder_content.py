"""What the reminder emails say: each freeze's own requirements, one email per recipient per
instant however many freezes fall then, KEPs grouped by what they still need, who cannot be reached, and links
to the configured public address."""

import datetime
import html
import re

import pytest
from django.core import mail
from django.core.management import call_command

from releases.choices import EnhancementStatus as S
from releases.choices import MilestoneKind
from releases.rules import FREEZE_KINDS, REQUIREMENTS
from reminders.choices import DeliveryState, ReminderKind
from reminders.delivery import reminder_deliver_batch
from reminders.due import reminders_due
from reminders.leases import reminder_deliveries_claim
from reminders.models import ReminderDelivery
from reminders.render_email import reminder_message, render_digest
from tests.digest_scene import DAY, FREEZE, NODE_LIST, UTC, WEEK_BEFORE  # noqa: F401
from tests.digest_scene import tracked_kep as _kep
from tests.factories import MilestoneFactory, PersonFactory, ReleaseFactory, SigFactory


def _send(now=WEEK_BEFORE, *args):
    call_command("send_freeze_reminders", "--now", now.isoformat(), *args, verbosity=1)


def _requirement_lines(text: str) -> list[str]:
    """The "  * requirement" lines of a plain-text email's requirement lists."""
    return [line[4:] for line in text.splitlines() if line.startswith("  * ") and "(listed above)" not in line]


# --- each freeze lists its own requirements -------------------------------------------------------------


#: What the issue asks each kind's email to say, in words taken from the enhancements handbook.
MUST_SAY = {
    MilestoneKind.ENHANCEMENTS_FREEZE: ["kep.yaml", "stage", "latest-milestone", "PRR approval", "lead-opted-in"],
    MilestoneKind.CODE_FREEZE: ["k/k", "merged"],
    MilestoneKind.DOCS_FREEZE: ["docs PR", "ready to merge"],
    MilestoneKind.FEATURE_BLOG_FREEZE: ["placeholder PR", "feature blog"],
    MilestoneKind.PRR_FREEZE: ["questionnaire", "PRR approval file", "lead-opted-in"],
    MilestoneKind.TEST_FREEZE: ["test PR", "merged"],
    MilestoneKind.SIG_SOFT_FREEZE: ["the SIG's own deadline"],
}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", FREEZE_KINDS)
def test_each_freeze_kind_lists_its_own_requirements_and_sends_one_digest(kind):
    release = ReleaseFactory(version="1.26")
    MilestoneFactory(release=release, kind=kind, at=FREEZE, quoted_timezone="PT")
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    alice = PersonFactory(github="alice", email="alice@example.com")
    # At risk for PRR freeze: not ready for any freeze, so every kind sends alice a note.
    _kep(release, node, 2001, S.AT_RISK_PRR, alice)

    _send()

    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", NODE_LIST]
    wanted = list(REQUIREMENTS[kind])
    for message in mail.outbox:
        # The freeze's own lines, in order, as a list (text) and as list items (HTML); nobody else's.
        assert _requirement_lines(message.body) == wanted
        page = message.alternatives[0][0]
        assert re.findall(r"<li>([^<]*)</li>", page)[: len(wanted)] == [html.escape(line) for line in wanted]
        for other, lines in REQUIREMENTS.items():
            if other != kind:
                assert not set(lines) & set(_requirement_lines(message.body)), other
        for words in MUST_SAY[kind]:
            assert words in message.body, words
    name = MilestoneKind(kind).label
    assert f"What {name} requires of each KEP:" in mail.outbox[0].body
    assert ReminderDelivery.objects.filter(kind=ReminderKind.DIGEST, state=DeliveryState.SENT).count() == 1


# --- one email per recipient per instant ----------------------------------------------------------------


@pytest.fixture
def three_freezes_at_once():
    """v1.26 with code, test and docs freeze at the same instant (code and test freeze always coincide); SIG
    Node and SIG Apps share one mailing list, SIG Storage has its own."""
    release = ReleaseFactory(version="1.26")
    # Created out of cycle order: the primary is chosen by the cycle, not by primary key.
    docs = MilestoneFactory(release=release, kind=MilestoneKind.DOCS_FREEZE, at=FREEZE)
    test = MilestoneFactory(release=release, kind=MilestoneKind.TEST_FREEZE, at=FREEZE)
    code = MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=FREEZE)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    apps = SigFactory(slug="sig-apps", mailing_list=NODE_LIST.upper())
    storage = SigFactory(slug="sig-storage", mailing_list="storage@example.com")
    alice = PersonFactory(github="alice", name="Alice", email="alice@example.com")
    bob = PersonFactory(github="bob", name="Bob", email="bob@example.com")
    _kep(release, node, 2001, S.AT_RISK_CODE, alice)
    _kep(release, apps, 2002, S.TRACKED_ENHANCEMENTS, alice, bob)
    _kep(release, storage, 2003, S.AT_RISK_CODE, bob)
    return dict(release=release, code=code, test=test, docs=docs)


@pytest.mark.django_db(transaction=True)
def test_freezes_at_the_same_instant_make_one_email_per_recipient(three_freezes_at_once):
    code = three_freezes_at_once["code"]

    _send()

    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        [NODE_LIST, "storage@example.com", "alice@example.com", "bob@example.com"]
    )
    (digest,) = [m for m in mail.outbox if m.to == [NODE_LIST]]
    assert digest.subject == (
        "[sig-apps, sig-node] Code freeze, test freeze and docs freeze / deadline for v1.26 are in 7 days: "
        "2 KEPs not ready"
    )
    # Each freeze under its own name, with its time and its own requirements.
    for kind in (MilestoneKind.CODE_FREEZE, MilestoneKind.TEST_FREEZE, MilestoneKind.DOCS_FREEZE):
        assert f"What {MilestoneKind(kind).label} requires of each KEP:" in digest.body
    assert _requirement_lines(digest.body) == [
        *REQUIREMENTS[MilestoneKind.CODE_FREEZE],
        *REQUIREMENTS[MilestoneKind.TEST_FREEZE],
        *REQUIREMENTS[MilestoneKind.DOCS_FREEZE],
    ]
    assert digest.body.count("When: Wed 2022-11-16 01:00 UTC") == 3
    (alice,) = [m for m in mail.outbox if m.to == ["alice@example.com"]]
    assert alice.subject == (
        "Code freeze, test freeze and docs freeze / deadline for v1.26 are in 7 days: 2 of your KEPs need attention"
    )

    # Three deliveries per recipient: the code freeze's sent, the others recorded as skipped, saying why.
    deliveries = ReminderDelivery.objects.filter(recipient=NODE_LIST)
    assert deliveries.count() == 3
    sent = deliveries.get(state=DeliveryState.SENT)
    assert sent.milestone == code
    reason = f"sent in one digest with v1.26 Code freeze, in 7 days (delivery of milestone {code.pk})"
    assert sorted(deliveries.filter(state=DeliveryState.SKIPPED).values_list("error", flat=True)) == [reason] * 2
    assert ReminderDelivery.objects.filter(state=DeliveryState.SENT).count() == 4

    # A second run sends nothing again.
    _send()
    assert len(mail.outbox) == 4


@pytest.mark.django_db(transaction=True)
def test_the_sender_rebuilds_the_merged_email_from_the_delivery_rows(three_freezes_at_once):
    """The Celery path plans in one task and sends in another: the sending side finds what the email covers
    from the rows (the skipped siblings point at its milestone), so a retry says the same."""
    ids = reminder_deliveries_claim(now=WEEK_BEFORE)
    assert len(ids) == 4  # one per recipient; the six merged ones were recorded as skipped
    digest = ReminderDelivery.objects.get(recipient=NODE_LIST, state=DeliveryState.CLAIMED)
    assert reminder_deliver_batch(delivery_ids=[digest.pk], as_of=WEEK_BEFORE).sent == [digest.pk]
    (message,) = mail.outbox
    assert "Code freeze, test freeze and docs freeze / deadline for v1.26 are in 7 days" in message.subject
    assert len(_requirement_lines(message.body)) == 4

    # The same message from the row alone, as a resend after a crash would build it.
    again = reminder_message(delivery=ReminderDelivery.objects.get(pk=digest.pk), as_of=WEEK_BEFORE)
    assert (again.subject, again.body) == (message.subject, message.body)
    assert again.extra_headers["Message-ID"] == message.extra_headers["Message-ID"]


@pytest.mark.django_db(transaction=True)
def test_a_freeze_added_after_its_instant_was_sent_goes_out_on_its_own():
    """The code freeze's reminders went out; then a curator adds the test freeze at the same instant. The
    next run within the grace period sends the test freeze's reminders by themselves rather than recording
    them as merged into an email that has already left."""
    release = ReleaseFactory(version="1.26")
    code = MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=FREEZE)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    _kep(release, node, 2001, S.AT_RISK_CODE, PersonFactory(github="alice", email="alice@example.com"))
    _send()
    assert len(mail.outbox) == 2

    test = MilestoneFactory(release=release, kind=MilestoneKind.TEST_FREEZE, at=FREEZE)
    _send(WEEK_BEFORE + datetime.timedelta(minutes=15))

    assert len(mail.outbox) == 4
    assert [m.subject for m in mail.outbox[2:]] == [
        "[sig-node] Test freeze for v1.26 is in 7 days: 1 KEP not ready",
        "Test freeze for v1.26 is in 7 days: 1 of your KEPs needs attention",
    ]
    assert set(ReminderDelivery.objects.filter(milestone=test).values_list("state", flat=True)) == {DeliveryState.SENT}
    assert ReminderDelivery.objects.filter(milestone=code, state=DeliveryState.SENT).count() == 2


@pytest.mark.django_db
def test_dry_run_shows_one_email_per_recipient_and_what_it_covers(three_freezes_at_once, capsys):
    _send(WEEK_BEFORE, "--dry-run")
    out = capsys.readouterr().out
    assert "would send 4 reminder email(s) (8 more reminder(s) go in the same emails)" in out
    assert (
        f"send: digest to {NODE_LIST.lower()} — v1.26 Code freeze, in 7 days + v1.26 Test freeze, in 7 days "
        "+ v1.26 Docs freeze / deadline, in 7 days" in out
    )
    assert "skip (sent in one digest with v1.26 Code freeze, in 7 days" in out


@pytest.mark.django_db(transaction=True)
def test_same_instant_different_countdowns_share_one_email():
    """Enhancements freeze in 14 days and the PRR freeze in 7, at the same instant: one digest naming both."""
    release = ReleaseFactory(version="1.26")
    MilestoneFactory(release=release, kind=MilestoneKind.PRR_FREEZE, at=FREEZE)
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=FREEZE + 7 * DAY)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    _kep(release, node, 2001, S.AT_RISK_PRR, PersonFactory(github="alice", email="alice@example.com"))

    _send()

    assert sorted(m.to[0] for m in mail.outbox) == ["alice@example.com", NODE_LIST]
    (digest,) = [m for m in mail.outbox if m.to == [NODE_LIST]]
    assert digest.subject == (
        "[sig-node] Production readiness freeze for v1.26 is in 7 days; Enhancements freeze for v1.26 is in 14 days: "
        "1 KEP not ready"
    )


# --- KEPs grouped by what they still need ---------------------------------------------------------------


@pytest.mark.django_db
def test_keps_are_grouped_by_what_they_still_need_never_one_line_each():
    release = ReleaseFactory(version="1.26")
    freeze = MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=FREEZE)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    for n in range(23):
        _kep(release, node, 3000 + n, S.AT_RISK_ENHANCEMENTS)
    _kep(release, node, 3100, S.EXCEPTION_PENDING)
    _kep(release, node, 3200, S.TRACKED_CODE)
    _kep(release, node, 3300, S.DONE)
    _kep(release, node, 3400, S.REMOVED)

    (due,) = reminders_due(now=WEEK_BEFORE)
    message = render_digest(dues=due, recipient=NODE_LIST, as_of=WEEK_BEFORE)
    text = message.text

    need = "Still needs: everything Enhancements freeze requires (listed above)"
    assert text.count(need) == 1
    assert text.count("exception request awaits the release team's decision") == 1
    for n in range(23):
        assert f"- KEP-{3000 + n} " in text
    # At risk first, then the pending exception (also at risk), then ready, done, and gone.
    order = [text.index(marker) for marker in (need, "KEP-3000", "KEP-3022", "exception request", "KEP-3100")]
    order += [text.index(marker) for marker in ("\nReady\n", "KEP-3200", "\nDone\n", "KEP-3300")]
    order += [text.index(marker) for marker in ("\nNo longer in this release\n", "KEP-3400")]
    assert order == sorted(order)
    assert message.html.count("everything Enhancements freeze requires") == 1
    assert message.subject == "[sig-node] Enhancements freeze for v1.26 is in 7 days: 24 KEPs not ready"
    assert freeze.pk


# --- who cannot be reached, and the dry run's wording ---------------------------------------------------


@pytest.mark.django_db
def test_dry_run_says_how_many_owners_have_no_address_and_which_sigs_no_list(capsys):
    release = ReleaseFactory(version="1.26")
    MilestoneFactory(release=release, kind=MilestoneKind.FEATURE_BLOG_FREEZE, at=FREEZE)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    quiet = SigFactory(slug="sig-quiet", mailing_list="")
    nomail = PersonFactory(github="nomail", email="")
    also = PersonFactory(github="also-nomail", email="")
    _kep(release, node, 2001, S.AT_RISK_PRR, nomail, also)
    _kep(release, quiet, 2002, S.AT_RISK_PRR, nomail, PersonFactory(github="carol", email="carol@example.com"))
    # Ready: its owner without an address needs no reminder and is not counted.
    _kep(release, node, 2003, S.TRACKED_DOCS, PersonFactory(github="ready-nomail", email=""))

    _send(WEEK_BEFORE, "--dry-run")

    out = capsys.readouterr().out
    assert "2 owner(s) of KEPs not ready have no email address: @also-nomail, @nomail" in out
    assert "1 digest(s) would go unsent: no mailing list for sig-quiet" in out
    assert "v1.26 Feature blog freeze, in 7 days" in out
    assert "freeze freeze" not in out
    assert mail.outbox == [] and not ReminderDelivery.objects.exists()


# --- links ----------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_every_link_uses_the_configured_base_url(settings):
    settings.SIGTRACKER_BASE_URL = "https://sigtracker.example.org/"
    release = ReleaseFactory(version="1.26")
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=FREEZE)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    _kep(release, node, 2001, S.AT_RISK_ENHANCEMENTS, PersonFactory(github="alice", email="alice@example.com"))

    _send()

    assert len(mail.outbox) == 2
    for message in mail.outbox:
        page = message.alternatives[0][0]
        urls = re.findall(r"https?://[^\s\"<>)]+", message.body) + re.findall(r'href="([^"]+)"', page)
        assert urls and all(url.startswith("https://sigtracker.example.org/") for url in urls), urls
        assert "https://sigtracker.example.org/keps/2001/" in message.body
        assert "127.0.0.1" not in message.body + page
        assert message.extra_headers["Message-ID"].endswith("@sigtracker.example.org>")
