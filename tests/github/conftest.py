import pytest

from tests.github.standin import TOKEN, StandInGitHub


@pytest.fixture
def github(settings):
    """A stand-in GitHub on a local port; sigtracker reaches it through GITHUB_API_URL."""
    with StandInGitHub() as server:
        settings.GITHUB_TOKEN = TOKEN
        settings.GITHUB_API_URL = server.url
        yield server
