"""The OAuth views of the GitHub provider (see provider.py), on an adapter that reads its URLs per request."""

from allauth.socialaccount import app_settings
from allauth.socialaccount.providers.github.views import GitHubOAuth2Adapter as AllauthAdapter
from allauth.socialaccount.providers.oauth2.views import OAuth2CallbackView, OAuth2LoginView


def github_web_url() -> str:
    return app_settings.PROVIDERS.get("github", {}).get("GITHUB_URL", "https://github.com").rstrip("/")


def github_api_url() -> str:
    """github.com's API lives on its own host; GitHub Enterprise's (and the test stand-in's) under /api/v3."""
    web = github_web_url()
    return "https://api.github.com" if web == "https://github.com" else f"{web}/api/v3"


class GitHubOAuth2Adapter(AllauthAdapter):
    @property
    def access_token_url(self):
        return f"{github_web_url()}/login/oauth/access_token"

    @property
    def authorize_url(self):
        return f"{github_web_url()}/login/oauth/authorize"

    @property
    def profile_url(self):
        return f"{github_api_url()}/user"

    @property
    def emails_url(self):
        return f"{github_api_url()}/user/emails"


oauth2_login = OAuth2LoginView.adapter_view(GitHubOAuth2Adapter)
oauth2_callback = OAuth2CallbackView.adapter_view(GitHubOAuth2Adapter)
