import pytest

from .oauth_standin import StandInOAuth


@pytest.fixture
def github_oauth(settings):
    """The stand-in GitHub, and settings pointing sign-in at it."""
    standin = StandInOAuth().start()
    settings.SOCIALACCOUNT_PROVIDERS = {
        "github": {
            **settings.SOCIALACCOUNT_PROVIDERS["github"],
            "APP": {"client_id": standin.client_id, "secret": standin.client_secret},
            "GITHUB_URL": standin.url,
        }
    }
    yield standin
    standin.stop()
