"""`manage.py import_sigs`: on the shared copy of kubernetes/community's sigs.yaml and on a hand-made older file."""

import datetime
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from community.models import Person, Sig, SigLeadership, SigMeeting
from tests.factories import KepFactory, PersonFactory, SigFactory

pytestmark = pytest.mark.django_db

#: The 2018-2019 shape (leadership: chairs, no emails, forum URLs, meetings without tz or frequency) next to the
#: 2017 one (no dir, leads:, utc: times, links on the group).
OLDER = """\
sigs:
- dir: sig-node
  name: Node
  mission_statement: >
    Components that control pods and host resources.
  label: node
  leadership:
    chairs:
    - github: dchen1107
      name: Dawn Chen
      company: Google
    - github: derekwaynecarr
      name: Derek Carr
      company: Red Hat
  meetings:
  - description: Regular SIG Meeting
    day: Tuesday
    time: "10:00"
  contact:
    slack: sig-node
    mailing_list: https://groups.google.com/forum/#!forum/kubernetes-sig-node
- name: Scheduling
  leads:
  - github: bsalamat
    name: Bobby Salamat
  meetings:
  - day: Thursday
    utc: "17:00"
    frequency: biweekly
  meeting_url: https://zoom.us/j/7767391691
  contact:
    mailing_list: https://groups.google.com/forum/#!forum/kubernetes-sig-scheduling
workinggroups:
- dir: wg-resource-management
  name: Resource Management
  contact:
    mailing_list: https://groups.google.com/g/kubernetes-wg-resource-management
"""


def run(path, **options):
    out, err = StringIO(), StringIO()
    call_command("import_sigs", str(path), stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def run_failing(path, **options):
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError) as exc:
        call_command("import_sigs", str(path), stdout=out, stderr=err, **options)
    return exc.value, out.getvalue(), err.getvalue()


@pytest.fixture
def shared_sigs_yaml(upstream_dir):
    return upstream_dir / "community" / "sigs.yaml"


@pytest.fixture
def older(tmp_path):
    path = tmp_path / "sigs.yaml"
    path.write_text(OLDER)
    return path


def test_shared_copy_imports_sigs_groups_and_committees(shared_sigs_yaml):
    out, err = run(shared_sigs_yaml)
    assert err == ""
    node = Sig.objects.get(slug="sig-node")
    assert (node.kind, node.name, node.label, node.in_community) == ("sig", "Node", "node", True)
    assert node.mailing_list == "sig-node@kubernetes.io"
    assert node.mailing_list_url == "https://groups.google.com/a/kubernetes.io/g/sig-node"
    assert node.slack_channel == "sig-node" and node.mission
    assert Sig.objects.get(slug="sig-api-machinery").mailing_list == "kubernetes-sig-api-machinery@googlegroups.com"
    assert Sig.objects.get(slug="wg-batch").kind == "wg"
    assert Sig.objects.get(slug="committee-steering").kind == "committee"
    chairs = SigLeadership.objects.filter(sig=node, role="chair").select_related("person")
    assert chairs and all(c.person.email and c.person.name for c in chairs)
    assert SigLeadership.objects.filter(sig=node, role="tech_lead").exists()
    meeting = SigMeeting.objects.filter(sig=node).first()
    assert meeting.day is not None and meeting.time is not None and meeting.tz == "America/Los_Angeles"
    assert meeting.archive_url.startswith("https://")
    assert "0 skipped" in out and f"{Sig.objects.count()} created" in out


def test_rerun_changes_nothing_and_dry_run_writes_nothing(shared_sigs_yaml):
    out, _ = run(shared_sigs_yaml, dry_run=True)
    assert "would be created" in out and Sig.objects.count() == 0 and Person.objects.count() == 0
    run(shared_sigs_yaml)
    counts = (Sig.objects.count(), Person.objects.count(), SigLeadership.objects.count(), SigMeeting.objects.count())
    out, _ = run(shared_sigs_yaml)
    assert "nothing to change" in out
    assert counts == (
        Sig.objects.count(),
        Person.objects.count(),
        SigLeadership.objects.count(),
        SigMeeting.objects.count(),
    )


def test_checkout_folder_is_accepted(shared_sigs_yaml):
    run(shared_sigs_yaml.parent)
    assert Sig.objects.filter(in_community=True).exists()


def test_older_format_sample(older):
    out, err = run(older)
    assert err == ""
    node = Sig.objects.get(slug="sig-node")
    assert node.mailing_list == "kubernetes-sig-node@googlegroups.com"
    assert set(node.leaderships.values_list("person__github", "role")) == {
        ("dchen1107", "chair"),
        ("derekwaynecarr", "chair"),
    }
    assert Person.objects.get(github="dchen1107").email == ""  # emails came in 2021
    (node_meeting,) = node.regular_meetings.all()
    assert (node_meeting.day, node_meeting.time, node_meeting.tz) == (1, datetime.time(10), "")
    assert "tz: missing" in out  # said, not guessed
    scheduling = Sig.objects.get(slug="sig-scheduling")
    assert (scheduling.name, scheduling.label) == ("Scheduling", "scheduling")
    assert list(scheduling.leaderships.values_list("person__github", "role")) == [("bsalamat", "chair")]
    (meeting,) = scheduling.regular_meetings.all()
    assert (meeting.tz, meeting.frequency, meeting.url) == ("UTC", "biweekly", "https://zoom.us/j/7767391691")
    wg = Sig.objects.get(slug="wg-resource-management")
    assert (wg.kind, wg.mailing_list) == ("wg", "kubernetes-wg-resource-management@googlegroups.com")


