"""`manage.py refresh_upstream [--source NAME] [--full] [--dry-run]`: bring the upstream sources' data up to date."""

from django.core.management.base import BaseCommand, CommandError

from upstream.services import RefreshBusy, upstream_refresh
from upstream.sources import SOURCE_NAMES, configured_sources


class Command(BaseCommand):
    """Calls `upstream.services.upstream_refresh` and prints one block per source. Exit status 0: every source
    current; 1: a source failed or a file was skipped (each named); 2: usage (an unknown or disabled source)."""

    help = (
        "Fetch the upstream repositories (kubernetes/enhancements, sig-release, community; cloned on first use into "
        "SIGTRACKER_UPSTREAM_DIR) and import what changed since the last imported commit."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--source", action="append", choices=SOURCE_NAMES, help="Refresh only this source (repeatable)."
        )
        parser.add_argument("--full", action="store_true", help="Re-import every file, not only the changed ones.")
        parser.add_argument("--dry-run", action="store_true", help="Fetch and report what would change; write nothing.")
        parser.add_argument(
            "--wait", type=float, default=None, help="Seconds to wait for a refresh already running (default: setting)."
        )

    def handle(self, *args, **options):
        self.verbosity = options.get("verbosity", 1)
        names = options["source"] or []
        configured = {source.name for source in configured_sources()}
        if not configured:
            raise CommandError("no upstream source is configured (SIGTRACKER_UPSTREAM_* are empty)", returncode=2)
        disabled = sorted(set(names) - configured)
        if disabled:
            raise CommandError(f"source disabled (its setting is empty): {', '.join(disabled)}", returncode=2)
        dry_run = options["dry_run"]
        try:
            results = upstream_refresh(names=names, full=options["full"], dry_run=dry_run, wait=options["wait"])
        except RefreshBusy as exc:
            self.stdout.write(f"{exc}: skipped")
            return
        failed = []
        prefix = "dry run: " if dry_run else ""
        for result in results:
            span = f"{result.from_commit[:12] or '(first run)'} -> {result.to_commit[:12] or '?'}"
            if result.outcome == "current":
                self.stdout.write(f"{result.name}: nothing to change ({result.to_commit[:12]})")
                continue
            if result.outcome == "failed":
                self.stderr.write(f"{result.name}: failed: {result.error}")
                failed.append(result.name)
                continue
            said = (
                "rewritten (the last imported commit is gone): re-imported in full"
                if result.outcome == "rewritten"
                else "imported"
            )
            if self.verbosity >= 1:
                self.stdout.write(
                    f"{prefix}{result.name}: {said} {span}: {result.files_read} files read, {result.created} created, "
                    f"{result.updated} updated, {result.unchanged} unchanged, {len(result.skipped)} skipped "
                    f"({result.seconds:.1f} s)"
                )
            if self.verbosity >= 2:
                for step in result.imports:
                    self.stdout.write(f"  import: {step}")
            for line in result.skipped:
                self.stderr.write(f"{result.name}: skipped: {line}")
            if result.skipped:
                failed.append(result.name)
        if failed:
            raise CommandError(f"not all current: {', '.join(failed)}", returncode=1)
