"""Site-wide pages: home, and the jobs pages (kopa_site/job_pages.py)."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import include, path

from kopa_site import job_pages
from kopa_site.navigation import PARTS, part_for_app, resolve_first
from kopa_site.roles import SITE_APPS
from kopa_site.selectors import site_counts, users_by_role


def home_sections(counts) -> list[dict]:
    """The counts grouped by the part of the console that shows them, in navigation order."""
    in_nav = [part.app_label for part in PARTS if part.app_label in SITE_APPS]
    sections = []
    for app_label in in_nav + [label for label in SITE_APPS if label not in in_nav]:
        rows = [row for row in counts if row.app_label == app_label]
        part = part_for_app(app_label)
        sections.append(
            {
                "app_label": app_label,
                "label": part.label if part else app_label,
                "summary": part.summary if part else "",
                "url": resolve_first(part.url_names) if part else None,
                "rows": rows,
                "total": sum(row.count for row in rows),
            }
        )
    return sections


@login_required
def home(request):
    return render(
        request,
        "home.html",
        {"sections": home_sections(site_counts()), "users_by_role": users_by_role()},
    )


urlpatterns = [
    path("", home, name="home"),
    path("jobs/", include((job_pages.urlpatterns, "jobs"))),
]
