"""URLs of the KOPA-Bench pages (under /bench/)."""

from django.urls import path

from benchmarks import views

app_name = "benchmarks"
urlpatterns = [
    path("", views.index, name="index"),
    path("tasks/<str:code>/", views.task_detail, name="task"),
    path("models/", views.model_list_page, name="models"),
    path("models/new/", views.model_edit, name="model_new"),
    path("models/<int:pk>/edit/", views.model_edit, name="model_edit"),
    path("runs/", views.run_list_page, name="runs"),
    path("runs/start/", views.run_start, name="run_start"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    path("runs/<int:pk>/resume/", views.run_resume, name="run_resume"),
    path("results/<int:pk>/", views.result_detail, name="result"),
    path("leaderboard/", views.leaderboard_page, name="leaderboard"),
]
