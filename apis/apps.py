from django.apps import AppConfig


class ApisConfig(AppConfig):
    name = "apis"
    verbose_name = "API catalog"
