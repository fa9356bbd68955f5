"""A readable diff of two JSON values: the paths that changed, were added or were removed. Plain Python."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Change:
    path: str
    kind: str  # "changed", "added", "removed"
    before: Any = None
    after: Any = None


def json_diff(before: Any, after: Any, *, path: str = "", limit: int = 500) -> list[Change]:
    """Every leaf that differs between `before` and `after`, depth first, at most `limit` changes."""
    out: list[Change] = []
    _walk(before, after, path, out, limit)
    return out


def _walk(before: Any, after: Any, path: str, out: list[Change], limit: int) -> None:
    if len(out) >= limit:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in list(before) + [k for k in after if k not in before]:
            sub = f"{path}.{key}" if path else str(key)
            if key not in after:
                out.append(Change(sub, "removed", before=before[key]))
            elif key not in before:
                out.append(Change(sub, "added", after=after[key]))
            else:
                _walk(before[key], after[key], sub, out, limit)
            if len(out) >= limit:
                return
    elif isinstance(before, list) and isinstance(after, list):
        for i in range(max(len(before), len(after))):
            sub = f"{path}[{i}]"
            if i >= len(after):
                out.append(Change(sub, "removed", before=before[i]))
            elif i >= len(before):
                out.append(Change(sub, "added", after=after[i]))
            else:
                _walk(before[i], after[i], sub, out, limit)
            if len(out) >= limit:
                return
    elif before != after or type(before) is not type(after):
        out.append(Change(path or "(value)", "changed", before=before, after=after))
