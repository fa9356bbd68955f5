"""Template tags shared by the site's pages."""

import json

from django import template

from kopa_site.model_names import MODEL_NAMES_PLURAL
from kopa_site.selectors import site_counts

register = template.Library()


@register.simple_tag
def part_counts(app_label: str) -> dict:
    """Row counts of one app's models: {"rows": [ModelCount, ...], "total": n}."""
    rows = site_counts(app_labels=(app_label,))
    return {"rows": rows, "total": sum(row.count for row in rows)}


@register.filter
def param_items(params) -> list[tuple[str, str]]:
    """A run's parameters as (name, value) pairs for a page: lists joined, nested objects as compact JSON,
    nothing printed as a Python repr (issue 18: run pages showed `{'count': 6, ...}`). Names in alphabetical
    order: PostgreSQL's jsonb keeps no insertion order, so any other order would differ between databases."""
    if not isinstance(params, dict):
        return []
    return [(str(name), _param_text(params[name])) for name in sorted(params, key=str)]


def _param_text(value) -> str:
    if value is None or value == "" or value == [] or value == {}:
        return "–"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple) and all(not isinstance(v, dict | list) for v in value):
        return ", ".join(_param_text(v) for v in value)
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return str(value)


@register.filter
def pretty_json(value) -> str:
    """Indented JSON with Korean kept readable, for arguments and records shown on a page."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


@register.filter
def plural_name(row) -> str:
    """A ModelCount's model name in the page's language (kopa_site.model_names); Django's own name otherwise."""
    return str(MODEL_NAMES_PLURAL.get(row.key, row.verbose_name_plural))
