import functools

import pytest

from releases.services import github_sync_base
from tests.github.standin import TOKEN, StandInGitHub


@pytest.fixture
def github(settings, monkeypatch):
    """A stand-in GitHub on a local port; sigtracker reaches it through GITHUB_API_URL.

    The sync's client waits out a 5xx backoff or a rate limit through its `sleep` hook: here the waits are recorded
    in `server.slept` instead of slept, so a test of a retry costs no wall time."""
    with StandInGitHub() as server:
        settings.GITHUB_TOKEN = TOKEN
        settings.GITHUB_API_URL = server.url
        server.slept = []
        client = functools.partial(github_sync_base.GitHubClient, sleep=server.slept.append)
        monkeypatch.setattr(github_sync_base, "GitHubClient", client)  # where github_client() makes it
        yield server
