"""Serve the sandbox standalone (asyncio + h11) for load: same /sandbox/ URLs as the site, no database."""

from __future__ import annotations

import asyncio
import contextlib

from django.conf import settings
from django.core.management.base import BaseCommand

from apis.sandbox.config import SandboxConfig
from apis.sandbox.server import serve, warm_up


class Command(BaseCommand):
    help = "Serve the Korean public-API sandbox on a port (no database needed)."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8765)
        parser.add_argument(
            "--warm", action="store_true", help="build every lazily built world piece before listening (~25 s)"
        )

    def handle(self, *args, host: str, port: int, warm: bool = False, **options):
        config = SandboxConfig.from_mapping(getattr(settings, "SANDBOX", None))
        if warm:
            self.stdout.write(f"warmed in {warm_up(config):.1f} s")
        self.stdout.write(f"KOPA sandbox on http://{host}:{port}/sandbox/ (clock {config.now.isoformat()})")
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve(config, host, port))
