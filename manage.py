#!/usr/bin/env python
"""Django's command-line utility for sigtracker."""

import os
import sys


def main():
    # DEBUG=false in the environment selects production settings; otherwise development (the demo).
    production = os.environ.get("DEBUG", "").strip().lower() in {"0", "false", "no", "off"}
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", f"sigtracker.settings.{'prod' if production else 'dev'}")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
