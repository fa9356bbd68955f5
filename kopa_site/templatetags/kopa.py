"""Template tags shared by the site's pages."""

from django import template

from kopa_site.selectors import site_counts

register = template.Library()


@register.simple_tag
def part_counts(app_label: str) -> dict:
    """Row counts of one app's models: {"rows": [ModelCount, ...], "total": n}."""
    rows = site_counts(app_labels=(app_label,))
    return {"rows": rows, "total": sum(row.count for row in rows)}
