"""The one Django set-up of the speed benchmarks that need the site: a database of their own, quiet logs."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def setup_django(database_url: str) -> None:
    """Point the site at `database_url` (a throw-away database) and set Django up; call before any model import."""
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kopa_site.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    logging.disable(logging.INFO)
