"""The retro board with 500 items and 2,000 votes, rendered uncached (budget 0.1 s), and posting an item through
the API (budget 0.05 s). Data made here, in a scratch PostgreSQL database: a release in its cycle, sig-node, 100
people, 500 items across the three categories, 2,000 votes (distinct person and item pairs)."""

import datetime
import random

from django.test.utils import override_settings

from bench.core import Figure, median_time, scratch_database
from bench.pages import measure_page


def _data():
    from django.contrib.auth.models import User

    from community.models import Sig
    from releases.models import Release
    from retros.choices import BOARD_CATEGORIES
    from retros.models import RetroItem, Retrospective, RetroVote

    today = datetime.date.today()
    release = Release.objects.create(
        version="1.99",
        cycle_start=today - datetime.timedelta(days=30),
        planned_release_date=today + datetime.timedelta(days=60),
    )
    sig = Sig.objects.create(slug="sig-node", name="SIG Node")
    users = User.objects.bulk_create([User(username=f"person{i}") for i in range(100)])
    retro = Retrospective.objects.create(release=release, sig=sig)
    rng = random.Random(1)
    now = datetime.datetime.now(tz=datetime.UTC)
    items = RetroItem.objects.bulk_create(
        RetroItem(
            retrospective=retro,
            category=BOARD_CATEGORIES[i % 3],
            order=i,
            text=f"item {i}: " + "the e2e suite was flaky again " * rng.randint(1, 8),
            author=users[i % 100],
            created_at=now,
        )
        for i in range(500)
    )
    pairs = rng.sample([(i, u) for i in range(500) for u in range(100)], 2000)
    RetroVote.objects.bulk_create(RetroVote(item=items[i], user=users[u]) for i, u in pairs)
    return release, sig, users[0]


def run() -> list[Figure]:
    from rest_framework.test import APIClient

    with scratch_database():
        release, sig, user = _data()
        url = f"/releases/{release.version}/retro/{sig.slug}/"
        result = measure_page(url)
        figures = [
            Figure(
                name=f"retro board 500 items 2,000 votes {url} (uncached median)",
                value=result["render_seconds"],
                unit="s",
                floor=result["floor_seconds"],
                budget=0.1,
                note=f"{result['bytes']:,} bytes, {result['queries']} queries, "
                f"{result['render_cpu_seconds'] * 1000:.0f} ms CPU in this process",
            )
        ]
        client = APIClient(HTTP_HOST="127.0.0.1")
        client.force_authenticate(user)
        body = {"release": release.version, "sig": sig.slug, "category": "discuss", "text": "one more thing"}
        with override_settings(SIGTRACKER_RETRO_ITEM_RATE=(10_000, 3600), DEBUG=False):

            def post():
                response = client.post("/api/v1/retro-items/", body, format="json")
                if response.status_code != 201:
                    raise RuntimeError(f"POST /api/v1/retro-items/: HTTP {response.status_code}")

            figures.append(
                Figure(
                    name="retro item POST /api/v1/retro-items/ (median)",
                    value=median_time(post, repeat=15, warmup=2),
                    unit="s",
                    budget=0.05,
                )
            )
    return figures
