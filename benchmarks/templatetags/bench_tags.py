"""Template filters of the KOPA-Bench pages: rates as percentages, estimates with their 95 % interval."""

from __future__ import annotations

import json

from django import template
from django.utils.html import format_html

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
    return format_html('{} %<span class="ci"> [{}, {}]</span>', pct(data["value"]), pct(data["low"]), pct(data["high"]))


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
