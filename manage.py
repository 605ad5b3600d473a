#!/usr/bin/env python
"""Django's command-line utility for sigtracker."""

import os
import sys


def main():
    # DEBUG=false in the environment selects production settings; otherwise development (the demo). The same
    # rule as gunicorn's and Celery's (sigtracker.settings.settings_module), with the demo as the default.
    # Declared before `sigtracker` is imported: the package loads the Celery app, which applies the same rule and
    # would otherwise fall back to production settings before this line could say "the demo's".
    os.environ["SIGTRACKER_DEFAULT_SETTINGS"] = "sigtracker.settings.dev"
    from sigtracker.settings import settings_module

    os.environ["DJANGO_SETTINGS_MODULE"] = settings_module(default="sigtracker.settings.dev")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
