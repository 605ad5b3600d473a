"""`manage.py compute_stats [VERSION ...]`: recompute release stats now (all releases by default)."""

from django.core.management.base import BaseCommand, CommandError

from releases.models import Release, parse_version
from releases.services.stats import release_stats_compute


class Command(BaseCommand):
    help = "Recompute merge-rate, funnel and slip statistics for the given releases (default: all)."

    def add_arguments(self, parser):
        parser.add_argument("versions", nargs="*", metavar="VERSION", help="Release versions, e.g. 1.24 or v1.24.")

    def handle(self, *args, versions, verbosity, **options):
        release_ids = None
        if versions:
            wanted = {}
            for raw in versions:
                try:
                    major, minor = parse_version(raw)
                except ValueError as exc:
                    raise CommandError(f"VERSION {raw!r}: {exc}") from exc
                wanted[(major, minor)] = raw
            found = {(r.major, r.minor): r.pk for r in Release.objects.all()}
            missing = [raw for key, raw in wanted.items() if key not in found]
            if missing:
                raise CommandError(f"no such release: {', '.join(missing)}; nothing was recomputed")
            release_ids = [found[key] for key in wanted]
        rows = release_stats_compute(release_ids=release_ids)
        if verbosity >= 1:
            releases = {row.release_id for row in rows}
            self.stdout.write(f"Recomputed stats of {len(releases)} release(s): {len(rows)} rows.")
        if verbosity >= 2:
            names = dict(Release.objects.values_list("pk", "version"))
            for row in rows:
                if row.sig_id is None and not row.release_wide_known:
                    self.stdout.write(
                        f"  v{names[row.release_id]}: no release-wide figures, {row.scope_label} "
                        f"(from {row.sources_label})"
                    )
                elif row.sig_id is None:
                    rate = "-" if row.merge_rate is None else f"{row.merge_rate:.0%}"
                    self.stdout.write(
                        f"  v{names[row.release_id]}: {row.done}/{row.tracked} done ({rate}), "
                        f"{row.deferred} deferred, {row.removed} removed, {len(row.slips)} slips [{row.source}]"
                    )
