from django.apps import AppConfig


class KopaSiteConfig(AppConfig):
    name = "kopa_site"
    verbose_name = "KOPA site"

    def ready(self):
        from django.core import checks
        from django.db.models.signals import post_migrate

        from kopa_site.permissions import check_view_roles
        from kopa_site.roles import sync_roles_after_migrate

        # The role groups and their permissions are (re)built after every migrate; see roles.py.
        post_migrate.connect(sync_roles_after_migrate, dispatch_uid="kopa_site.roles.sync")
        checks.register(check_view_roles, checks.Tags.urls)
