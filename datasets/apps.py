from django.apps import AppConfig

LEASE_SCHEDULE = "kopa: expire review leases"


class DatasetsConfig(AppConfig):
    name = "datasets"
    verbose_name = "Trajectories"

    def ready(self):
        from kopa_site.jobs import schedule_register

        # Every minute: a lease that ran out stops showing its holder in lists and the admin (the queue already
        # hands such items on; this keeps the holder column true).
        schedule_register(name=LEASE_SCHEDULE, func="datasets.tasks.expire_review_leases", minutes=1)
