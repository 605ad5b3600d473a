"""Tracked enhancements that name no KEP: the early feature sheets' features without a features issue, counted in
every figure, shown on every page and in the API; and exception requests about no KEP, counted by their release.

Counts are read off the shared CSVs (../shared/data/upstream/sig-release/releases/): v1.4's features.csv has 28
features, 26 with a kubernetes/features issue link and 2 without ("Simplified turn up", SIG-Federation, alpha, link
"N/A"; "Google ContainerVM Image", SIG-Node, beta, no link); no status column, and 1.4 is long out, so all 28
shipped. SIG-Federation (today's sig-multicluster, by the SIG alias table) has 7 rows (1 KEP-less), SIG-Node 8
(1 KEP-less). v1.12's features.csv has 38 rows, every
one named "NNN: …": no KEP-less feature, and its figures stay 38 tracked, 37 shipped (#575 moved to 1.13).
"""

import csv
import io
import shutil

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from releases.choices import EnhancementStatus, ExceptionDecision, Freeze, HistorySource, TrackedSource
from releases.models import EnhancementException, FeatureSheetRow, ReleaseStats, StatusWriteRefused, TrackedEnhancement
from releases.services.stats import release_stats_compute
from releases.services.tracking import tracked_enhancement_create
from tests.factories import KepFactory, ReleaseFactory, SigFactory

pytestmark = pytest.mark.django_db

KEPLESS_1_4 = ["Google ContainerVM Image", "Simplified turn up"]


def run(*args, **options) -> tuple[int, str]:
    out = io.StringIO()
    try:
        call_command("import_releases", *[str(a) for a in args], stdout=out, stderr=io.StringIO(), **options)
    except CommandError as exc:
        return exc.returncode, out.getvalue()
    return 0, out.getvalue()


@pytest.fixture
def sheets(upstream_dir, tmp_path):
    """v1.4's and v1.12's release directories as shared (README, features.csv), copied file by file."""
    tree = tmp_path / "releases"
    for minor in (4, 12):
        folder = tree / f"release-1.{minor}"
        folder.mkdir(parents=True)
        for path in (upstream_dir / "sig-release" / "releases" / f"release-1.{minor}").iterdir():
            shutil.copyfile(path, folder / path.name)
    return tree


@pytest.fixture
def imported(sheets):
    status, out = run(sheets)
    assert status in (0, 1), out  # 1: an old README shape skipped, not what these tests are about
    release_stats_compute()
    return sheets


def test_every_row_of_the_1_4_sheet_is_tracked_the_two_without_issue_by_name(imported):
    rows = TrackedEnhancement.objects.filter(release__version="1.4")
    assert rows.count() == 28
    kepless = rows.filter(kep__isnull=True)
    assert sorted(kepless.values_list("feature_name", flat=True)) == KEPLESS_1_4
    # 1.4's sheet has no status column: it lists what was tracked; what shipped is not recorded.
    assert set(kepless.values_list("source", "status")) == {
        (TrackedSource.FEATURE_SHEET, EnhancementStatus.TRACKED_CODE)
    }
    assert dict(kepless.values_list("feature_name", "sig__slug")) == {
        "Simplified turn up": "sig-multicluster",
        "Google ContainerVM Image": "sig-node",
    }
    assert dict(kepless.values_list("feature_name", "target_stage")) == {
        "Simplified turn up": "alpha",
        "Google ContainerVM Image": "beta",
    }
    # Each KEP-less sheet row is linked to its tracked enhancement, with its history from the sheet.
    for row in FeatureSheetRow.objects.filter(release__version="1.4", number=None):
        assert row.tracked_enhancement.feature_name == row.name
        assert list(row.tracked_enhancement.history.values_list("source", flat=True)) == [HistorySource.FEATURE_SHEET]
    assert not TrackedEnhancement.objects.filter(release__version="1.12", kep__isnull=True).exists()


