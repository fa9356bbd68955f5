"""Install the site's periodic django-q schedules (the stale-job sweeper); safe to run on every deploy."""

from django.core.management.base import BaseCommand

from kopa_site.jobs import schedules_install


class Command(BaseCommand):
    help = "Create or update the periodic schedules (idempotent)."

    def handle(self, *args, **options):
        for name, created in schedules_install():
            self.stdout.write(f"{'created' if created else 'updated'} schedule: {name}")
