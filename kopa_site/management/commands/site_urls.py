"""Print where each part of the running site lives."""

from django.core.management.base import BaseCommand
from django.urls import NoReverseMatch, reverse

PAGES = [
    ("Home (counts)", "home"),
    ("Login", "login"),
    ("API catalog", "apis:index"),
    ("EDGE graph", "graphs:index"),
    ("Trajectories / review", "datasets:index"),
    ("KOPA-Bench", "benchmarks:index"),
    ("Training", "training:index"),
    ("Jobs", "jobs:list"),
    ("Sandbox index", "sandbox:index"),
    ("Admin", "admin:index"),
    ("API root", "api-root"),
    ("API docs (Swagger UI)", "api-docs"),
    ("API docs (Redoc)", "api-redoc"),
]


class Command(BaseCommand):
    help = "Print the URLs of the site's pages."

    def add_arguments(self, parser):
        parser.add_argument("--base", default="http://127.0.0.1:8000")

    def handle(self, *args, base, **options):
        base = base.rstrip("/")
        self.stdout.write(self.style.SUCCESS(f"KOPA Console is running at {base}/"))
        for label, name in PAGES:
            try:
                self.stdout.write(f"  {label:<24} {base}{reverse(name)}")
            except NoReverseMatch:
                continue
