"""A real upstream slice imported the way a user would (sigs.yaml, the enhancements tree, the sig-release schedules
of 1.22–1.27, the SIG Node notes archive), then read through the pages: every headline answer agrees with the
files it came from.

The schedules are given file by file (1.22–1.27) so that these answers do not depend on the older README shapes."""

import csv
import datetime
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from community.models import Person
from keps.models import Kep, PrrApproval
from releases import selectors
from releases.choices import EnhancementStatus, MilestoneKind, StatsSource
from releases.models import Milestone, Release, ReleaseStats, TrackedEnhancement
from releases.services.stats import release_stats_compute
from releases.services.tracking import tracked_enhancement_set_status
from reminders.due import Anchor, DueReminder
from reminders.render_email import render_personal

pytestmark = pytest.mark.django_db


def _import(command, *args):
    try:
        call_command(command, *[str(a) for a in args], verbosity=0)
    except CommandError as exc:  # exit 1 (a messy file skipped) is not what these tests are about
        assert exc.returncode == 1, exc


@pytest.fixture
def upstream(upstream_dir):
    _import("import_sigs", upstream_dir / "community" / "sigs.yaml")
    _import("import_keps", upstream_dir / "enhancements")
    releases = upstream_dir / "sig-release" / "releases"
    _import("import_schedule", *[releases / f"release-1.{minor}" / "README.md" for minor in range(22, 28)])
    notes = upstream_dir / "community" / "sig-node" / "archive"
    _import("import_meeting_notes", *sorted(notes.glob("meeting-notes-*.md")), "--sig", "sig-node")
    release_stats_compute()
    return upstream_dir


def test_v1_24_uses_sig_nodes_retro_tally_as_sig_nodes_figures_never_the_releases(client, upstream):
    # SIG Node's notes list 23 KEPs, 6 done, and record where the other 17 stood at enhancements freeze nowhere; the
    # tally is SIG Node's: v1.24 has no release-wide figures, "recorded for 1 SIG", and SIG Node's row has them.
    assert TrackedEnhancement.objects.filter(release__version="1.24").count() == 23
    stats = ReleaseStats.objects.get(release__version="1.24", sig__isnull=True)
    assert (stats.tracked, stats.done, stats.merge_rate) == (None, None, None)
    assert (stats.release_wide_known, stats.sigs_recorded, stats.scope_label) == (False, 1, "recorded for 1 SIG")
    node = ReleaseStats.objects.get(release__version="1.24", sig__slug="sig-node")
    assert (node.tracked, node.done, node.tracked_source) == (23, 6, StatsSource.RECORDED_TALLY)
    assert node.merge_rate == pytest.approx(6 / 23) and node.figures_from[0] == "retro_tally"
    html = client.get("/releases/1.24/").content.decode()
    section = html.split('id="stats"')[1].split("</section>")[0]
    assert 'id="figures-by-sig-only"' in section and "recorded for 1 SIG" in section
    by_sig = section.split('id="sig-stats"')[1].split("</table>")[0]
    assert "26 %" in by_sig and "the retro tally" in by_sig and "100 %" not in html
    # The chart and the CSV say the same.
    listing = client.get("/releases/").content.decode()
    assert "100 %" not in listing.split('id="table-heading"')[1]
    row = next(r for r in csv.DictReader(client.get("/releases/?_export=csv").content.decode().splitlines())
               if r["Version"] == "1.24")  # fmt: skip
    assert (row["Tracked"], row["Done"], row["Merge rate"], row["Retro tally"]) == ("", "", "", "sig-node 23/6")
    assert row["Figures from"] == "the retro tally and SIG meeting notes; recorded for 1 SIG"
    api = client.get("/api/v1/releases/1.24/").json()
    all_sigs = next(s for s in api["stats"] if s["sig"] is None)
    assert (all_sigs["tracked"], all_sigs["done"], all_sigs["merge_rate"]) == (None, None, None)
    assert (all_sigs["scope"], all_sigs["release_wide_known"], all_sigs["sigs_recorded"]) == ("release", False, 1)
    node_api = next(s for s in api["stats"] if s["sig"] == "sig-node")
    assert (node_api["tracked"], node_api["done"], node_api["scope"]) == (23, 6, "sig")
    assert node_api["figures_from"] == ["retro_tally", "notes"] and node_api["tracked_source"] == "recorded_tally"

    # Nine days before its enhancements freeze (a day before PRR freeze), v1.24 had no merge rate and nothing to
    # count at the freezes still ahead.
    release = Release.objects.get(version="1.24")
    freeze = Milestone.objects.get(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, sig__isnull=True)
    release_stats_compute(release_ids=[release.pk], now=freeze.at - datetime.timedelta(days=9))
    stats = ReleaseStats.objects.get(release=release, sig__isnull=True)
    assert stats.in_cycle and stats.merge_rate is None
    assert [step["step"] for step in stats.funnel if step.get("ahead")] == [
        "prr_freeze",
        "enhancements_freeze",
        "code_freeze",
        "shipped",
    ]
    node = ReleaseStats.objects.get(release=release, sig__slug="sig-node")
    assert node.in_cycle and node.merge_rate is None
    html = client.get("/releases/1.24/").content.decode()
    section = html.split('id="stats"')[1].split("</section>")[0]
    assert 'id="figures-by-sig-only"' in section and not re.search(r"\d %", section), section


