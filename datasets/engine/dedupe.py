"""Duplicate trajectories: the same chain template with the same arguments in every call is one item."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any


def dedupe_key(template_id: str, calls: Iterable[Mapping[str, Any]]) -> str:
    """sha256 of the chain template and each call's tool and arguments, in call order."""
    canonical = [template_id] + [
        [call["name"], sorted((str(k), str(v)) for k, v in (call.get("arguments") or {}).items())] for call in calls
    ]
    text = json.dumps(canonical, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Deduper:
    """Remembers keys already stored (seeded from the database) and those seen since."""

    def __init__(self, known: Iterable[str] = ()):
        self.seen = set(known)

    def is_new(self, key: str) -> bool:
        if key in self.seen:
            return False
        self.seen.add(key)
        return True
