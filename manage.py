#!/usr/bin/env python
"""Django's command-line utility for sigtracker."""

import os
import sys


def main():
    # DEBUG=false in the environment selects production settings; otherwise development (the demo). The same
    # rule as gunicorn's and Celery's (sigtracker.settings.settings_module), with the demo as the default.
    from sigtracker.settings import settings_module

    os.environ["DJANGO_SETTINGS_MODULE"] = settings_module(default="sigtracker.settings.dev")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
