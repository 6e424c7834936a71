#!/usr/bin/env python
"""Django's command-line utility for the Scopa Arena site and its data layer."""

import os
import sys


def main() -> None:
    """Runs a Django management command with the project's settings."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