def test_the_figures_of_1_4_and_1_12_count_the_kepless_features(imported, client):
    v14 = ReleaseStats.objects.get(release__version="1.4", sig__isnull=True)
    # Neither sheet records what shipped (1.4 has no status column, 1.12 says "Tracked"): nothing counts as done,
    # and every row the release is over for says its outcome is not recorded.
    assert (v14.tracked, v14.done, v14.removed) == (28, 0, 0)
    funnel = {step["step"]: step["count"] for step in v14.funnel}
    assert (funnel["opted_in"], funnel["shipped"]) == (28, 0)
    assert v14.counts["stage"] == {"alpha": 15, "beta": 9, "stable": 4}
    by_sig = dict(
        ReleaseStats.objects.filter(release__version="1.4", sig__isnull=False).values_list("sig__slug", "tracked")
    )
    assert (by_sig["sig-multicluster"], by_sig["sig-node"]) == (7, 8)
    # 1.12's sheet names an issue on every row: nothing KEP-less to add.
    v112 = ReleaseStats.objects.get(release__version="1.12", sig__isnull=True)
    assert v112.done == 0 and v112.counts["status"]["removed_from_milestone"] == 1
    # The /releases/ table's CSV reads the same figures: no rate, and how many outcomes are not recorded.
    assert v14.tracked_at_freeze is None
    response = client.get("/releases/?_export=csv")
    rows = {
        r["Version"]: (r["Merge rate"], r["Outcome not recorded"])
        for r in csv.DictReader(io.StringIO(response.content.decode()))
    }
    assert (rows["1.4"], rows["1.12"]) == (("", "28"), ("", "37"))


def test_release_page_board_and_list_show_them_after_the_keps(imported, client):
    response = client.get("/releases/1.4/")
    assert response.status_code == 200
    html = response.content.decode()
    sheet = html.split('id="feature-sheet"')[1].split("</section>")[0]
    assert "Simplified turn up <span" in sheet and "(no KEP)" in sheet
    # The board's overview shows 15 rows a page: the KEP-less ones sort last, on page 2, by name.
    page = client.get("/releases/1.4/?te-page=2").content.decode()
    board = page.split('id="enhancements"')[1].split("</section>")[0]
    assert board.count("(feature sheet, no KEP)") == 2
    assert board.index("Google ContainerVM Image") < board.index("Simplified turn up")
    listed = client.get("/releases/1.4/enhancements/?q=turn+up").content.decode()
    assert "Simplified turn up" in listed and "(feature sheet, no KEP)" in listed
    lines = client.get("/releases/1.4/enhancements/?_export=csv").content.decode().splitlines()
    assert len(lines) == 1 + 28
    assert lines[-1].startswith(",Simplified turn up,sig-multicluster,")


def test_the_api_lists_them_with_kep_null_and_their_name(imported, client):
    answer = client.get("/api/v1/tracked-enhancements/", {"release": "1.4", "page_size": 20}).json()
    first = answer["results"]
    second = client.get(answer["next"]).json()["results"]
    results = first + second
    assert len(results) == 28 and len({row["id"] for row in results}) == 28
    assert [(row["kep"], row["feature_name"]) for row in results[-2:]] == [(None, name) for name in KEPLESS_1_4]
    assert all(row["kep"] is not None and row["feature_name"] is None for row in results[:-2])
    assert results[-1]["kep_title"] is None and results[-1]["sig"] == "sig-multicluster"
    assert results[-1]["status"] == EnhancementStatus.TRACKED_CODE
    changes = client.get("/api/v1/status-changes/", {"release": "1.4"}).json()["results"]
    assert sum(1 for change in changes if change["kep"] is None) == 2


def test_a_reimport_changes_nothing_and_a_dry_run_writes_nothing(imported, sheets):
    before = set(TrackedEnhancement.objects.values_list("pk", "status"))
    status, out = run(sheets)
    assert status in (0, 1) and "0 created, 0 updated" in out
    assert set(TrackedEnhancement.objects.values_list("pk", "status")) == before
    TrackedEnhancement.objects.filter(kep__isnull=True).delete()
    status, out = run(sheets, "--dry-run")
    assert "would be: 1.4 'Simplified turn up' tracked from the feature sheet (no KEP)" in out
    assert not TrackedEnhancement.objects.filter(kep__isnull=True).exists()


def _sheet(tmp_path, version: str, text: str):
    folder = tmp_path / f"release-{version}"
    folder.mkdir()
    (folder / "features.csv").write_text(text)
    return folder