def test_kep_pages_show_prr_from_files_plans_as_plans_and_the_stored_status(client, upstream):
    # PRR: a 1.24 KEP whose prod-readiness file names an approver for its stage, on a board that says nothing.
    row = next(
        row
        for row in selectors.tracked_enhancement_list(release=Release.objects.get(version="1.24"))
        if row.prr_file_approver
    )
    approval = PrrApproval.objects.get(kep=row.kep, stage=row.prr_stage)
    assert row.prr_status == "not_started"  # the board column as imported
    html = client.get(f"/keps/{row.kep.number}/").content.decode()
    prr = html.split('id="board-prr">')[1].split("</dd>")[0]
    assert "Approved" in prr and f"@{approval.approver.github}" in prr and "prod-readiness" in prr
    board = client.get("/releases/1.24/enhancements/").content.decode()
    assert f"@{approval.approver.github}" in board
    api = client.get("/api/v1/tracked-enhancements/?release=1.24").json()
    results = api["results"] if isinstance(api, dict) else api
    assert next(r for r in results if r["kep"] == row.kep.number)["prr_status"] == "approved"

    # Plans: a KEP whose kep.yaml names a beta milestone it never shipped at is "planned", not "reached".
    planned = next(
        kep
        for kep in Kep.objects.exclude(beta_milestone="").order_by("number")
        if not TrackedEnhancement.objects.filter(kep=kep, target_stage="beta", status=EnhancementStatus.DONE).exists()
    )
    html = client.get(f"/keps/{planned.number}/").content.decode()
    assert f"Planned: beta in {planned.beta_milestone}" in html
    assert "Reached <strong>beta</strong>" not in html
    stages = client.get(f"/api/v1/keps/{planned.number}/").json()["stages"]
    assert stages["planned"]["beta"] == planned.beta_milestone and "beta" not in stages["reached"]
    # The board's PRR filter agrees with the column.
    approved = client.get("/releases/1.24/enhancements/?prr=approved").content.decode()
    assert f"KEP-{row.kep.number}<" in approved or f">KEP-{row.kep.number}" in approved

    # The checklist comment reads the status the release team set.
    tracked_enhancement_set_status(tracked_enhancement=row, status=EnhancementStatus.TRACKED_ENHANCEMENTS)
    row.refresh_from_db()
    comment = selectors.tracked_enhancement_checklist(tracked_enhancement=row)
    assert "marked as `Tracked for enhancements freeze`" in comment
    assert "At risk for enhancements freeze" not in comment


