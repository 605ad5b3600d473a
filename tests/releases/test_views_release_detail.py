"""The release page (/releases/<version>/), as an anonymous reader sees it."""

import csv
import datetime
import io

import pytest
from django.urls import reverse
from django.utils import timezone

from releases.choices import EnhancementStatus, MilestoneKind
from releases.models import ReleaseStats, TrackedEnhancement
from retros.choices import ActionStatus, RetroCategory
from tests.factories import (
    MilestoneFactory,
    ReleaseFactory,
    RetroItemFactory,
    RetrospectiveFactory,
    SigFactory,
    TrackedEnhancementFactory,
)
from tests.releases.release_pages import fill_board

pytestmark = pytest.mark.django_db


def test_release_detail_shows_schedule_funnel_enhancements_retro_and_meetings(client, release):
    response = client.get("/releases/1.24/")
    assert response.status_code == 200
    html = response.content.decode()
    # Schedule in UTC and US Pacific (02:00 UTC Feb 4 is 18:00 PST Feb 3), past milestones marked.
    assert "Fri 4 Feb 2022, 02:00" in html
    assert "Thu 3 Feb 2022, 18:00 PST" in html
    assert 'class="past"' in html
    # Funnel from the stored stats.
    assert "At enhancements freeze" in html
    assert "33 %" in html
    # Tracked enhancements, linking to the KEP pages.
    assert 'href="/keps/2727/"' in html and "gRPC probes" in html
    # Retro with action item owner and status; meetings during the cycle only.
    assert "Planning and tracking" in html and "Not enough reviewers" in html
    assert "@derekwaynecarr" in html and "In progress" in html
    assert "SIG Node weekly: 1.24 retro" in html
    assert "After the cycle" not in html


def test_release_detail_marks_the_next_milestone(client, release):
    MilestoneFactory(release=release, kind=MilestoneKind.DOCS_FREEZE, at=timezone.now() + datetime.timedelta(days=3))
    MilestoneFactory(release=release, kind=MilestoneKind.RETROSPECTIVE, at=timezone.now() + datetime.timedelta(days=9))
    html = client.get("/releases/1.24/").content.decode()
    assert html.count('class="next"') == 1
    next_row = html.split('class="next"')[1].split("</tr>")[0]
    assert "Docs freeze" in next_row


def test_release_detail_previous_release_follow_through(client, release):
    previous = ReleaseFactory(version="1.23")
    retro = RetrospectiveFactory(release=previous, sig=SigFactory(slug="sig-node"))
    RetroItemFactory(
        retrospective=retro,
        category=RetroCategory.ACTION_ITEM,
        text="Soft freeze for node KEPs",
        status=ActionStatus.DONE,
        due_release=release,
    )
    html = client.get("/releases/1.24/").content.decode()
    section = html.split("Follow-through on v1.23")[1]
    assert "Soft freeze for node KEPs" in section and "Done" in section


def test_release_detail_empty_states(client):
    ReleaseFactory(version="1.40", cycle_start=None, planned_release_date=None)
    html = client.get("/releases/1.40/").content.decode()
    # Visitors are told what is missing, never which management command to run.
    assert "Figures not computed yet" in html and "manage.py" not in html
    assert "No retro recorded yet — add one in the admin" in html
    assert "No milestones yet" in html
    assert "No enhancements are tracked for v1.40 yet" in html


def test_release_detail_tally_release_says_so(client):
    release = ReleaseFactory(version="1.22")
    ReleaseStats.objects.create(release=release, tracked=24, done=13, merge_rate=13 / 24, source="recorded_tally")
    html = client.get("/releases/1.22/").content.decode()
    assert "54 %" in html
    assert "tally recorded in the retro notes" in html


@pytest.mark.parametrize(
    "url",
    ["/releases/9.99/", "/releases/9.99/enhancements/", "/releases/9.99/calendar.ics", "/releases/not-a-version/"],
)
def test_unknown_version_is_404(client, url):
    assert client.get(url).status_code == 404


