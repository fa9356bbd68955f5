"""The sandbox's mount in the site: /sandbox/ and everything under it (apis/sandbox/ itself stays Django-free)."""

from django.urls import path

from apis import sandbox_views as views

app_name = "sandbox"
urlpatterns = [
    path("", views.sandbox, name="index"),
    path("<path:rest>", views.sandbox, name="emulate"),
]
