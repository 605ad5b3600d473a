"""The board sync against hostile GraphQL servers over real HTTP: a board that never ends (peak memory measured in
a child process), a page larger than the limit, and items whose JSON has the wrong types."""

import datetime
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from github_sync.github import GitHubClient
from github_sync.services import board_sync
from github_sync.services.board_read import MAX_PAGES
from github_sync.services.board_sync import board_release_sync
from releases.choices import EnhancementStatus as S
from releases.models import TrackedEnhancement
from tests.factories import KepFactory, ReleaseFactory, SigFactory
from tests.github.graphql_standin import StandInGraphQL
from tests.github.hostile import Scripted, huge
from tests.github.standin import TOKEN

T0 = datetime.datetime(2026, 2, 10, 14, 0, tzinfo=datetime.UTC)
ROOT = Path(__file__).resolve().parents[2]


def _endless_page(filler: int) -> bytes:
    """One page of 100 items, each with a text value of `filler` characters, saying there is a next page."""
    value = {"__typename": "ProjectV2ItemFieldTextValue", "text": "n" * filler, "field": {"name": "Note"}}
    node = {
        "id": "PVTI_x",
        "type": "ISSUE",
        "fieldValues": {"nodes": [value]},
        "content": {"__typename": "Issue", "number": 7, "title": "KEP 7", "url": "https://github.com/k/e/issues/7"},
    }
    items = {"pageInfo": {"hasNextPage": True, "endCursor": "more"}, "nodes": [node] * 100}
    data = {"rateLimit": {"cost": 1, "remaining": 4999, "resetAt": "2099-01-01T00:00:00Z"}}
    data["organization"] = {"projectV2": {"number": 9, "title": "v1.36 Enhancements Tracking", "items": items}}
    return json.dumps({"data": data}).encode()


class Endless(Scripted):
    """A GraphQL endpoint whose board has a next page, always: ~3.9 MB pages, served from one prepared body."""

    def __init__(self):
        page = _endless_page(38_000)

        def answer(handler, body):
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(page)))
            handler.end_headers()
            handler.wfile.write(page)

        super().__init__(answer)


CHILD = textwrap.dedent(
    """
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))  # a runaway read fails here, not the machine
    import django
    django.setup()
    from github_sync.github import GitHubClient, GitHubError
    from github_sync.github.graphql import GraphQL
    from github_sync.services.board_read import board_read
    outcome = ""
    with GitHubClient(token=sys.argv[2], api_url=sys.argv[1], request_deadline=30) as client:
        client.start_deadline(90)
        try:
            read = board_read(gql=GraphQL(client), org="kubernetes", number=9)
            outcome = f"read {len(read.items)} items"
        except (GitHubError, MemoryError) as exc:
            outcome = f"{type(exc).__name__}: {str(exc)[:200]}"
        requests = client.requests
    # VmHWM is this process's own peak; ru_maxrss would carry the forking pytest worker's across exec (Linux).
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) * 1024
    print(json.dumps({"outcome": outcome, "peak": peak, "requests": requests}))
    """
)


def test_an_endless_board_is_refused_at_its_page_cap_and_the_read_stays_under_400_mb():
    with Endless() as server:
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "sigtracker.settings.test"}
        env.pop("DATABASE_URL", None)
        done = subprocess.run(
            [sys.executable, "-c", CHILD, server.url, TOKEN],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["outcome"].startswith("BoardTooLarge") and f"{MAX_PAGES} pages" in result["outcome"], result
    assert result["requests"] == MAX_PAGES
    assert result["peak"] < 400 * 2**20, f"peak {result['peak'] / 2**20:.0f} MiB"


@pytest.fixture
def hostile_board(settings, monkeypatch):
    """The GraphQL stand-in behind a front that can answer instead of it (`front.answer`)."""

    with StandInGraphQL() as standin:
        front = {"answer": None}

        def answer(handler, body):
            if front["answer"] is not None:
                return front["answer"](handler, body)
            handler.rfile = io.BytesIO(body)  # the stand-in reads the request's body itself
            standin._handle(handler)

        with Scripted(answer) as server:
            settings.GITHUB_TOKEN = TOKEN
            settings.GITHUB_API_URL = server.url
            client = lambda: GitHubClient(token=TOKEN, api_url=server.url, sleep=lambda s: None)  # noqa: E731
            monkeypatch.setattr(board_sync, "github_client", client)
            standin.front = front
            yield standin


@pytest.fixture
def release(db):
    node = SigFactory(slug="sig-node")
    for number in (101, 102, 103):
        KepFactory(number=number, owning_sig=node)
    return ReleaseFactory(version="1.36")


def test_a_page_past_the_size_limit_is_refused_in_one_line_and_nothing_written(hostile_board, release):
    hostile_board.add_project(241, "v1.36 Enhancements Tracking")
    hostile_board.add_item(241, issue=101, status="Tracked for code freeze")
    hostile_board.front["answer"] = lambda handler, body: huge(handler, 150)
    with pytest.raises(board_sync.GitHubError) as raised:
        board_release_sync(version="1.36", project=241, now=T0)
    assert "larger than 4 MiB" in str(raised.value) and "\n" not in str(raised.value)
    assert not TrackedEnhancement.objects.exists()


def _typed_wrong(node: dict, how: str) -> dict:
    if how == "number-object":
        node["content"]["number"] = {"value": 102}
    elif how == "select-name-list":
        for value in node["fieldValues"]["nodes"]:
            if value["__typename"] == "ProjectV2ItemFieldSingleSelectValue":
                value["name"] = ["Tracked for code freeze"]
    elif how == "users-strings":
        node["fieldValues"]["nodes"].append(
            {"__typename": "ProjectV2ItemFieldUserValue", "users": {"nodes": ["enh-shadow"]}, "field": {"name": "x"}}
        )
    elif how == "field-values-string":
        node["fieldValues"] = "none"
    elif how == "event-project-list":
        node["content"]["timelineItems"] = {"nodes": [{"createdAt": "2026-01-01T00:00:00Z", "project": [241]}]}
    return node


@pytest.mark.parametrize(
    "how", ["number-object", "select-name-list", "users-strings", "field-values-string", "event-project-list"]
)
def test_a_wrongly_typed_item_is_one_skip_line_and_the_rest_synced(hostile_board, release, how):
    hostile_board.add_project(241, "v1.36 Enhancements Tracking")
    for number in (101, 102, 103):
        hostile_board.add_item(241, issue=number, status="Tracked for code freeze", sig="SIG Node")
    node = hostile_board._node

    def spoiled(item, project, with_events):
        built = node(item, project, with_events)
        return _typed_wrong(built, how) if item["issue"] == 102 else built

    hostile_board._node = spoiled
    lines = []
    report = board_release_sync(version="1.36", project=241, now=T0, echo=lines.append)
    synced = dict(TrackedEnhancement.objects.values_list("kep__number", "status"))
    assert synced == {101: S.TRACKED_CODE, 103: S.TRACKED_CODE}
    (line,) = [line for line in lines if "not as documented" in line]
    assert line.startswith("#102: skipped") or line.startswith("board item PVTI_"), line
    assert report.items == 2 and len(report.skipped) == 1
