"""The board's other columns, the weekly numbers and the checklist comment.

The expected texts under tests/releases/data/ were built from the demo fixtures (1.24's 23 tracked KEPs of SIG
Node) and read line by line against fixtures/*.yaml; `SIGTRACKER_REWRITE_EXPECTED=1` rewrites them after a
deliberate change of wording (then read the diff).
"""

import datetime
import os
from pathlib import Path

import pytest
from django.core.management import call_command

from releases import selectors
from releases.choices import DocsStatus, EnhancementStatus, ExceptionDecision, Freeze
from releases.models import EnhancementException, Release, TrackedEnhancement
from releases.services.board import (
    BoardCount,
    ChecklistFacts,
    checklist_comment,
    weekly_numbers,
    weekly_update_markdown,
)

DATA = Path(__file__).parent / "data"
REWRITE = os.environ.get("SIGTRACKER_REWRITE_EXPECTED") == "1"
AS_OF = datetime.date(2022, 4, 26)  # the SIG Node meeting that listed 1.24's board


def expect_text(name: str, actual: str):
    path = DATA / name
    if REWRITE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
    assert actual == path.read_text(), f"{name} differs; see the diff above"


@pytest.fixture
def demo(db):
    from devdata.fixtures import FIXTURE_FILES

    call_command("loaddata", *FIXTURE_FILES, verbosity=0)
    return Release.objects.get(version="1.24")


def checklists_text(release) -> str:
    rows = TrackedEnhancement.objects.filter(release=release).select_related("kep", "release").order_by("kep__number")
    parts = []
    for row in rows:
        parts.append(
            f"<!-- KEP-{row.kep.number} -->\n" + selectors.tracked_enhancement_checklist(tracked_enhancement=row)
        )
    return "\n".join(parts)


# -- expected texts from the 1.24 data ----------------------------------------------------------------------------


def test_weekly_markdown_of_1_24_matches_the_expected_text(demo):
    numbers = selectors.release_weekly_numbers(release=demo)
    assert numbers.overall.total == 23 and numbers.overall.in_play == 6
    markdown = weekly_update_markdown(version=demo.version, numbers=numbers, as_of=AS_OF)
    expect_text("weekly-1.24.md", markdown)


def test_checklist_comments_of_1_24_match_the_expected_text(demo):
    expect_text("checklists-1.24.md", checklists_text(demo))


# -- the pure functions ---------------------------------------------------------------------------------------------


def facts(**overrides) -> ChecklistFacts:
    values = dict(
        kep_number=2727,
        version="1.24",
        owners=("SergeyKanzhelev",),
        stage="beta",
        has_kep_yaml=True,
        kep_status="implementable",
        latest_milestone="1.24",
        prr_approver="deads2k",
        opted_in=True,
        docs_placeholder=True,
        freeze_at=datetime.datetime(2022, 2, 4, 2, 0, tzinfo=datetime.UTC),
    )
    return ChecklistFacts(**{**values, **overrides})


def test_checklist_all_ticked_is_the_tracked_template():
    text = checklist_comment(facts())
    assert text.startswith("Hello @SergeyKanzhelev 👋, v1.24 Enhancements team here.")
    assert "**02:00 UTC Friday 4 February 2022 / 18:00 PST Thursday 3 February 2022**" in text
    assert "- [ ]" not in text and text.count("- [x]") == 5
    assert "PRR approver listed for `beta`: @deads2k" in text
    assert "marked as `Tracked for enhancements freeze`" in text and text.endswith("/label tracked/yes\n")


@pytest.mark.parametrize(
    ("override", "todo"),
    [
        ({"opted_in": False}, "add the `lead-opted-in` label and `/milestone v1.24`"),
        ({"has_kep_yaml": False}, "merge kep.yaml into k/enhancements"),
        ({"stage": ""}, "merge kep.yaml into k/enhancements with the `stage` set"),
        ({"latest_milestone": "1.23"}, "`latest-milestone: v1.24` in kep.yaml"),
        ({"kep_status": "provisional"}, "set `status: implementable`"),
        ({"prr_approver": ""}, "production readiness review for `beta` approved"),
    ],
)
def test_checklist_one_missing_requirement_is_the_at_risk_template(override, todo):
    text = checklist_comment(facts(**override))
    assert "- [ ]" in text
    assert "For this KEP, we would just need to update the following:" in text and todo in text
    assert "marked as `At risk for enhancements freeze`" in text and "/label" not in text


