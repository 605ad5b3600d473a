from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_role_groups(sender, using, apps=None, **kwargs):
    """keps/migrations/0003_role_groups.py made the role groups with the grants of its day; grants on models
    added since (sigtracker.roles.GROUP_GRANTS) are applied here, after every migrate (and flush), idempotently."""
    from sigtracker.roles import role_groups_ensure

    role_groups_ensure(apps=apps, using=using)


class KepsConfig(AppConfig):
    name = "keps"
    verbose_name = "KEPs and SIGs"

    def ready(self):
        post_migrate.connect(_sync_role_groups, sender=self, dispatch_uid="keps.role_groups")