def test_a_newer_file_updates_in_place(older, shared_sigs_yaml):
    run(older)
    node_id = Sig.objects.get(slug="sig-node").pk
    out, _ = run(shared_sigs_yaml)
    node = Sig.objects.get(slug="sig-node")
    assert node.pk == node_id and node.mailing_list == "sig-node@kubernetes.io"
    assert "updated" in out
    # Derek Carr chaired in the older file; in the shared copy he no longer chairs sig-node.
    assert not node.leaderships.filter(person__github="derekwaynecarr", role="chair").exists()
    assert Person.objects.filter(github="derekwaynecarr").exists()


def test_sig_first_named_in_a_kep_becomes_the_community_sig(older):
    kep = KepFactory(owning_sig=SigFactory(slug="sig-node", mailing_list="", in_community=False))
    run(older)
    kep.refresh_from_db()
    assert kep.owning_sig.slug == "sig-node" and kep.owning_sig.in_community
    assert Sig.objects.filter(slug="sig-node").count() == 1


def test_curators_person_details_win(older):
    PersonFactory(github="DChen1107", name="Dawn", email="dawn@example.com")
    run(older)
    person = Person.objects.get(github__iexact="dchen1107")
    assert (person.github, person.name, person.email) == ("DChen1107", "Dawn", "dawn@example.com")
    assert Person.objects.filter(github__iexact="dchen1107").count() == 1


def test_bad_groups_are_skipped_one_line_each_and_the_rest_imported(tmp_path):
    path = tmp_path / "sigs.yaml"
    path.write_text("sigs:\n- dir: sig-good\n- dir: 'Bad Dir!'\n- nope\nworkinggroups: 3\n")
    exc, out, err = run_failing(path)
    assert exc.returncode == 1
    lines = err.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("skipped: ") for line in lines)
    assert "sigs[1].dir" in lines[0] and "sigs[2]" in lines[1] and "workinggroups" in lines[2]
    assert Sig.objects.filter(slug="sig-good", in_community=True).exists()


def test_unusable_file_is_skipped_whole(tmp_path):
    path = tmp_path / "sigs.yaml"
    path.write_text("keps: []\n")
    exc, _, err = run_failing(path)
    assert exc.returncode == 1 and "not a sigs.yaml" in err
    assert not Sig.objects.exists()


def test_missing_path_is_a_usage_error(tmp_path):
    exc, _, _ = run_failing(tmp_path / "nowhere.yaml")
    assert exc.returncode == 2
    exc, _, _ = run_failing(tmp_path)  # a folder without sigs.yaml
    assert exc.returncode == 2


# -- kep.yaml spellings go through the alias table (import_keps) ---------------------------------------------


def _kep_tree(tmp_path, *, owning="sig-node", participating=(), approvers=("@alice",)):
    folder = tmp_path / "enhancements" / "keps" / owning / "1234-thing"
    folder.mkdir(parents=True)
    lines = ["title: A thing", "kep-number: 1234", f"owning-sig: {owning}", "participating-sigs:"]
    lines += [f"  - {spelling}" for spelling in participating] or ["  []"]
    lines += ["approvers:", *[f"  - '{person}'" for person in approvers], "status: implementable"]
    (folder / "kep.yaml").write_text("\n".join(lines).replace("participating-sigs:\n  []", "participating-sigs: []"))
    return tmp_path / "enhancements"


def import_keps(path):
    out, err = StringIO(), StringIO()
    call_command("import_keps", str(path), stdout=out, stderr=err)
    return out.getvalue()


def test_kep_spellings_map_through_aliases_and_unknown_ones_are_reported(tmp_path, older):
    run(older)  # sig-node, sig-scheduling, wg-resource-management are the community now
    tree = _kep_tree(tmp_path, participating=["sig-scheduler", "sig-machinery", "TBD", "sig-jobset", "sig-node"])
    out = import_keps(tree)
    from keps.models import Kep

    kep = Kep.objects.get(number=1234)
    assert set(kep.participating_sigs.values_list("slug", flat=True)) == {
        "sig-scheduling",
        "sig-api-machinery",
        "sig-node",
    }
    assert not Sig.objects.filter(slug__in=["sig-scheduler", "sig-machinery", "TBD", "tbd", "sig-jobset"]).exists()
    reported = [line for line in out.splitlines() if "sig-jobset" in line]
    assert len(reported) == 1 and "participating-sigs" in reported[0] and "dropped" in reported[0]
    assert "sig-scheduler" not in out  # a known alias is not a problem to report
    assert "nothing to change" in import_keps(tree)


