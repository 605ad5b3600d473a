import functools

import pytest

from github_sync.services import github_sync_base
from tests.github.standin import TOKEN, StandInGitHub


@pytest.fixture
def github(request, settings, monkeypatch):
    """A stand-in GitHub on a local port; sigtracker reaches it through GITHUB_API_URL.

    Parametrized indirectly with True, it has GitHub Enterprise Server's layout (REST under `/api/v3`).

    The sync's client waits out a 5xx backoff or a rate limit through its `sleep` hook: here the waits are recorded
    in `server.slept` instead of slept, so a test of a retry costs no wall time."""
    with StandInGitHub(enterprise=getattr(request, "param", False)) as server:
        settings.GITHUB_TOKEN = TOKEN
        settings.GITHUB_API_URL = server.url
        server.slept = []
        client = functools.partial(github_sync_base.GitHubClient, sleep=server.slept.append)
        monkeypatch.setattr(github_sync_base, "GitHubClient", client)  # where github_client() makes it
        yield server