def test_a_chairs_reminder_gives_the_true_reason_and_their_meetings_show_on_me(client, upstream):
    chair = Person.objects.filter(
        sig_leaderships__sig__slug="sig-node", sig_leaderships__role="chair", email__contains="@"
    ).first()
    assert chair is not None
    release = Release.objects.get(version="1.24")
    code_freeze = Milestone.objects.get(release=release, kind=MilestoneKind.CODE_FREEZE, sig__isnull=True)
    row = TrackedEnhancement.objects.filter(release=release, sig__slug="sig-node").order_by("kep__number").first()
    # On the board two days before code freeze, not ready for it.
    tracked_enhancement_set_status(
        tracked_enhancement=row, status=EnhancementStatus.AT_RISK_CODE, at=code_freeze.at - datetime.timedelta(days=2)
    )
    due = DueReminder(code_freeze, Anchor.FREEZE, 24, code_freeze.at - datetime.timedelta(days=1), [row.sig_id])
    message = render_personal(dues=[due], person=chair, recipient=chair.email, as_of=due.due_at)
    assert message is not None
    assert "you are its SIG chair" in message.text
    assert "because you are a SIG chair of the KEP above" in message.text
    assert "/me/preferences/" in message.text and "/unsubscribe/personal/" in message.text
    assert "curator" not in message.text

    # /me/ for that chair lists SIG Node's next meeting, as the home page does.
    from community.meeting_schedule import sig_next_meetings
    from people.selectors import my_work

    home = [m for m in sig_next_meetings(now=timezone.now()) if m.sig.slug == "sig-node"]
    work = my_work(person=chair)
    assert home and [m.sig.slug for m in work.sig_meetings] and "sig-node" in [m.sig.slug for m in work.sig_meetings]


@pytest.fixture
def every_release_file(upstream):
    """Every release folder as `import_releases` reads it: 1.4 and 1.12's feature sheets, 1.9, 1.24 and 1.35's
    rosters, 1.16, 1.25 and 1.35's exception requests, besides the READMEs."""
    _import("import_releases", upstream / "sig-release" / "releases")
    return upstream


def test_releases_known_only_from_their_files_do_not_pass_for_planned_ones(client, every_release_file):
    # 1.35 has exception requests (asked from 17 Oct 2025, decided by 10 Nov) and a roster but no schedule: it was in
    # its cycle then and is over now, with no release day on record; not a release still being planned.
    html = client.get("/").content.decode()
    assert "v1.35 is over; the v1.36 schedule is not published yet" in html
    assert "v1.35 is planned" not in html and "v1.28" not in html
    answer = client.get("/api/v1/releases/current/").json()
    assert (answer["release"]["version"], answer["release"]["state"], answer["next_release"]) == (
        "1.35",
        "released",
        None,
    )
    # Minors ship in order: 1.4 (features sheet), 1.9 (roster) and 1.16 (exceptions) were out before 1.22 was.
    states = dict(Release.objects.values_list("version", "state"))
    assert {version: states[version] for version in ("1.4", "1.9", "1.16")} == dict.fromkeys(
        ("1.4", "1.9", "1.16"), "released"
    )
    rows = client.get("/releases/?state=planning").content.decode().split('id="table-heading"')[1]
    assert "v1.4<" not in rows and "v1.16<" not in rows and "v1.35<" not in rows


def test_no_page_a_visitor_reads_names_a_management_command(client, every_release_file):
    from django.core.management import get_commands

    ours = sorted(name for name, app in get_commands().items() if not app.startswith(("django", "rest_framework")))
    assert "import_releases" in ours
    pages = ["/", "/releases/", "/keps/", "/keps/1287/", "/keps/slips/", "/keps/approvers/", "/meetings/"]
    pages += [f"/releases/{version}/" for version in ("1.4", "1.9", "1.12", "1.16", "1.22", "1.24", "1.27", "1.35")]
    for page in pages:
        response = client.get(page, follow=True)
        assert response.status_code == 200, page
        html = response.content.decode()
        assert [name for name in ours if re.search(rf"\b{name}\b", html)] == [], page


def test_a_release_over_with_no_date_shows_no_progress_and_no_invented_freeze_counts(client, every_release_file):
    release_stats_compute()
    html = client.get("/releases/1.4/").content.decode()
    section = html.split('id="stats"')[1].split("</section>")[0]
    # Released (1.8 is out), so not "so far"; its sheet lists 28 tracked (26 KEPs and 2 features naming no issue)
    # with no status column, so what shipped is not recorded, and no freeze of 1.4 is recorded.
    assert "so far" not in section and "is released" not in section
    assert "100 %" not in section and "ahead" not in section
    assert "no freeze of v1.4 is recorded" in section and section.count("not recorded") >= 3
    stats = ReleaseStats.objects.get(release__version="1.4", sig__isnull=True)
    assert (stats.in_cycle, stats.merge_rate, stats.done, stats.outcome_not_recorded) == (False, None, 0, 28)


