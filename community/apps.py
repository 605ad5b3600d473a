from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_role_groups(sender, using, apps=None, **kwargs):
    """keps/migrations/0003_role_groups.py made the role groups with the grants of its day; grants on models
    added since (community.roles.GROUP_GRANTS) are applied here, after every migrate (and flush), idempotently."""
    from community.roles import role_groups_ensure

    role_groups_ensure(apps=apps, using=using)


def _reseed_sig_aliases(sender, using, apps=None, **kwargs):
    """`flush` empties every table, the alias table too, and then sends post_migrate: an empty alias table gets
    the known kep.yaml spellings back (keps/migrations/0004_sig_community_data.py seeds a new database). A table
    holding any row is a curator's to keep: a seed deleted on purpose stays deleted."""
    from community.services import sig_aliases_seed_if_empty

    sig_aliases_seed_if_empty(apps=apps, using=using)


class CommunityConfig(AppConfig):
    name = "community"
    verbose_name = "SIGs and people"

    def ready(self):
        post_migrate.connect(_sync_role_groups, sender=self, dispatch_uid="community.role_groups")
        post_migrate.connect(_reseed_sig_aliases, sender=self, dispatch_uid="community.sig_aliases")
