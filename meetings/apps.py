from django.apps import AppConfig


def _link_new_keps(sender, kep_numbers, **kwargs):
    from meetings.services import agenda_items_link_keps

    agenda_items_link_keps(kep_numbers=kep_numbers)


def _link_new_releases(sender, versions, **kwargs):
    from meetings.services import agenda_items_link_releases

    agenda_items_link_releases(versions=versions)


class MeetingsConfig(AppConfig):
    name = "meetings"
    verbose_name = "Meetings"

    def ready(self):
        # Agenda items are often imported before the KEPs and releases they name: link them when those appear.
        from keps.signals import keps_created
        from releases.signals import releases_created

        keps_created.connect(_link_new_keps, dispatch_uid="meetings.link_new_keps")
        releases_created.connect(_link_new_releases, dispatch_uid="meetings.link_new_releases")
