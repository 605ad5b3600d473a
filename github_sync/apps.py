from django.apps import AppConfig


class GithubSyncConfig(AppConfig):
    name = "github_sync"
    verbose_name = "GitHub sync"
