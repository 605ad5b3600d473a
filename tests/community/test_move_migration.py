"""A database migrated while SIGs and people belonged to `keps` keeps its rows, its permissions and its admin
history when community/0001-0002 take the models over.

The old state is rebuilt as a deploy of that time left it: every app migrated to its last migration before the
move, the content types of the six models labelled `keps`, and rows in their tables (written with SQL, as the
models of that time would have). Then the database is migrated forward and read through the new models.
"""

import pytest

from tests.scratch_db import manage, manage_steps

pytestmark = pytest.mark.django_db

BEFORE_THE_MOVE = [
    ("core", "0004"),
    ("keps", "0006_kep_plan_history"),
    ("releases", "0009_tracking_board"),
    ("meetings", "0003_agendaitem_stored_search_vector"),
    ("people", "0003_profile_github_id"),
]
MOVED = ["sig", "person", "sigmembership", "sigleadership", "sigmeeting", "sigalias"]

OLD_ROWS = """
from django.db import connection
from django.contrib.auth.models import Permission, Group
from django.contrib.contenttypes.models import ContentType
with connection.cursor() as cursor:
    cursor.execute("UPDATE django_content_type SET app_label = 'keps' WHERE app_label = 'community'")
    cursor.execute("INSERT INTO keps_sig (slug, name, mailing_list, reminder_offsets, kind, label, mission, "
                   "mailing_list_url, slack_channel, in_community) VALUES ('sig-old', 'SIG Old', '', '[]', 'sig', "
                   "'old', '', '', '', true)")
    cursor.execute("INSERT INTO keps_person (github, name, email, reminders_opt_out) "
                   "VALUES ('oldtimer', '', '', false)")
    cursor.execute("INSERT INTO keps_sigleadership (sig_id, person_id, role) SELECT s.id, p.id, 'chair' "
                   "FROM keps_sig s, keps_person p WHERE s.slug = 'sig-old' AND p.github = 'oldtimer'")
    cursor.execute("INSERT INTO keps_kep (number, title, slug, owning_sig_id, status, stage, latest_milestone, "
                   "alpha_milestone, beta_milestone, stable_milestone, deprecated_milestone, tracking_issue_url, "
                   "source_path, is_stub) SELECT 9001, 'Old KEP', '', id, '', '', '', '', '', '', '', '', '', false "
                   "FROM keps_sig WHERE slug = 'sig-old'")
    cursor.execute("INSERT INTO keps_kep_authors (kep_id, person_id) SELECT k.id, p.id FROM keps_kep k, keps_person p "
                   "WHERE k.number = 9001 AND p.github = 'oldtimer'")
# The grant of that time: the lead group may see SIG leaderships, through the keps-labelled permission.
content_type = ContentType.objects.get(app_label="keps", model="sigleadership")
permission, _ = Permission.objects.get_or_create(
    content_type=content_type, codename="view_sigleadership", defaults={"name": "Can view SIG leader"})
Group.objects.get(name="SIG lead").permissions.add(permission)
print("OLD", permission.pk)
"""

PROBE = """
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from community.models import Person, Sig, SigLeadership
from keps.models import Kep
sig = Sig.objects.get(slug="sig-old")
kep = Kep.objects.get(number=9001)
print("SIG", sig.name, kep.owning_sig == sig, [p.github for p in kep.authors.all()],
      SigLeadership.objects.filter(sig=sig, person=Person.objects.get(github="oldtimer")).count())
print("TYPES", sorted(ContentType.objects.filter(model__in=MOVED).values_list("app_label", flat=True).distinct()))
print("GRANT", *Group.objects.get(name="SIG lead").permissions.filter(
    codename="view_sigleadership", content_type__app_label="community").values_list("pk", flat=True))
""".replace("MOVED", repr(MOVED))


def test_a_database_from_before_the_move_to_community_keeps_rows_permissions_and_history(scratch_database_url):
    settings_module = "sigtracker.settings.test"
    migrate_before = [("migrate", app, migration, "--noinput", "-v0") for app, migration in BEFORE_THE_MOVE]
    old = manage_steps(
        scratch_database_url,
        settings_module,
        *migrate_before,
        ("migrate", "auth", "--noinput", "-v0"),
        ("shell", "-c", OLD_ROWS),
    )
    old_permission = old.split("OLD ")[1].split()[0]

    # The deploy that moves the models, in a process of its own as it would be.
    probe = manage_steps(scratch_database_url, settings_module, ("migrate", "--noinput", "-v0"), ("shell", "-c", PROBE))

    assert "SIG SIG Old True ['oldtimer'] 1" in probe, probe
    assert "TYPES ['community']" in probe, probe  # moved, not duplicated: the role group's grant is the same row
    assert f"GRANT {old_permission}\n" in probe, probe  # the same permission row, relabelled with its type
    # The state the migrations build is the models' state: nothing left for makemigrations to write.
    manage(scratch_database_url, settings_module, "makemigrations", "--check", "--dry-run", "-v0")
