from django.urls import path

from training import views

app_name = "training"
urlpatterns = [
    path("", views.index, name="index"),
    path("runs/start/", views.run_start, name="run_start"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    path("runs/<int:pk>/cancel/", views.run_cancel, name="run_cancel"),
    path("runs/<int:pk>/resume/", views.run_resume, name="run_resume"),
]
