from django.contrib import admin  # noqa: F401
