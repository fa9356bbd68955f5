from django.urls import path

from apis import views

app_name = "apis"
urlpatterns = [
    path("", views.index, name="index"),
]