def test_a_kepless_row_the_sheet_marks_gone_left_the_release_and_one_without_sig_stays_a_sheet_row(tmp_path):
    SigFactory(slug="sig-node")
    folder = _sheet(
        tmp_path,
        "1.7",
        "Feature Name,Feature Status,Stage,SIG,Assignee\n"
        "Shipped thing,Merged,Beta,node,alice\n"
        "Dropped thing,Removed,Alpha,node,bob\n"
        "Orphan thing,Tracked,Alpha,,carol\n"
        "Planned thing,Planned,Alpha,node,dave\n"
        "Busy thing,In Progress,Alpha,node,erin\n",
    )
    status, out = run(folder, verbosity=2)
    assert status == 0
    assert "'Orphan thing': no issue and no SIG to file it under; kept as a sheet row only" in out
    rows = dict(TrackedEnhancement.objects.filter(release__version="1.7").values_list("feature_name", "status"))
    # "Planned" and "In Progress" (as 1.11 marks 24 features) were tracked; they are not shipped.
    assert rows == {
        "Shipped thing": EnhancementStatus.DONE,
        "Dropped thing": EnhancementStatus.REMOVED,
        "Planned thing": EnhancementStatus.TRACKED_CODE,
        "Busy thing": EnhancementStatus.TRACKED_CODE,
    }
    assert FeatureSheetRow.objects.get(name="Orphan thing").tracked_enhancement is None
    release_stats_compute()
    stats = ReleaseStats.objects.get(release__version="1.7", sig__isnull=True)
    assert (stats.done, stats.removed) == (1, 1)


def test_a_row_a_former_import_counted_shipped_is_corrected_when_the_sheet_records_no_outcome(tmp_path):
    """Imports before this rule counted every sheet row shipped. Re-imported, a row whose status says nothing
    of an outcome is tracked again: the old claim superseded in its history (kept, struck through), not edited."""
    from releases.models import EnhancementStatusChange

    SigFactory(slug="sig-node")
    folder = _sheet(tmp_path, "1.7", "Feature Name,Feature Status,Stage,SIG\nThing,Merged,Beta,node\n")
    assert run(folder)[0] == 0
    row = TrackedEnhancement.objects.get(feature_name="Thing")
    assert row.status == EnhancementStatus.DONE
    (folder / "features.csv").write_text("Feature Name,Feature Status,Stage,SIG\nThing,In Progress,Beta,node\n")

    status, out = run(folder, verbosity=2)

    assert status == 0
    assert "done corrected to tracked_code (no outcome in the sheet)" in out
    row.refresh_from_db()
    assert row.status == EnhancementStatus.TRACKED_CODE
    current = list(row.history.values_list("to_status", "assumed"))
    assert current == [(EnhancementStatus.TRACKED_CODE, True)]
    assert EnhancementStatusChange.all_objects.filter(tracked_enhancement=row).count() == 2
    assert run(folder)[0] == 0 and row.history.count() == 1  # a second run changes nothing


def test_one_row_per_release_and_name_and_a_row_names_a_kep_or_a_feature():
    release, sig = ReleaseFactory(version="1.6"), SigFactory()
    row = tracked_enhancement_create(release=release, feature_name="Thing", sig=sig, status=EnhancementStatus.DONE)
    assert str(row) == "1.6 Thing (feature sheet, no KEP)"
    assert row.get_absolute_url() == "/releases/1.6/enhancements/?q=Thing"
    with pytest.raises(IntegrityError), transaction.atomic():
        tracked_enhancement_create(release=release, feature_name="Thing", sig=sig)
    with pytest.raises(ValueError):
        tracked_enhancement_create(release=release, sig=sig)
    # The same name beside a KEP, and two KEPs, are fine; a row is still only written by the tracking service.
    kep = KepFactory(number=42, owning_sig=sig)
    assert str(tracked_enhancement_create(release=release, kep=kep, feature_name="Thing")) == "1.6 KEP-42"
    with pytest.raises(StatusWriteRefused):
        TrackedEnhancement(release=release, feature_name="Other", sig=sig).save()
    # Not both: a KEP's row is named by its KEP.
    with pytest.raises(ValidationError, match="not both"):
        TrackedEnhancement(release=release, kep=KepFactory(number=43), feature_name="Other", sig=sig).full_clean()


