from django.apps import AppConfig


class RetrosConfig(AppConfig):
    name = "retros"
    verbose_name = "Retrospectives"

    def ready(self):
        # The releases app computes its figures with the tallies retros recorded; it cannot import this app above
        # it, so this app hands it the reader (releases.services.stats.recorded_tally_sources).
        from releases.services import stats

        from .selectors import recorded_tallies

        stats.register_recorded_tally_source(recorded_tallies)
