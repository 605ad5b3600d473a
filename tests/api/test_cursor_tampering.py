"""Tampered cursors on every list of the read API, through a real gunicorn with production settings: a cursor
that does not decode, or whose position is no value of the list's order, is a 400 with a JSON error, never a 500
(and never a database error that would poison the rest of the request)."""

import base64
import json

import pytest

from tests.core.servers import get, production_gunicorn, shared_database_url

LISTS = [
    "releases",
    "tracked-enhancements?release=1.28",
    "status-changes",
    "keps",
    "feature-gates",
    "design-groups",
    "meetings",
    "agenda-items",
    "retrospectives",
    "action-items",
    "sigs",
]
#: Positions the adversarial pass sent, plus their cousins: not numbers, not instants, a NUL, an empty value.
POSITIONS = ["p=abc", "p=", "p=1e5", "p=1023%00", "p=notadate", "p=2022-13-45", "p=1%00", "p=99999999999999999999999"]


def cursor(token: str) -> str:
    return base64.b64encode(token.encode()).decode()


@pytest.mark.django_db(transaction=True)
def test_tampered_cursors_answer_400_with_a_json_error_on_every_list(postgres_only, api_data):
    with production_gunicorn(DATABASE_URL=shared_database_url(), SIGTRACKER_API_ANON_RATE="10000/minute") as port:
        for name in LISTS:
            name, _, query = name.partition("?")
            query = f"{query}&" if query else ""
            status, _, body = get(port, f"/api/v1/{name}/?{query}")
            assert status == 200, (name, body[:300])
            for token in [*POSITIONS, "o=-1", "r=x"]:
                status, headers, body = get(port, f"/api/v1/{name}/?{query}cursor={cursor(token)}")
                assert status in (200, 400), (name, token, status, body[:300])
                if status == 400:
                    assert headers["Content-Type"].startswith("application/json"), (name, token)
                    assert "cursor" in json.loads(body)["detail"].lower()
            # Not a cursor at all (an offset that is no number, bytes that are not ASCII): 400 too, not DRF's 404.
            for garbage in (cursor("o=abc"), "%2Fw%3D%3D"):
                status, headers, body = get(port, f"/api/v1/{name}/?{query}cursor={garbage}")
                assert status == 400 and headers["Content-Type"].startswith("application/json"), (name, garbage)
        # The ones the adversarial pass saw crash, by name.
        for name, token in (
            ("releases", "p=abc"),
            ("releases", "p=1e5"),
            ("releases", "p=1023%00"),
            ("status-changes", "p=notadate"),
            ("status-changes", "p=2022-13-45"),
            ("keps", "p=1%00"),
            ("sigs", "p=1%00"),
        ):
            status, _, body = get(port, f"/api/v1/{name}/?cursor={cursor(token)}")
            assert status == 400, (name, token, body[:300])
