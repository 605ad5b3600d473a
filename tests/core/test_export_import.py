"""export_data / import_data round-trip the whole database, byte for byte."""

import datetime
import json

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from community.roles import sig_membership_grant
from keps.models import Kep
from releases.models import EnhancementStatusChange, TrackedEnhancement
from tests.factories import (
    AgendaItemFactory,
    DesignGroupFactory,
    FeatureGateFactory,
    KepFactory,
    MilestoneFactory,
    PersonFactory,
    PrrApprovalFactory,
    RetroItemFactory,
    TrackedEnhancementFactory,
)


def _fill():
    people = [PersonFactory(github=f"Person{i}") for i in range(3)]
    kep = KepFactory(number=1287, title="In-place Pod vertical scaling — «résumé»")
    kep.authors.set(people)
    kep.participating_sigs.add(kep.owning_sig)
    group = DesignGroupFactory(slug="in-place-resize")
    group.keps.add(kep, KepFactory(number=5419))
    FeatureGateFactory(kep=kep, components=["kubelet", "kube-apiserver"])
    PrrApprovalFactory(kep=kep, stage="beta")
    tracked = TrackedEnhancementFactory(kep=kep)
    EnhancementStatusChange.objects.create(
        tracked_enhancement=tracked,
        to_status="removed_from_milestone",
        changed_at=datetime.datetime(2022, 4, 26, 16, 30, 1, 123456, tzinfo=datetime.UTC),
        note="missed code freeze",
    )
    MilestoneFactory(release=tracked.release, at=timezone.now().replace(microsecond=654321))
    RetroItemFactory(retrospective__release=tracked.release, category="action_item", status="open", owner=people[0])
    item = AgendaItemFactory(links=["https://github.com/kubernetes/kubernetes/pull/102884"])
    item.keps.add(kep)
    item.presenters.add(people[1])
    user = get_user_model().objects.create_user("wrangler", password="x" * 12)
    sig_membership_grant(user=user, sig=kep.owning_sig, role="liaison")
    LogEntry.objects.create(
        user=user,
        content_type=ContentType.objects.get_for_model(TrackedEnhancement),
        object_id=str(tracked.pk),
        object_repr=str(tracked),
        action_flag=CHANGE,
        change_message="Changed status.",
    )


@pytest.mark.django_db(transaction=True)
def test_export_import_export_is_identical(tmp_path):
    _fill()
    first = tmp_path / "first.json"
    call_command("export_data", str(first), verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    assert not Kep.objects.exists()

    call_command("import_data", str(first), verbosity=0)
    second = tmp_path / "second.json"
    call_command("export_data", str(second), verbosity=0)

    assert first.read_bytes() == second.read_bytes()
    rows = json.loads(first.read_text())
    models = {row["model"] for row in rows}
    assert {"keps.kep", "releases.enhancementstatuschange", "meetings.agendaitem", "admin.logentry"} <= models
    assert "2022-04-26T16:30:01.123456+00:00" in first.read_text()
    # Imported rows work as before: sequences were reset, so new rows get fresh ids.
    assert KepFactory(number=9999).pk
    assert TrackedEnhancementFactory().pk


@pytest.mark.django_db
def test_import_refuses_a_database_that_is_not_empty(tmp_path):
    export = tmp_path / "export.json"
    export.write_text("[]")
    KepFactory()
    with pytest.raises(CommandError, match="not empty"):
        call_command("import_data", str(export), verbosity=0)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "content,message",
    [("{not json", "not a JSON export"), ('{"a": 1}', "expected a list"), ('[{"model": "keps.nosuch"}]', "nosuch")],
)
def test_bad_export_files_change_nothing(tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(CommandError, match=message):
        call_command("import_data", str(bad), verbosity=0)
    assert not Kep.objects.exists()


@pytest.mark.django_db
def test_a_bad_row_rolls_back_the_whole_import(tmp_path):
    rows = [
        {
            "model": "community.sig",
            "fields": {"slug": "sig-node", "name": "", "mailing_list": "", "reminder_offsets": []},
        },
        {"model": "keps.kep", "fields": {"number": 0, "title": "bad", "owning_sig": ["sig-node"]}},
    ]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rows))
    with pytest.raises(CommandError, match="bad.json"):
        call_command("import_data", str(bad), verbosity=0)
    from community.models import Sig

    assert not Sig.objects.exists()


def test_missing_file_is_a_clear_error(tmp_path, db):
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_data", str(tmp_path / "nope.json"), verbosity=0)


#: Where models lived before they moved to apps of their own (their tables kept the old names).
FORMER_LABELS = {
    "retros.retrospective": "releases.retrospective",
    "retros.retroitem": "releases.retroitem",
    "community.sig": "keps.sig",
    "community.person": "keps.person",
    "reminders.reminderdelivery": "releases.reminderdelivery",
}


def _as_before_the_moves(text: str) -> str:
    """An export as a sigtracker from before the moves wrote it: former model labels, content types and
    permissions."""
    rows = json.loads(text)
    for row in rows:
        row["model"] = FORMER_LABELS.get(row["model"], row["model"])
        fields = row["fields"]

        def former(key):
            label = ".".join(key[-2:])
            return [*key[:-2], *FORMER_LABELS[label].split(".")] if label in FORMER_LABELS else key

        if isinstance(fields.get("content_type"), list):
            fields["content_type"] = former(fields["content_type"])
        for name in ("permissions", "user_permissions"):
            if name in fields:
                fields[name] = [former(key) for key in fields[name]]
    return json.dumps(rows)


@pytest.mark.django_db(transaction=True)
def test_an_export_from_before_the_retros_moved_still_imports(tmp_path):
    from django.contrib.auth.models import Group, Permission

    from retros.models import RetroItem, Retrospective

    _fill()
    retro = Retrospective.objects.get()
    user = get_user_model().objects.get(username="wrangler")
    LogEntry.objects.create(
        user=user,
        content_type=ContentType.objects.get_for_model(Retrospective),
        object_id=str(retro.pk),
        object_repr=str(retro),
        action_flag=CHANGE,
        change_message="Changed summary.",
    )
    curators = Group.objects.create(name="retro keepers")
    curators.permissions.add(Permission.objects.get(codename="change_retroitem"))
    current = tmp_path / "current.json"
    call_command("export_data", str(current), verbosity=0)
    old = tmp_path / "old.json"
    old.write_text(_as_before_the_moves(current.read_text()))
    assert {"releases.retrospective", "keps.sig"} <= {row["model"] for row in json.loads(old.read_text())}
    call_command("flush", interactive=False, verbosity=0)

    call_command("import_data", str(old), verbosity=0)

    assert RetroItem.objects.get().retrospective.release.version == retro.release.version
    entry = LogEntry.objects.get(change_message="Changed summary.")
    assert entry.content_type.model_class() is Retrospective
    assert Group.objects.get(name="retro keepers").permissions.get().content_type.app_label == "retros"
    again = tmp_path / "again.json"
    call_command("export_data", str(again), verbosity=0)
    assert again.read_bytes() == current.read_bytes()