def test_v1_12_counts_the_sheet_row_that_moved_to_1_13_as_tracked_and_not_shipped(client, every_release_file):
    # With 1.12's README the enhancements freeze (1 Aug 2018) is known; #575 was "Tracked" then and its note moves
    # it to 1.13: not shipped. The other 37 are "Tracked" too, and the sheet records no outcome for them: none is
    # counted shipped, and no merge rate is claimed (not 37 of 38, not 0 %).
    release_stats_compute()
    stats = ReleaseStats.objects.get(release__version="1.12", sig__isnull=True)
    assert (stats.done, stats.removed, stats.outcome_not_recorded) == (0, 1, 37)
    assert stats.merge_rate is None
    html = client.get("/releases/1.12/").content.decode()
    assert "97 %" not in html and "0 %" not in html
    # The sheet does not say where its 37 rows stood at code freeze: "not recorded", not "1 still in".
    code_freeze = next(step for step in stats.funnel if step["step"] == "code_freeze")
    assert (code_freeze["count"], code_freeze.get("unknown")) == (1, 37)


def test_a_release_with_no_prr_freeze_shows_no_prr_row_in_its_funnel(client, every_release_file):
    # PRR freeze began with v1.21: v1.12's schedule has none, so its funnel has no "0 still in at PRR freeze".
    release_stats_compute()
    stats = ReleaseStats.objects.get(release__version="1.12", sig__isnull=True)
    assert [step["step"] for step in stats.funnel] == ["opted_in", "enhancements_freeze", "code_freeze", "shipped"]
    section = client.get("/releases/1.12/").content.decode().split('id="stats"')[1].split("</section>")[0]
    assert "PRR freeze" not in section and "Tracked at enhancements freeze" in section
    # v1.24 held one: its row stays, with its date.
    stats = ReleaseStats.objects.get(release__version="1.24", sig__isnull=True)
    prr = next(step for step in stats.funnel if step["step"] == "prr_freeze")
    assert prr["at"] and prr["count"] is not None


def test_a_release_known_from_its_exception_requests_is_in_its_cycle_then_over_and_says_its_day_is_unknown(
    client, every_release_file
):
    from releases.rules import release_states

    def state_of_1_35(day):
        now = datetime.datetime.combine(day, datetime.time(12), tzinfo=datetime.UTC)
        states = release_states(Release.objects.with_known_dates().order_by("major", "minor"), now=now)
        return next(state for release, state in states if release.version == "1.35")

    assert state_of_1_35(datetime.date(2025, 9, 1)) == "planning"  # before its first request: nothing says it began
    assert state_of_1_35(datetime.date(2025, 11, 1)) == "active"  # its requests were being decided
    assert state_of_1_35(datetime.date(2026, 6, 1)) == "released"  # a cycle is over long before this
    html = client.get("/releases/1.35/").content.decode()
    assert "Released (day not published)</span></h1>" in html
    listing = client.get("/releases/").content.decode().split('id="table-heading"')[1]
    row = next(line for line in listing.split("<tr>") if "v1.35<" in line)
    assert "Released (day not published)" in row and "Planning" not in row
    # Its figures are no longer progress once it is over.
    release_stats_compute()
    stats = ReleaseStats.objects.get(release__version="1.35", sig__isnull=True)
    assert stats.in_cycle is False and stats.merge_rate is None
    # A release with a release day says just "Released".
    assert "Released (day not published)" not in client.get("/releases/1.27/").content.decode()


def test_a_dateless_release_older_than_one_in_its_cycle_is_released_not_planning():
    from types import SimpleNamespace

    from releases.rules import release_states

    def release(minor, **dates):
        values = {"cycle_start": None, "release_date": None, "state": "planning", **dates}
        return SimpleNamespace(version=f"1.{minor}", major=1, minor=minor, **values)

    now = datetime.datetime(2024, 2, 1, tzinfo=datetime.UTC)
    older, current = release(28), release(29, cycle_start=datetime.date(2024, 1, 8))
    assert [state for _, state in release_states([older, current], now=now)] == ["released", "active"]


