#!/usr/bin/env python
"""Django's command-line utility for KOPA Console."""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kopa_site.settings")
    from kopa_site.env import ConfigError

    try:
        from django.conf import settings

        settings.INSTALLED_APPS  # noqa: B018 - load settings now so a bad variable stops start-up here
    except ConfigError as exc:
        sys.stderr.write(f"configuration error: {exc}\n")
        sys.exit(2)
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
