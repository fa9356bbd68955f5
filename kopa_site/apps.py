from django.apps import AppConfig


class KopaSiteConfig(AppConfig):
    name = "kopa_site"
    verbose_name = "KOPA site"
