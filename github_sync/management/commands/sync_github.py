"""`manage.py sync_github --release 1.35 [--repo kubernetes/enhancements] [--dry-run]` or `--backfill 1.20..1.36`.

Reads the KEP tracking issues of kubernetes/enhancements (GITHUB_TOKEN, GITHUB_API_URL) and writes each
release's tracked enhancements with their true status history. Exit status: 0 synced; 1 some issues skipped
(each named) or stopped at a rate limit (what was synced is kept, the next run resumes); 2 nothing could be
done (no token, bad token, unknown repo, release or milestone).
"""

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from github_sync.github import GitHubAuthError, GitHubError, GitHubNotFound
from github_sync.services.board_sync import BoardNotFound, board_release_sync
from github_sync.services.github_sync import GitHubSyncError, github_backfill, github_client
from releases.models import parse_version


def _versions(spec: str) -> list[str]:
    """`1.20..1.36` -> every minor release in between, both ends included (same major)."""
    first, _, last = spec.partition("..")
    try:
        (major, low), (major_last, high) = parse_version(first), parse_version(last or first)
    except ValueError as exc:
        raise CommandError(f"--backfill: {exc}; expected e.g. 1.20..1.36", returncode=2) from exc
    if major != major_last or low > high:
        raise CommandError(f"--backfill: {spec!r} is not an ascending range of one major version", returncode=2)
    return [f"{major}.{minor}" for minor in range(low, high + 1)]


class Command(BaseCommand):
    help = "Sync releases' tracked enhancements from the release team's GitHub tracking issues."

    def add_arguments(self, parser):
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--release", metavar="VERSION", help="The release to sync, e.g. 1.35.")
        which.add_argument("--backfill", metavar="FIRST..LAST", help="Sync these releases one after another.")
        which.add_argument(
            "--action-items", action="store_true", help="Follow retro action items' GitHub issues (sync_action_items)."
        )
        parser.add_argument(
            "--repo",
            default=None,
            help="owner/name of the tracking issues' repository (default: kubernetes/enhancements).",
        )
        parser.add_argument("--dry-run", action="store_true", help="Print what would change; write nothing.")
        parser.add_argument(
            "--project",
            type=int,
            metavar="N",
            help="The release's tracking board, github.com/orgs/kubernetes/projects/N (remembered for later runs; "
            "without it the board is found by its title, 'v1.36 Enhancements Tracking').",
        )
        parser.add_argument("--no-board", action="store_true", help="Read labels and milestones only.")

    def handle(self, *args, release, backfill, repo, dry_run, verbosity, project=None, no_board=False, **options):
        if options.get("action_items"):
            # By name: the command belongs to the retros app, above this one.
            call_command(
                "sync_action_items", dry_run=dry_run, verbosity=verbosity, stdout=self.stdout, stderr=self.stderr
            )
            return
        versions = _versions(backfill) if backfill else _versions(release)
        repo = repo or settings.SIGTRACKER_GITHUB_REPO
        if "/" not in repo:
            raise CommandError(f"--repo: expected owner/name, got {repo!r}", returncode=2)
        try:
            client = github_client()
        except GitHubSyncError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        with client:
            # One deadline for the whole run of one release (labels, then board); each of a backfill's has its own.
            client.start_deadline(float(settings.GITHUB_SYNC_DEADLINE))
            self._run(versions, release, repo, dry_run, verbosity, project, no_board, client)

    def _run(self, versions, release, repo, dry_run, verbosity, project, no_board, client) -> None:
        echo = self.stderr.write
        try:
            reports = github_backfill(versions=versions, repo=repo, dry_run=dry_run, echo=echo, client=client)
        except (GitHubSyncError, GitHubAuthError, GitHubNotFound) as exc:
            raise CommandError(str(exc), returncode=2) from exc
        except GitHubError as exc:
            raise CommandError(str(exc), returncode=1) from exc
        for report in reports:
            if verbosity >= 1:
                self.stdout.write(report.summary())
            if dry_run and verbosity >= 1:
                for line in report.planned:
                    self.stdout.write(f"  would {line}")
            if verbosity >= 2 and report.not_opted_in:
                numbers = ", ".join(f"#{n}" for n in report.not_opted_in)
                self.stdout.write(f"  in milestone, not opted in: {numbers}")
        if release and not dry_run and not no_board and not any(report.stopped for report in reports):
            self._board(reports[-1].version, project, verbosity, client)
        stopped = next((report.stopped for report in reports if report.stopped), "")
        if stopped:
            raise CommandError(stopped, returncode=1)
        skipped = sum(len(report.skipped) for report in reports)
        if skipped:
            raise CommandError(f"{skipped} issue(s) skipped (named above); the rest synced.", returncode=1)

    def _board(self, version: str, project: int | None, verbosity: int, client) -> None:
        """The release's tracking board after its labels, so the board's statuses are the latest word."""
        try:
            report = board_release_sync(version=version, project=project, echo=self.stderr.write, client=client)
        except (BoardNotFound, GitHubNotFound) as exc:
            if project is not None and not isinstance(exc, BoardNotFound):
                raise CommandError(str(exc), returncode=2) from exc
            # No board asked for and none found: the labels and milestones are all there is.
            if verbosity >= 1:
                self.stdout.write(f"Board not read: {exc} Labels and milestones only.")
            return
        except (GitHubSyncError, GitHubAuthError) as exc:
            raise CommandError(str(exc), returncode=2) from exc
        except GitHubError as exc:
            raise CommandError(str(exc), returncode=1) from exc
        if verbosity >= 1:
            self.stdout.write(report.summary())
