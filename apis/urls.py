"""URLs of the catalog pages (under /catalog/)."""

from django.urls import path

from apis import views

app_name = "apis"
urlpatterns = [
    path("", views.index, name="index"),
    path("import-bundled/", views.import_bundled, name="import_bundled"),
    path("services/<int:pk>/", views.service_detail, name="service"),
    path("services/<int:pk>/credential/", views.service_credential, name="service_credential"),
    path("services/<int:pk>/base-url/", views.service_base_url, name="service_base_url"),
    path("tools/<int:pk>/", views.tool_detail, name="tool"),
    path("tools/<int:pk>/try/", views.tool_try, name="tool_try"),
    path("calls/", views.call_log, name="calls"),
    path("calls/<int:pk>/", views.call_detail, name="call"),
    path("calls/<int:pk>/drift/", views.call_drift, name="call_drift"),
]
