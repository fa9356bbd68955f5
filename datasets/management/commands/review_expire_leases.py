"""Clear review leases that ran out. The queue already hands such items to the next annotator; this tidies the
holder column the lists and the admin show. Safe to run from cron or a django-q schedule."""

from django.core.management.base import BaseCommand

from datasets.review import leases_expire


class Command(BaseCommand):
    help = "Return trajectories whose review lease expired to the queue (clears the holder)."

    def handle(self, *args, **options):
        self.stdout.write(f"{leases_expire()} expired lease(s) cleared")
