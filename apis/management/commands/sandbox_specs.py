"""Regenerate the sandbox's Swagger 2.0 files (apis/sandbox/specs/) from the registry, or check them."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from apis.sandbox.swagger import SPEC_DIR, stale_specs, write_specs


class Command(BaseCommand):
    help = "Write apis/sandbox/specs/<service>.json from the sandbox registry (--check only compares)."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="exit non-zero when a spec file is stale")

    def handle(self, *args, check: bool, **options):
        if check:
            stale = stale_specs()
            if stale:
                raise CommandError(f"stale sandbox specs (run manage.py sandbox_specs): {', '.join(stale)}")
            self.stdout.write("sandbox specs are up to date")
            return
        names = write_specs()
        self.stdout.write(f"wrote {len(names)} specs to {SPEC_DIR}")
