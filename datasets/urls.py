from django.urls import path

from datasets import views

app_name = "datasets"
urlpatterns = [
    path("", views.index, name="index"),
    path("all/", views.trajectory_list_page, name="trajectories"),
    path("<int:pk>/", views.trajectory_detail_page, name="trajectory"),
    path("runs/", views.run_list_page, name="runs"),
    path("runs/start/", views.run_start, name="run_start"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
]
