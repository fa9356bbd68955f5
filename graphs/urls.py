from django.urls import path

from graphs import views

app_name = "graphs"
urlpatterns = [
    path("", views.index, name="index"),
    path("edges/", views.edge_list_page, name="edges"),
    path("edges/<int:pk>/", views.edge_detail, name="edge"),
    path("propose/", views.propose_start, name="propose"),
    path("runs/", views.run_list_page, name="runs"),
    path("runs/start/", views.run_start, name="run_start"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    path("runs/<int:pk>/live/", views.run_live, name="run_live"),
    path("runs/<int:pk>/resume/", views.run_resume, name="run_resume"),
    path("snapshots/", views.snapshot_list_page, name="snapshots"),
    path("snapshots/take/", views.snapshot_take, name="snapshot_take"),
    path("snapshots/<int:pk>/", views.snapshot_detail, name="snapshot"),
    path("snapshots/<int:pk>/export.<str:fmt>", views.snapshot_download, name="snapshot_download"),
]
