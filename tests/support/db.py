"""Point a child process (qcluster, MCP server) at the database this test runs on."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

from django.db import connection


def child_database_url() -> str:
    """The URL of the test database (not the configured one), for SQLite or PostgreSQL alike."""
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        return f"sqlite:///{name}"
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path=f"/{name}"))