def test_v_prefixed_version_works(client, release):
    assert client.get("/releases/v1.24/").status_code == 200


def test_url_names(release):
    assert reverse("releases:dashboard") == "/"
    assert reverse("releases:release_list") == "/releases/"
    assert release.get_absolute_url() == "/releases/1.24/"
    assert reverse("releases:enhancement_list", kwargs={"version": "1.24"}) == "/releases/1.24/enhancements/"
    assert reverse("releases:calendar") == "/calendar.ics"
    assert reverse("releases:release_calendar", kwargs={"version": "1.24"}) == "/releases/1.24/calendar.ics"


def test_release_detail_per_sig_stats_and_collapsed_retros_when_many(client, release):
    for slug, tracked, done in (("sig-node", 2, 1), ("sig-auth", 1, 0)):
        ReleaseStats.objects.create(
            release=release, sig=SigFactory(slug=slug), tracked=tracked, done=done, merge_rate=done / tracked
        )
    for slug in ("sig-apps", "sig-storage"):
        RetrospectiveFactory(release=release, sig=SigFactory(slug=slug))
    html = client.get("/releases/1.24/").content.decode()
    by_sig = html.split("<h3>By SIG</h3>")[1].split("</table>")[0]
    assert by_sig.index("sig-auth") < by_sig.index("sig-node")
    assert 'href="/releases/1.24/enhancements/?sig=sig-auth"' in by_sig and "50 %" in by_sig
    assert "3 SIG retrospectives — open one to read it." in html
    assert '<details class="retro">' in html and '<details class="retro" open>' not in html
    assert "1 went well · 1 to improve · 1 action item" in html


def test_release_page_shows_weekly_numbers_with_a_markdown_block(client, release):
    html = client.get(f"/releases/{release.version}/").content.decode()
    section = html.split('<section id="weekly"')[1].split("</section>")[0]
    assert "<caption>By stage</caption>" in section and "<caption>By status</caption>" in section
    assert 'id="weekly-markdown"' in section and f"### Enhancements update — v{release.version}" in section
    assert "**KEPs by Status**" in section


def test_a_release_in_its_cycle_shows_progress_not_a_merge_rate(client):
    from releases.services.stats import release_stats_compute

    now = timezone.now()
    release = ReleaseFactory(
        version="1.60", cycle_start=None, planned_release_date=(now + datetime.timedelta(days=60)).date()
    )
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=now + datetime.timedelta(days=9))
    MilestoneFactory(release=release, kind=MilestoneKind.RELEASE, at=now + datetime.timedelta(days=60))
    for _ in range(6):
        TrackedEnhancementFactory(release=release, status=EnhancementStatus.TRACKED_ENHANCEMENTS)
    release_stats_compute(release_ids=[release.pk])
    section = client.get("/releases/1.60/").content.decode().split('id="stats"')[1].split("</section>")[0]
    assert "6 tracked, 0 done so far" in section
    assert "Merge rate" not in section
    # Enhancements freeze and release day are ahead; PRR and code freeze have no date yet: no count either.
    assert section.count(">ahead<") == 4
    row = next(r for r in csv.DictReader(io.StringIO(client.get("/releases/?_export=csv").content.decode())))
    assert row["Merge rate"] == "" and row["Figures from"] == "typed in by a curator; so far (in cycle)"


def test_no_retro_for_the_previous_release_is_said_as_such(client):
    ReleaseFactory(version="1.33")
    ReleaseFactory(version="1.34")
    html = client.get("/releases/1.34/").content.decode()
    assert "No retro recorded for v1.33." in html
    assert "recorded no action items" not in html


