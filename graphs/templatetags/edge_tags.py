"""Template filters of the EDGE graph pages."""

from django import template

register = template.Library()


@register.filter
def percent(value, digits: int = 1) -> str:
    """0.627 -> "62.7 %"; None -> "–"."""
    if value is None or value == "":
        return "–"
    return f"{float(value) * 100:.{int(digits)}f} %"