def test_checklist_docs_placeholder_is_listed_but_does_not_decide_the_freeze():
    text = checklist_comment(facts(docs_placeholder=False))
    assert "- [ ] A docs placeholder PR is open in kubernetes/website" in text
    assert "marked as `Tracked for enhancements freeze`" in text
    assert "- open a docs placeholder PR in kubernetes/website" in text


def test_weekly_numbers_by_stage_count_only_rows_in_play_and_sigs_come_sorted():
    numbers = weekly_numbers(
        counts=[
            BoardCount("sig-node", EnhancementStatus.TRACKED_CODE, "beta", 3),
            BoardCount("sig-node", EnhancementStatus.REMOVED, "beta", 2),
            BoardCount("sig-auth", EnhancementStatus.AT_RISK_CODE, "", 1),
        ],
        exceptions=[(ExceptionDecision.PENDING, 2)],
    )
    assert numbers.overall.total == 6 and numbers.overall.in_play == 4
    assert numbers.overall.by_stage == [("Beta", 3), ("No stage", 1)]
    assert [sig for sig, _ in numbers.sigs] == ["sig-auth", "sig-node"]
    assert numbers.exceptions == [("Pending", 2)]


# -- the selectors over the database --------------------------------------------------------------------------------


def test_checklist_reads_the_prr_file_for_the_rows_stage_and_the_docs_status(demo):
    row = TrackedEnhancement.objects.get(release=demo, kep__number=2133)  # Kubelet credential provider, beta
    before = selectors.tracked_enhancement_checklist(tracked_enhancement=row)
    row.docs_status = DocsStatus.PLACEHOLDER
    row.save()
    after = selectors.tracked_enhancement_checklist(tracked_enhancement=row)
    assert "- [ ] A docs placeholder PR" in before and "- [x] A docs placeholder PR" in after


def test_pending_exceptions_earliest_deadline_first(demo):
    rows = list(TrackedEnhancement.objects.filter(release=demo).order_by("kep__number")[:3])
    requested = datetime.datetime(2022, 3, 29, tzinfo=datetime.UTC)
    late = EnhancementException.objects.create(
        tracked_enhancement=rows[0], freeze=Freeze.CODE, requested_at=requested, deadline=requested.replace(day=31)
    )
    early = EnhancementException.objects.create(
        tracked_enhancement=rows[1], freeze=Freeze.CODE, requested_at=requested, deadline=requested.replace(day=30)
    )
    EnhancementException.objects.create(
        tracked_enhancement=rows[2],
        freeze=Freeze.CODE,
        requested_at=requested,
        decision=ExceptionDecision.REJECTED,
        decided_at=requested.replace(day=30),
    )
    assert selectors.release_pending_exceptions(release=demo) == [early, late]
    assert dict(selectors.release_exception_counts(release=demo)) == {"pending": 2, "rejected": 1}


# -- retro items in the admin: a form per category ------------------------------------------------------------------


def _retro_post(retro, **items):
    data = {"release": retro.release_id, "sig": retro.sig_id, "date": "", "source_url": "", "summary": ""}
    data.update({"recorded_tracked": "", "recorded_merged": ""})
    for prefix in ("items", "items-2", "items-3", "items-4"):  # went well, to improve, action items, to discuss
        rows = items.get(prefix, [])
        data.update({f"{prefix}-TOTAL_FORMS": str(len(rows)), f"{prefix}-INITIAL_FORMS": "0"})
        for index, row in enumerate(rows):
            data.update({f"{prefix}-{index}-{name}": value for name, value in row.items()})
    return data


