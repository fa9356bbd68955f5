"""Mark running jobs whose worker stopped sending heartbeats as failed (the schedule runs this every minute)."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from kopa_site.jobs import jobs_sweep_stale


class Command(BaseCommand):
    help = "Fail running jobs with no heartbeat for JOB_HEARTBEAT_TIMEOUT seconds, saying why."

    def add_arguments(self, parser):
        parser.add_argument(
            "--timeout",
            type=int,
            default=None,
            help=f"seconds without a heartbeat (default JOB_HEARTBEAT_TIMEOUT = {settings.JOB_HEARTBEAT_TIMEOUT})",
        )

    def handle(self, *args, timeout=None, **options):
        if timeout is not None and timeout < 1:
            raise CommandError(f"--timeout must be at least 1 second; got {timeout}")
        swept = jobs_sweep_stale(timeout=timeout)
        if swept:
            self.stdout.write(f"marked {len(swept)} stale job(s) failed: " + ", ".join(f"#{pk}" for pk in swept))
        else:
            self.stdout.write("no stale jobs")
