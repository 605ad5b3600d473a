"""allauth's GitHub provider, with its addresses read from settings on every request.

allauth's own adapter fixes `GITHUB_URL` when its module is imported; ours reads it when a sign-in starts, so one
process can follow a changed setting (tests point it at a local stand-in server on a port chosen at run time).
`package` makes allauth route /accounts/github/login/ and its callback to the views in this package.
"""

from allauth.socialaccount.providers.github.provider import GitHubProvider as AllauthGitHubProvider

from .views import GitHubOAuth2Adapter


class GitHubProvider(AllauthGitHubProvider):
    package = "people.github"
    oauth2_adapter_class = GitHubOAuth2Adapter


provider_classes = [GitHubProvider]