def test_reimporting_corrects_what_an_earlier_import_stored_wrong(client, upstream_dir):
    # A database imported by earlier, buggier importers: a release's name, dates and state wrong, v1.24's PRR freeze
    # read as "other" and its code freeze under another label, v1.35 (exceptions only) stored as planning.
    releases = upstream_dir / "sig-release" / "releases"
    _import("import_releases", releases)
    Release.objects.filter(version="1.26").update(name="", state="planning", cycle_start=datetime.date(2022, 1, 1))
    Release.objects.filter(version="1.35").update(state="planning")
    prr = Milestone.objects.get(release__version="1.24", kind=MilestoneKind.PRR_FREEZE, sig__isnull=True)
    code = Milestone.objects.get(release__version="1.24", kind=MilestoneKind.CODE_FREEZE, sig__isnull=True)
    Milestone.objects.filter(pk=prr.pk).update(kind=MilestoneKind.OTHER)
    Milestone.objects.filter(pk=code.pk).update(kind=MilestoneKind.OTHER, label="Code Freeze begins")
    count = Milestone.objects.filter(release__version="1.24").count()

    _import("import_schedule", releases)

    release = Release.objects.get(version="1.26")
    assert (release.name, release.state, release.cycle_start) == ("Electrifying", "released", datetime.date(2022, 9, 5))
    assert Release.objects.get(version="1.35").state == "released"
    # Corrected in place: the same rows (their anchors and reminders follow), no second copy beside them.
    assert Milestone.objects.filter(release__version="1.24").count() == count
    assert Milestone.objects.get(pk=prr.pk).kind == MilestoneKind.PRR_FREEZE
    fixed = Milestone.objects.get(pk=code.pk)
    assert (fixed.kind, fixed.label) == (MilestoneKind.CODE_FREEZE, code.label)
    html = client.get("/releases/1.24/").content.decode()
    assert html.count(f'id="milestone-{prr.pk}"') == 1
    # And a second run finds nothing left to correct.
    out = StringIO()
    call_command("import_schedule", str(releases), verbosity=1, stdout=out)
    assert "0 created, 0 updated" in out.getvalue()


def test_a_shipped_release_nothing_is_recorded_of_gets_no_figures_rather_than_zeros(client, upstream):
    # The READMEs of 1.25-1.27 give dates, never counts; no board, sheet or retro of them was imported.
    assert not TrackedEnhancement.objects.filter(release__version="1.25").exists()
    stats = ReleaseStats.objects.get(release__version="1.25", sig__isnull=True)
    assert (stats.in_cycle, stats.figures_known) == (False, False)
    section = client.get("/releases/1.25/").content.decode().split('id="stats"')[1].split("</section>")[0]
    assert 'id="no-figures"' in section and 'id="figure-tracked"' not in section and "No funnel" not in section
    # The list and its chart leave the release's counts out instead of drawing zeros; the ones recorded stay.
    # Here every release's figures are SIG Node's or none: no release-wide chart, and no "not computed" either.
    listing = client.get("/releases/").content.decode()
    assert "<desc" not in listing and "Figures not computed yet" not in listing
    assert "No release-wide figures for v1.22 (recorded for 1 SIG), v1.23 (recorded for 1 SIG)" in listing
    rows = {row["version"]: row for row in selectors.release_list().values("version", "tracked", "done")}
    assert (rows["1.25"]["tracked"], rows["1.25"]["done"]) == (None, None)
    assert (rows["1.24"]["tracked"], rows["1.24"]["done"]) == (None, None)
    # v1.27 is the latest release: the home page says it has no figures, not that nothing was tracked "yet".
    home = client.get("/").content.decode()
    assert 'id="no-figures"' in home and "No enhancements tracked for v1.27 yet" not in home
    # The API says the same: no counts in the release's row, and its stored zeros flagged as counting nothing.
    answer = client.get("/api/v1/releases/1.25/").json()
    assert (answer["tracked"], answer["done"]) == (None, None)
    assert [row["figures_known"] for row in answer["stats"] if row["sig"] is None] == [False]
    assert client.get("/api/v1/releases/1.24/").json()["tracked"] is None


