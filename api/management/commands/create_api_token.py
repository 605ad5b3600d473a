from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from api.services import api_token_create


class Command(BaseCommand):
    help = "Make an API token for a user and print its key (shown only this once)."

    def add_arguments(self, parser):
        parser.add_argument("username", help="The user the token belongs to.")
        parser.add_argument("--name", default="API token", help="What uses it, e.g. 'release-notes bot'.")

    def handle(self, *args, username, name, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        if not user.is_active:
            raise CommandError(f"user {username!r} is inactive")
        _, key = api_token_create(user=user, name=name)
        # The key alone on stdout, so that scripts can capture it; the rest on stderr.
        self.stdout.write(key)
        if options["verbosity"] > 0:
            self.stderr.write(f"Token {name!r} for {username}: send it as 'Authorization: Token <key>'.")
