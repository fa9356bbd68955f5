"""Template filters of the KOPA-Bench pages: rates as percentages, estimates with their 95 % interval."""

from __future__ import annotations

import json

from django import template
from django.utils.safestring import mark_safe

register = template.Library()


@register.filter
def pct(value, digits: int = 1) -> str:
    """0.627 -> "62.7"; None -> "–"."""
    if value is None or value == "":
        return "–"
    return f"{float(value) * 100:.{int(digits)}f}"


@register.filter
def estimate(data) -> str:
    """{"value", "low", "high"} -> "62.7 % [51.0, 73.1]" (the interval in a muted span); None -> "–"."""
    if not data:
        return "–"
    # The three parts are numbers formatted here (pct raises on anything else), so nothing needs escaping;
    # this runs for every cell of a 200-model leaderboard, where format_html's escaping was a third of the page.
    value, low, high = pct(data["value"]), pct(data["low"]), pct(data["high"])
    return mark_safe(f'{value} %<span class="ci"> [{low}, {high}]</span>')


@register.filter
def pretty_json(value, indent: int = 2) -> str:
    """JSON as people read it: Korean as itself, indented (0: on one line)."""
    return json.dumps(value, ensure_ascii=False, indent=int(indent) or None, default=str)


@register.filter
def number(value, digits: int = 2) -> str:
    if value is None or value == "":
        return "–"
    return f"{float(value):,.{int(digits)}f}"


@register.filter
def get(mapping, key):
    if not mapping:
        return None
    return mapping.get(key)


@register.filter
def yesno_mark(value) -> str:
    """True -> "✓ yes", False -> "✗ no": a word beside the mark, so colour and shape are not the only cue."""
    return "✓ yes" if value else "✗ no"
