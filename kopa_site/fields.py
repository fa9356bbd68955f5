"""A JSONField that keeps the order of object keys on every database.

PostgreSQL stores JSONField as jsonb, which reorders object keys (shortest first). A tool's parameters
must keep the order its spec gives them: it is the order a model reads in the function schema and a
person sees in the try-it form. Arrays keep their order in jsonb, so each object carries its key order
in a list under ORDER_KEY, and reading restores it. Values without the marker read as they are.
"""

from __future__ import annotations

from typing import Any

from django.db import models

ORDER_KEY = "__key_order__"


def mark_order(value: Any) -> Any:
    if isinstance(value, dict):
        marked = {key: mark_order(item) for key, item in value.items() if key != ORDER_KEY}
        marked[ORDER_KEY] = [key for key in value if key != ORDER_KEY]
        return marked
    if isinstance(value, list):
        return [mark_order(item) for item in value]
    return value


def restore_order(value: Any) -> Any:
    if isinstance(value, dict):
        order = value.get(ORDER_KEY)
        keys = [key for key in order if key in value] if isinstance(order, list) else []
        keys += [key for key in value if key not in keys and key != ORDER_KEY]
        return {key: restore_order(value[key]) for key in keys}
    if isinstance(value, list):
        return [restore_order(item) for item in value]
    return value


class OrderedJSONField(models.JSONField):
    def get_prep_value(self, value):
        return super().get_prep_value(mark_order(value))

    def from_db_value(self, value, expression, connection):
        return restore_order(super().from_db_value(value, expression, connection))
