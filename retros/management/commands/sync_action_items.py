"""Follow the GitHub issues linked to retro action items: closed as completed → done, not planned → dropped,
reopened → open (each change kept in the item's history)."""

from django.core.management.base import BaseCommand, CommandError

from github_sync.github.client import GitHubError
from retros.services.actions import action_items_sync


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Read the issues, write nothing.")
        parser.add_argument("--deadline", type=float, default=None, help="Seconds (default GITHUB_SYNC_DEADLINE).")

    def handle(self, *args, dry_run=False, deadline=None, **options):
        try:
            result = action_items_sync(deadline=deadline, dry_run=dry_run)
        except GitHubError as exc:
            raise CommandError(str(exc)) from exc
        for line in result.failed:
            self.stderr.write(line)
        if options["verbosity"]:
            verb = "would change" if dry_run else "changed"
            self.stdout.write(
                f"{result.read} action item issues read: {result.unchanged} unchanged, {verb} {result.changed}"
            )
        if result.failed:
            raise CommandError(f"{len(result.failed)} action items not synced", returncode=1)