def test_unknown_owning_sig_still_imports_the_kep_outside_the_community(tmp_path, older):
    run(older)
    out = import_keps(_kep_tree(tmp_path, owning="sig-jobset"))
    from keps.models import Kep

    assert Kep.objects.get(number=1234).owning_sig.slug == "sig-jobset"
    assert not Sig.objects.get(slug="sig-jobset").in_community
    assert len([line for line in out.splitlines() if "owning-sig" in line and "sig-jobset" in line]) == 1


def test_without_sigs_yaml_spellings_are_kept_but_aliases_still_apply(tmp_path):
    import_keps(_kep_tree(tmp_path, participating=["sig-scheduler", "sig-jobset"]))
    from keps.models import Kep

    kep = Kep.objects.get(number=1234)
    assert set(kep.participating_sigs.values_list("slug", flat=True)) == {"sig-scheduling", "sig-jobset"}


@pytest.mark.parametrize("placeholder", ["@TBD", "TBD", "@tbd", "TODO", "@todo", "", "Someone (@TBD)"])
def test_no_person_called_tbd(tmp_path, placeholder):
    import_keps(_kep_tree(tmp_path, approvers=(placeholder, "@alice")))
    assert sorted(Person.objects.values_list("github", flat=True)) == ["alice"]


# -- SIG filters list the community's SIGs -------------------------------------------------------------------


def _options(client, url: str, name: str) -> set[str]:
    import re

    html = client.get(url).content.decode()
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', html, re.S)
    return set(re.findall(r'<option value="([^"]+)"', select.group(1)))


def test_sig_filters_show_community_sigs_only_once_sigs_yaml_is_imported(client, older):
    from releases.models import Release

    for slug in ("sig-node", "TBD", "sig-machinery", "sig-scheduler"):
        SigFactory(slug=slug)
    release = Release.objects.create(version="1.27")
    pages = [
        ("/keps/", "owning_sig"),
        ("/keps/", "participating_sig"),
        ("/meetings/", "sig"),
        (f"/releases/{release.version}/enhancements/", "sig"),
    ]
    for url, name in pages:  # before: every SIG row, as the demo has them
        assert {"TBD", "sig-machinery"} <= _options(client, url, name)
    run(older)
    for url, name in pages:
        assert _options(client, url, name) == {"sig-node", "sig-scheduling", "wg-resource-management"}, url


# -- reminders reach the SIG's list and its leaders -----------------------------------------------------------


def test_digest_goes_to_the_imported_list_and_notes_to_chairs_and_tech_leads_with_email(tmp_path):
    from zoneinfo import ZoneInfo

    from releases.choices import EnhancementStatus, MilestoneKind
    from releases.models import EnhancementStatusChange
    from reminders.choices import ReminderKind
    from reminders.planning import reminder_deliveries_plan
    from reminders.wording import ROLE_LABELS
    from tests.factories import MilestoneFactory, ReleaseFactory, TrackedEnhancementFactory

    path = tmp_path / "sigs.yaml"
    path.write_text(
        "sigs:\n- dir: sig-node\n  leadership:\n    chairs:\n    - github: dana\n      email: dana@example.com\n"
        "    tech_leads:\n    - github: erin\n  contact:\n"
        "    mailing_list: https://groups.google.com/a/kubernetes.io/g/sig-node\n"
    )
    run(path)
    freeze = datetime.datetime(2022, 11, 7, 18, 0, tzinfo=ZoneInfo("America/Los_Angeles")).astimezone(datetime.UTC)
    release = ReleaseFactory(version="1.26")
    MilestoneFactory(release=release, kind=MilestoneKind.ENHANCEMENTS_FREEZE, at=freeze)
    node = Sig.objects.get(slug="sig-node")
    opened = freeze - datetime.timedelta(days=30)
    row = TrackedEnhancementFactory(release=release, kep=KepFactory(owning_sig=node), sig=node, created_at=opened)
    EnhancementStatusChange.objects.create(
        tracked_enhancement=row, from_status="", to_status=EnhancementStatus.AT_RISK_ENHANCEMENTS, changed_at=opened
    )
    row.status = EnhancementStatus.AT_RISK_ENHANCEMENTS
    row.save()

    planned = reminder_deliveries_plan(now=freeze - datetime.timedelta(hours=24))
    assert {(p.kind, p.recipient) for p in planned} == {
        (ReminderKind.DIGEST, "sig-node@kubernetes.io"),
        (ReminderKind.PERSONAL, "dana@example.com"),  # erin has no email in sigs.yaml
    }
    assert ROLE_LABELS["chair"] == "SIG chair"


@pytest.mark.django_db(transaction=True)
def test_known_aliases_come_back_after_a_flush_but_a_curators_deletion_stays():
    from django.core.management import call_command

    from community.models import SigAlias

    call_command("flush", interactive=False, verbosity=0)
    assert SigAlias.objects.get(spelling="sig-machinery").sig_slug == "sig-api-machinery"
    SigAlias.objects.filter(spelling="sig-scheduler").delete()
    call_command("migrate", verbosity=0)  # post_migrate runs again; the table is not empty
    assert not SigAlias.objects.filter(spelling="sig-scheduler").exists()