def test_a_release_over_with_no_freeze_dated_shows_no_tracked_figure_on_any_page(client, every_release_file):
    # v1.35 is known from its exception requests and roster only: 12 enhancements of two SIGs listed, none shipped on
    # record, no enhancements freeze dated. An exception file lists only the KEPs that asked for more time: no
    # release-wide figure at all; each SIG's row says "—" tracked and that the outcome is not recorded.
    release_stats_compute()
    stats = ReleaseStats.objects.get(release__version="1.35", sig__isnull=True)
    assert (stats.tracked, stats.done, stats.tracked_at_freeze, stats.merge_rate) == (None, None, None, None)
    assert (stats.sigs_recorded, stats.figures_from) == (2, ["exception_file"])
    node = ReleaseStats.objects.get(release__version="1.35", sig__slug="sig-node")
    assert (node.tracked_at_freeze, node.merge_rate) == (None, None)
    # Its approved exceptions were never marked done, deferred or removed: their outcome is unknown, not "not done".
    unknown = node.counts["status"].get("exception_approved", 0)
    assert unknown and node.outcome_not_recorded == unknown
    home = client.get("/").content.decode().split('id="stats-heading"')[1].split("</section>")[0]
    assert "of tracked at enhancements freeze" not in home and "listed" not in home
    assert 'id="figures-sigs-only"' in home and "recorded for 2 SIGs" in home and "the exception file" in home
    page = client.get("/releases/1.35/").content.decode()
    assert "the enhancements board" not in page.split('id="stats"')[1].split("</section>")[0]

    export = list(csv.DictReader(client.get("/releases/?_export=csv").content.decode().splitlines()))
    row = next(row for row in export if row["Version"] == "1.35")
    assert (row["Tracked"], row["Done"], row["Merge rate"]) == ("", "", "")
    assert row["Figures from"] == "the exception file; recorded for 2 SIGs"
    assert next(r for r in export if r["Version"] == "1.12")["Figures from"] == "the feature sheet"
    listing = client.get("/releases/").content.decode()
    assert "No enhancements freeze is recorded for 1.4:" in listing
    assert "v1.35 (recorded for 2 SIGs)" in listing
    assert "Tracked v1.35:" not in listing and "Tracked v1.4:" not in listing  # the chart's bars

    answer = client.get("/api/v1/releases/1.35/").json()
    assert answer["tracked"] is None and answer["done"] is None and answer["merge_rate"] is None
    assert answer["release_wide_known"] is False and answer["sigs_recorded"] == 2
    assert answer["figures_from"] == ["exception_file"]
    assert [s["tracked_at_freeze"] for s in answer["stats"] if s["sig"] is None] == [None]
    # Its own page's table by SIG says what each SIG's rows say.
    by_sig = page.split('class="sig-stats"')[1].split("</table>")[0]
    node_cells = by_sig.split(">sig-node</a></th>")[1].split("</tr>")[0]
    tracked_cell = node_cells.split("</td>")[0]
    assert "—" in tracked_cell and "not recorded" in tracked_cell
    assert "outcome not recorded" in node_cells and "the exception file" in node_cells


def test_a_release_known_from_its_exception_requests_does_not_say_none_was_tracked_at_its_freeze(
    client, every_release_file
):
    # v1.25's README dates its enhancements freeze (24 Jun 2022); its six SIG Node KEPs are known only from exception
    # requests. One asked for an enhancements-freeze exception (27 Jun): it missed the freeze, so it was not tracked
    # at it. For the five others the file gives the day of a code-freeze request, not where the KEP stood at the
    # enhancements freeze: "not recorded", not "0 tracked".
    release_stats_compute()
    node = ReleaseStats.objects.get(release__version="1.25", sig__slug="sig-node")
    assert (node.listed, node.not_recorded, node.tracked_at_freeze, node.merge_rate) == (6, 5, None, None)
    funnel = {step["step"]: step for step in node.funnel}
    assert funnel["enhancements_freeze"].get("unknown") == 5 and funnel["enhancements_freeze"]["count"] == 0
    stats = ReleaseStats.objects.get(release__version="1.25", sig__isnull=True)
    assert (stats.tracked, stats.done, stats.sigs_recorded) == (None, None, 1)
    section = client.get("/releases/1.25/").content.decode().split('id="stats"')[1].split("</section>")[0]
    assert "recorded for 1 SIG" in section and "5 not recorded" in section
    row = next(r for r in csv.DictReader(client.get("/releases/?_export=csv").content.decode().splitlines())
               if r["Version"] == "1.25")  # fmt: skip
    assert (row["Tracked"], row["Merge rate"], row["Figures from"]) == (
        "",
        "",
        "the exception file; recorded for 1 SIG",
    )
    assert client.get("/api/v1/releases/1.25/").json()["tracked"] is None