def test_an_exception_request_about_no_kep_counts_in_its_release_s_figures(tmp_path, client):
    folder = tmp_path / "release-1.17"
    folder.mkdir()
    (folder / "exceptions.yaml").write_text(
        "# Code Freeze exception requests in 1.17\n"
        "- name: A bug fix, no KEP\n"
        "  issue: https://github.com/kubernetes/kubernetes/issues/85000\n"
        "  date_requested: 2019-11-14\n  date_reviewed: 2019-11-15\n  status: Approved\n"
        "- name: A test fix, no KEP\n"
        "  issue: https://github.com/kubernetes/kubernetes/pull/85010\n"
        "  date_requested: 2019-11-16\n  status: Pending\n"
        "- name: Topology manager\n  issue: 693\n  date_requested: 2019-11-14\n  date_reviewed: 2019-11-15\n"
        "  status: Rejected\n"
    )
    KepFactory(number=693)
    status, _ = run(folder)
    assert status == 0
    requests = EnhancementException.objects.filter(release__version="1.17")
    assert requests.count() == 3 and requests.filter(tracked_enhancement__isnull=True).count() == 2
    # Not made tracked enhancements: a kubernetes/kubernetes fix is no enhancement of the board.
    assert not TrackedEnhancement.objects.filter(kep__isnull=True).exists()
    api = client.get("/api/v1/exception-requests/", {"release": "1.17"}).json()["results"]
    assert sorted((r["kep"], r["decision"]) for r in api if r["kep"] is None) == [
        (None, ExceptionDecision.APPROVED),
        (None, ExceptionDecision.PENDING),
    ]
    html = client.get("/releases/1.17/").content.decode()
    section = html.split('id="exceptions"')[1].split("</section>")[0]
    assert "kubernetes/kubernetes/issues/85000" in section and "kubernetes/kubernetes/pull/85010" in section
    from releases import selectors, selectors_published

    release = requests.first().release
    _, counts = selectors_published.release_exception_requests(release=release)
    assert [(c.freeze, c.total) for c in counts] == [(Freeze.CODE, 3)]
    assert dict(selectors.release_exception_counts(release=release)) == {"approved": 1, "pending": 1, "rejected": 1}
    assert [r.issue_url for r in selectors.release_pending_exceptions(release=release)] == [
        "https://github.com/kubernetes/kubernetes/pull/85010"
    ]


def test_admin_feeds_and_history_pages_with_a_kepless_row(imported, admin_client, client):
    from django.urls import reverse

    row = TrackedEnhancement.objects.get(feature_name="Simplified turn up")
    changelist = reverse("admin:releases_trackedenhancement_changelist")
    page = admin_client.get(changelist, {"release__id__exact": row.release_id, "q": "turn up"})
    assert page.status_code == 200 and "Simplified turn up" in page.content.decode()
    change = admin_client.get(reverse("admin:releases_trackedenhancement_change", args=[row.pk]))
    assert change.status_code == 200
    assert admin_client.get(reverse("admin:releases_featuresheetrow_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:releases_enhancementstatuschange_changelist")).status_code == 200
    feed = client.get("/feeds/releases/1.4/status.atom")
    assert feed.status_code == 200 and "Simplified turn up (feature sheet, no KEP)" in feed.content.decode()
    assert client.get("/feeds/sigs/sig-multicluster/status.atom").status_code == 200
    assert client.get("/").status_code == 200


def test_a_kepless_feature_renamed_in_the_sheet_stays_one_row_with_its_history(tmp_path):
    SigFactory(slug="sig-node")
    header = "Feature Name,Feature Status,Stage,SIG,Assignee\n"
    folder = _sheet(tmp_path, "1.8", header + "Thing one,Tracked,Beta,node,alice\nOther,Tracked,Alpha,node,bob\n")
    run(folder)
    row = TrackedEnhancement.objects.get(feature_name="Thing one")
    (folder / "features.csv").write_text(header + "Thing 1,Tracked,Beta,node,alice\nOther,Tracked,Alpha,node,bob\n")
    status, out = run(folder, verbosity=2)
    assert status == 0 and "1.8 'Thing one' renamed 'Thing 1'" in out
    assert sorted(TrackedEnhancement.objects.values_list("feature_name", flat=True)) == ["Other", "Thing 1"]
    row.refresh_from_db()
    assert row.feature_name == "Thing 1" and row.history.count() == 1
    assert FeatureSheetRow.objects.get(name="Thing 1").tracked_enhancement == row
    assert "nothing to change" in run(folder)[1]
