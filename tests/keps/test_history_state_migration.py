"""A plan history cursor stored as JSON before its state was packed keeps that state through the migration, and
back: the next import continues from it rather than replaying all of history."""

import pytest

from tests.scratch_db import manage_steps

pytestmark = pytest.mark.django_db

SETTINGS = "sigtracker.settings.test"
BEFORE = ("migrate", "keps", "0008_plan_change_position", "--noinput", "-v0")

OLD_CURSOR = """
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("INSERT INTO keps_kephistorycursor (branch, last_commit, last_committed_at, state, updated_at) "
                   "VALUES ('master', %s, now(), %s, now())",
                   ["a" * 40, '{"rules": 3, "live": {"keps/sig-node/1-x/kep.yaml": [null, 7]}, "sequence": 7}'])
"""

PACKED = """
from keps.importers.kep_history import ReplayState
from keps.models import KepHistoryCursor
cursor = KepHistoryCursor.objects.get()
print("PACKED", sorted(ReplayState.unpack(cursor.state).items()))
"""

UNPACKED = """
from django.db import connection
with connection.cursor() as cursor:
    cursor.execute("SELECT state::text FROM keps_kephistorycursor")
    print("JSON", cursor.fetchone()[0])
"""


def test_the_replay_state_is_packed_and_unpacked_whole(scratch_database_url):
    packed = manage_steps(
        scratch_database_url,
        SETTINGS,
        ("migrate", "--noinput", "-v0"),
        BEFORE,
        ("shell", "-c", OLD_CURSOR),
        ("migrate", "keps", "--noinput", "-v0"),
        ("shell", "-c", PACKED),
    )
    expected = "[('live', {'keps/sig-node/1-x/kep.yaml': [None, 7]}), ('rules', 3), ('sequence', 7)]"
    assert f"PACKED {expected}" in packed, packed

    unpacked = manage_steps(scratch_database_url, SETTINGS, BEFORE, ("shell", "-c", UNPACKED))
    assert 'JSON {"live": {"keps/sig-node/1-x/kep.yaml": [null, 7]}, "rules": 3, "sequence": 7}' in unpacked
