"""generate_synthetic at scale 10 on PostgreSQL, into a scratch database.

Figure: wall seconds of `generate_synthetic --scale 10 --seed 1` (the whole command, one transaction),
budget 60 s. Floor, measured in the same scratch database right after: bulk_create of as many bare rows
as the generator wrote into one narrow link table (two foreign keys, batches of 1,000) — what the same
number of rows costs through the ORM without inventing any content or filling 20 indexed tables. The
generator beats the plain ORM route on its largest tables by using COPY there, so the note also gives
the absolute floor: COPY of the same number of bare rows into an unindexed temporary table.
"""

import math
from io import StringIO

from django.apps import apps
from django.core.management import call_command
from django.db import connection, transaction

from bench.core import Figure, scratch_database, wall_time


def _generate() -> None:
    call_command("generate_synthetic", "--scale", "10", "--seed", "1", verbosity=0, stdout=StringIO())


def _copy_floor(rows: int) -> float:
    """Seconds to COPY `rows` bare rows into an unindexed temporary table."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE bench_floor (id bigint, a integer, b integer) ON COMMIT DROP")

        def copy():
            with cursor.cursor.copy("COPY bench_floor (id, a, b) FROM STDIN") as out:
                for i in range(rows):
                    out.write_row((i, i % 97, i % 89))

        return wall_time(copy)


def _bulk_create_floor(rows: int) -> float:
    """Seconds to bulk_create `rows` bare rows into one narrow link table (rolled back afterwards)."""
    from community.models import Sig
    from keps.models import Kep

    through = Kep.participating_sigs.through
    side = math.isqrt(rows) + 1
    with transaction.atomic():
        # Distinct (kep, sig) pairs from side × side parents; creating the parents is not timed.
        sigs = Sig.objects.bulk_create([Sig(slug=f"bench-floor-{i}") for i in range(side)])
        keps = Kep.objects.bulk_create(
            [Kep(number=10_000_000 + i, title="floor", owning_sig=sigs[0]) for i in range(side)]
        )
        pairs = [(kep.pk, sig.pk) for kep in keps for sig in sigs][:rows]
        seconds = wall_time(
            lambda: through.objects.bulk_create(
                [through(kep_id=kep, sig_id=sig) for kep, sig in pairs], batch_size=1000
            )
        )
        transaction.set_rollback(True)
    return seconds


def run() -> list[Figure]:
    if connection.vendor != "postgresql":
        print("bench_synthetic: needs PostgreSQL (set DATABASE_URL); skipped")
        return []
    with scratch_database():
        seconds = wall_time(_generate)
        from keps.models import Kep
        from meetings.models import AgendaItem, Meeting
        from releases.models import TrackedEnhancement

        # Every row the generator wrote: all tables of the domain apps, many-to-many link tables included.
        rows = sum(
            model._default_manager.count()
            for model in apps.get_models(include_auto_created=True)
            if model._meta.app_label in ("community", "keps", "releases", "meetings")
        )
        copy_floor = _copy_floor(rows)
        orm_floor = _bulk_create_floor(rows)
        sizes = (
            f"{Kep.objects.count():,} KEPs, {Meeting.objects.count():,} meetings, "
            f"{AgendaItem.objects.count():,} agenda items, {TrackedEnhancement.objects.count():,} tracked"
        )
    return [
        Figure(
            name="generate_synthetic scale 10 (PostgreSQL)",
            value=seconds,
            unit="s",
            floor=orm_floor,
            budget=60,
            max_ratio=4,
            note=(
                f"{rows:,} rows ({sizes}); floor: bulk_create of {rows:,} bare rows into one narrow link table "
                f"(batches of 1,000); COPY of as many bare rows into an unindexed temp table took {copy_floor:.2f} s"
            ),
        )
    ]