def test_every_figure_is_at_its_scope_on_the_whole_upstream(client, every_release_file):
    """The figures rule (`releases.rules.figures`, docs/figures.md) on the whole upstream as the README imports it:
    SIG Node's notes give SIG Node's tallies only, so 1.22-1.24 have no release-wide figure; SIG Node's rows carry
    its tallies; every figure names its scope and source."""
    release_stats_compute()
    for version, (tracked, done) in {"1.22": (24, 13), "1.23": (14, 8), "1.24": (23, 6)}.items():
        whole = ReleaseStats.objects.get(release__version=version, sig__isnull=True)
        assert (whole.merge_rate, whole.done, whole.tracked) == (None, None, None), version
        assert (whole.release_wide_known, whole.sigs_recorded) == (False, 1), version
        node = ReleaseStats.objects.get(release__version=version, sig__slug="sig-node")
        assert (node.recorded_tracked, node.recorded_done, node.scope) == (tracked, done, "sig"), version
        assert (node.tracked, node.done) == (tracked, done) and node.figures_from[0] == "retro_tally", version
        api = client.get(f"/api/v1/releases/{version}/").json()
        assert (api["merge_rate"], api["done"], api["scope"]) == (None, None, "recorded for 1 SIG"), version
        # Recorded for one SIG is not "nothing recorded": the page shows SIG Node's row, not "no figures".
        assert whole.figures_known, version
        section = client.get(f"/releases/{version}/").content.decode().split('id="stats"')[1].split("</section>")[0]
        assert 'id="figures-by-sig-only"' in section and 'id="no-figures"' not in section, version
        assert f"{tracked}" in section.split('id="sig-stats"')[1], version
    # The feature sheet lists every SIG's features: v1.12's figures are release-wide, and say so.
    v112 = client.get("/api/v1/releases/1.12/").json()
    assert v112["release_wide_known"] is True and v112["figures_from"] == ["feature_sheet"]
    assert v112["scope"] == "release-wide" and v112["done"] is not None
    # No release-wide merge rate is 0 % where no outcome is recorded.
    assert not ReleaseStats.objects.filter(sig__isnull=True, merge_rate=0).exists()
    # The list's "Retro tally" column shows the tallies, each with the SIG it covers.
    table = client.get("/releases/").content.decode().split('id="table-heading"')[1]
    for tally in ("sig-node 24 / 13", "sig-node 14 / 8", "sig-node 23 / 6"):
        assert tally in table
    # No page labels figures from an exception file "the enhancements board".
    for version in ("1.25", "1.35"):
        stats = client.get(f"/releases/{version}/").content.decode().split('id="stats"')[1].split("</section>")[0]
        assert "the enhancements board" not in stats and "the exception file" in stats


def test_api_filters_by_latest_milestone_and_refuses_unknown_filters_on_the_upstream(client, upstream):
    rows = client.get("/api/v1/keps/?latest_milestone=1.37&owning_sig=sig-node&page_size=100").json()["results"]
    assert len(rows) == 34 and all(row["owning_sig"] == "sig-node" for row in rows)
    refused = client.get("/api/v1/keps/?latest-milestone=1.37")
    assert refused.status_code == 400 and "latest-milestone" in refused.json()


def test_home_shows_each_sigs_main_meeting_and_search_finds_retrospective_for_retro(client, upstream):
    from community.meeting_schedule import sig_next_meetings

    main = {row.sig.slug: row.meeting.description for row in sig_next_meetings(now=timezone.now())}
    assert main["sig-network"] == "SIG Network Meeting" and main["sig-node"] == "Main SIG Meeting"
    assert main["sig-api-machinery"] == "Regular SIG Meeting"
    home = client.get("/").content.decode()
    assert "Gateway API Meeting" not in home.split('id="sig-meetings-heading"')[1]
    found = client.get("/api/v1/agenda-items/?q=retro&page_size=200").json()["results"]
    assert any("retrospective" in (row["title"] + row.get("body", "")).lower() for row in found)
