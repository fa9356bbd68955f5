from django.urls import path

from datasets import review_views, views

app_name = "datasets"
urlpatterns = [
    path("", views.index, name="index"),
    path("all/", views.trajectory_list_page, name="trajectories"),
    path("<int:pk>/", views.trajectory_detail_page, name="trajectory"),
    path("runs/", views.run_list_page, name="runs"),
    path("runs/start/", views.run_start, name="run_start"),
    path("runs/<int:pk>/", views.run_detail, name="run"),
    # The review console (datasets/review_views.py).
    path("review/", review_views.queue_page, name="review"),
    path("review/next/", review_views.queue_next, name="review_next"),
    path("review/bulk/", review_views.bulk_decide, name="review_bulk"),
    path("review/<int:pk>/", review_views.review_screen, name="review_item"),
    path("review/<int:pk>/claim/", review_views.review_claim, name="review_claim"),
    path("review/<int:pk>/release/", review_views.review_release, name="review_release"),
    path("review/<int:pk>/approve/", review_views.review_decide, {"decision": "approve"}, name="review_approve"),
    path("review/<int:pk>/reject/", review_views.review_decide, {"decision": "reject"}, name="review_reject"),
    path("review/<int:pk>/undo/", review_views.review_undo, name="review_undo"),
    path("review/<int:pk>/edit/", review_views.review_edit, name="review_edit"),
    path("review/<int:pk>/calls/<int:seq>/reexecute/", review_views.review_reexecute, name="review_reexecute"),
    path("review/<int:pk>/restore/", review_views.review_restore, name="review_restore"),
    path("versions/", review_views.version_list_page, name="versions"),
    path("versions/freeze/", review_views.version_freeze, name="version_freeze"),
    path("versions/<int:pk>/", review_views.version_detail, name="version"),
    path("versions/<int:pk>/export/", review_views.version_export, name="version_export"),
    path("versions/<int:pk>/openai.jsonl", review_views.version_download, name="version_download"),
    path("guidelines/", review_views.guidelines_page, name="guidelines"),
    path("dashboard/", review_views.dashboard_page, name="dashboard"),
]