def test_release_page_counts_agree_with_the_selectors_it_no_longer_asks(client):
    from releases import selectors
    from releases.choices import ExceptionDecision, Freeze
    from releases.models import EnhancementException

    release = ReleaseFactory(version="1.61")
    fill_board(release, 40)
    rows = list(TrackedEnhancement.objects.filter(release=release)[:3])
    decisions = [ExceptionDecision.APPROVED, ExceptionDecision.APPROVED, ExceptionDecision.PENDING]
    for row, decision in zip(rows, decisions, strict=True):
        decided_at = None if decision == ExceptionDecision.PENDING else timezone.now()
        EnhancementException.objects.create(
            release=release,
            tracked_enhancement=row,
            kep_number=row.kep.number,
            freeze=Freeze.CODE,
            decision=decision,
            decided_at=decided_at,
        )
    html = client.get("/releases/1.61/").content.decode()
    # Exception counts of the weekly numbers, taken from the page's list of requests: as the counting query says.
    labels = {value: label.lower() for value, label in ExceptionDecision.choices}
    for decision, count in selectors.release_exception_counts(release=release):
        assert f"{labels[decision]} {count}" in html.split('<section id="weekly"')[1].split("</section>")[0]
    # The table pages 40 rows, 15 a page, counted from the board counts: three pages.
    table = html.split('id="enhancements"')[1]
    assert "te-page=3" in table and "te-page=4" not in table


def test_a_release_over_with_outcomes_never_recorded_says_done_is_a_floor(client):
    """A release over, two of its four enhancements approved exceptions never marked done, deferred or removed:
    "Done 1" is what is recorded; the pages and the API say the other two are unknown, not "not done"; with its
    enhancements freeze dated, the merge rate is over the two whose outcome is recorded (unknown is no failure)."""
    from releases.services.stats import release_stats_compute

    today = timezone.now().date()
    release = ReleaseFactory(
        version="1.61",
        cycle_start=today - datetime.timedelta(days=120),
        planned_release_date=today - datetime.timedelta(days=20),
    )
    TrackedEnhancementFactory(release=release, status=EnhancementStatus.DONE)
    TrackedEnhancementFactory(release=release, status=EnhancementStatus.REMOVED)
    for _ in range(2):
        TrackedEnhancementFactory(release=release, status=EnhancementStatus.EXCEPTION_APPROVED)
    release_stats_compute(release_ids=[release.pk])
    stats = ReleaseStats.objects.get(release=release, sig=None)
    assert (stats.done, stats.outcome_not_recorded) == (1, 2)

    section = client.get("/releases/1.61/").content.decode().split('id="stats"')[1].split("</section>")[0]
    assert "and 2 more whose outcome was not recorded" in section
    home = client.get("/").content.decode()
    # No enhancements freeze is dated for it: its four rows are "listed", with no merge rate.
    assert "1 done of 4 listed" in home and "2 of them with no recorded outcome" in home
    (row,) = [s for s in client.get("/api/v1/releases/1.61/").json()["stats"] if s["sig"] is None]
    assert (row["done"], row["outcome_not_recorded"]) == (1, 2)

    # With its enhancements freeze dated (before the rows' history begins: the done one counts, the others' standing
    # then is not recorded, so still no rate) ... the rate is over the outcomes recorded: 1 done of 2.
    MilestoneFactory(
        release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=timezone.now() - datetime.timedelta(days=80)
    )
    RetrospectiveFactory(release=release, recorded_tracked=4, recorded_merged=1)
    release_stats_compute(release_ids=[release.pk])
    home = client.get("/").content.decode()
    assert "1 / 4" in home and "merge rate 50 %" in home and "over the 2 whose outcome is" in home


def test_a_release_in_its_cycle_has_no_unrecorded_outcomes_yet():
    from releases.services.stats import release_stats_compute

    today = timezone.now().date()
    release = ReleaseFactory(
        version="1.62",
        cycle_start=today - datetime.timedelta(days=10),
        planned_release_date=today + datetime.timedelta(days=60),
    )
    TrackedEnhancementFactory(release=release, status=EnhancementStatus.TRACKED_ENHANCEMENTS)
    release_stats_compute(release_ids=[release.pk])
    assert ReleaseStats.objects.get(release=release, sig=None).outcome_not_recorded == 0