def test_retro_admin_has_a_form_per_category_and_action_items_default_to_open(admin_client):
    from django.urls import reverse

    from retros.models import RetroItem
    from tests.factories import PersonFactory, RetrospectiveFactory

    retro = RetrospectiveFactory()
    url = reverse("admin:retros_retrospective_change", args=[retro.pk])
    page = admin_client.get(url).content.decode()
    assert "Went well" in page and "To improve" in page and "Action items" in page
    owner = PersonFactory(github="derekwaynecarr")
    # The action item's status select starts at "open".
    assert 'name="items-3-__prefix__-status"' in page
    empty_form = page.split('id="items-3-empty"')[1].split("</tr>")[0]
    assert '<option value="open" selected>' in empty_form
    assert 'name="items-__prefix__-owner"' not in page  # went well is text only

    response = admin_client.post(
        url,
        _retro_post(
            retro,
            **{
                "items": [{"text": "Soft freeze helped", "order": "0"}],
                "items-2": [{"text": "Too many late exceptions", "order": "0"}],
                "items-3": [{"text": "No changes without tests", "owner": owner.pk, "status": "open", "order": "0"}],
            },
        ),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    items = {item.category: item for item in RetroItem.objects.filter(retrospective=retro)}
    assert (items["went_well"].text, items["went_well"].status) == ("Soft freeze helped", "")
    assert items["to_improve"].text == "Too many late exceptions"
    assert (items["action_item"].owner, items["action_item"].status) == (owner, "open")


def test_retro_admin_shows_errors_at_the_field(admin_client):
    from django.urls import reverse

    from tests.factories import RetrospectiveFactory

    retro = RetrospectiveFactory()
    url = reverse("admin:retros_retrospective_change", args=[retro.pk])
    response = admin_client.post(url, _retro_post(retro, **{"items-3": [{"text": "", "status": "", "order": "0"}]}))
    assert response.status_code == 200
    formset = next(f for f in response.context["inline_admin_formsets"] if f.formset.prefix == "items-3")
    errors = formset.formset.forms[0].errors
    assert set(errors) == {"text", "status"}


# -- reminders: pending exception requests in the digest -----------------------------------------------------------


def test_digest_lists_pending_exception_requests_with_their_deadlines(db):
    from releases.choices import MilestoneKind
    from reminders.due import reminders_due
    from reminders.render_email import render_digest
    from tests.digest_scene import FREEZE, NODE_LIST, WEEK_BEFORE
    from tests.digest_scene import tracked_kep as _kep
    from tests.factories import MilestoneFactory, ReleaseFactory, SigFactory

    release = ReleaseFactory(version="1.26")
    MilestoneFactory(release=release, kind=MilestoneKind.CODE_FREEZE, at=FREEZE)
    node = SigFactory(slug="sig-node", mailing_list=NODE_LIST)
    pending = _kep(release, node, 3100, EnhancementStatus.EXCEPTION_PENDING, title="Pending one")
    decided = _kep(release, node, 3200, EnhancementStatus.EXCEPTION_APPROVED, title="Decided one")
    asked = WEEK_BEFORE - datetime.timedelta(days=1)
    EnhancementException.objects.create(
        tracked_enhancement=pending,
        freeze=Freeze.ENHANCEMENTS,
        requested_at=asked,
        deadline=FREEZE - datetime.timedelta(days=2),
        thread_url="https://groups.google.com/g/kubernetes-sig-release/c/abc",
    )
    EnhancementException.objects.create(
        tracked_enhancement=decided,
        freeze=Freeze.ENHANCEMENTS,
        requested_at=asked,
        decision=ExceptionDecision.APPROVED,
        decided_at=asked + datetime.timedelta(hours=5),
    )
    (due,) = reminders_due(now=WEEK_BEFORE)
    message = render_digest(dues=due, recipient=NODE_LIST, as_of=WEEK_BEFORE)
    text = message.text.split("Exception requests waiting for the release team's decision:")[1]
    assert "- KEP-3100 Pending one [sig-node]: Enhancements freeze, requested 2022-11-08 01:00 UTC" in text
    assert "deadline 2022-11-14 01:00 UTC" in text and "groups.google.com/g/kubernetes-sig-release/c/abc" in text
    assert "KEP-3200" not in text
    assert "<strong>deadline 2022-11-14 01:00 UTC</strong>" in message.html
