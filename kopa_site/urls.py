"""Root URL map: pages per app, one API router under /api/v1/, admin, and the sandbox."""

from django.contrib import admin
from django.urls import include, path

from kopa_site.auth import ThrottledLoginView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    # set_language: the header's language switcher posts here (kopa_site/language.py).
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", include("kopa_site.api.urls")),
    path("catalog/", include("apis.urls")),
    path("graph/", include("graphs.urls")),
    path("trajectories/", include("datasets.urls")),
    path("bench/", include("benchmarks.urls")),
    path("training/", include("training.urls")),
    path("sandbox/", include("apis.sandbox_urls")),
    path("", include("kopa_site.pages")),
]
