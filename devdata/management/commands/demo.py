"""`manage.py demo`: migrate, load the curated fixtures once, create a demo admin, place the demo cycle around
today (devdata.living_cycle), and serve."""

import datetime
import secrets
import signal
import sys

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from devdata.fixtures import FIXTURE_FILES, fixtures_loaded
from devdata.living_cycle import demo_cycle_ensure


class Command(BaseCommand):
    help = "Run the demo: migrate, load fixtures into an empty database, create an admin, serve on 127.0.0.1."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000, help="Port to serve on (default 8000).")
        parser.add_argument("--no-serve", action="store_true", help="Prepare the database but do not serve.")

    def handle(self, *args, port, no_serve, **options):
        if not settings.DEBUG:
            raise CommandError("demo runs with the development settings only (DEBUG on).")
        call_command("migrate", interactive=False, verbosity=0)
        self.stdout.write("Database migrated.")
        if fixtures_loaded():
            self.stdout.write("Fixtures already loaded; reusing the existing database.")
        else:
            call_command("loaddata", *FIXTURE_FILES, verbosity=0)
            self.stdout.write(f"Loaded {len(FIXTURE_FILES)} fixture files.")
            # loaddata writes rows directly (no services), so the stats the pages show are computed here.
            call_command("compute_stats", verbosity=0)
            self.stdout.write("Computed release stats.")

        # Demo mode only: a known admin account, with a fresh password printed each run.
        password = secrets.token_urlsafe(12)
        user, created = get_user_model().objects.get_or_create(
            username="admin", defaults={"is_staff": True, "is_superuser": True, "email": "admin@localhost"}
        )
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        self._living_cycle(user)
        self.stdout.write(
            self.style.SUCCESS(f"Admin: http://127.0.0.1:{port}/admin/  user: admin  password: {password}")
        )
        if no_serve:
            return

        # SIGTERM stops the server as cleanly as Ctrl-C does.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            call_command("runserver", f"127.0.0.1:{port}", use_reloader=False)
        except KeyboardInterrupt:
            pass
        self.stdout.write("Demo stopped.")

    def _living_cycle(self, user) -> None:
        """The demo release around today (created once, moved to today on every run), and how to look at it."""
        cycle = demo_cycle_ensure(now=timezone.now(), user=user)
        if cycle is None:
            return
        if cycle.created:
            call_command("compute_stats", verbosity=0)
        freeze = cycle.enhancements_freeze.at
        preview = (freeze - datetime.timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.stdout.write(
            f"{'Added' if cycle.created else 'Moved'} the demo cycle v{cycle.release.version} (demo data) around "
            f"today: enhancements freeze {freeze:%a %d %b %Y %H:%M} UTC."
        )
        if cycle.person is not None:
            self.stdout.write(f"/me/ shows the work of {cycle.person.github or cycle.person.name} to the admin.")
        self.stdout.write(f"Digest preview: python manage.py send_freeze_reminders --dry-run -v 2 --now {preview}")
