from django.urls import path

from apis.sandbox import views

app_name = "sandbox"
urlpatterns = [
    path("", views.sandbox, name="index"),
    path("<path:rest>", views.sandbox, name="emulate"),
]
