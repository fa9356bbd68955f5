"""Bring a database up to date and load what the site ships with; safe to run on every start."""

from django.core.management import call_command
from django.core.management.base import BaseCommand

from kopa_site.env import env_str

# Each step is a management command and its arguments, run in order; every step must be idempotent.
STEPS: list[tuple[str, list[str]]] = [
    ("migrate", ["--noinput"]),
    ("setup_schedules", []),
    ("catalog_import", ["--bundled"]),
    ("bench_load_tasks", []),  # benchmarks/tasks/, when it holds task files (after the catalog it checks against)
    ("create_demo_users", ["--password", env_str("KOPA_DEMO_PASSWORD", "kopa-demo") or "kopa-demo"]),
]


class Command(BaseCommand):
    help = "Migrate, install schedules, load bundled data and create demo users (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-demo-users",
            action="store_true",
            help="Skip the demo users (production: `./kopa serve`; their password is public).",
        )

    def handle(self, *args, **options):
        for name, arguments in STEPS:
            if name == "create_demo_users" and options["no_demo_users"]:
                continue
            self.stdout.write(self.style.MIGRATE_HEADING(f"== {name} {' '.join(arguments)}"))
            call_command(name, *arguments, stdout=self.stdout, stderr=self.stderr)
