"""Canonical tool calls: one spelling for argument values, so a gold call and a model's call compare as equal
when they would send the same request.

Rules (docs/bench.md, "Canonical calls"): text is NFKC-normalised (full-width digits and letters become
ASCII), trimmed, and inner runs of whitespace become one space; numbers become their decimal text (2026 and
"2026" agree, 3.0 is "3"); booleans are "true"/"false"; None and "" mean "not given"; lists compare as
sorted multisets; objects compare key by key. Leading zeros are kept: "07" and "7" differ, because codes
such as 지번 "0023" depend on them (a task lists both spellings as alternatives when the API accepts both).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

_SPACES = re.compile(r"\s+")

# Marks an argument whose value does not matter (any value, or none at all).
ANY = "*"


def canonical_value(value: Any) -> Any:
    """A hashable, comparable form of one argument value; None when the value counts as absent."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, str):
        text = _SPACES.sub(" ", unicodedata.normalize("NFKC", value)).strip()
        return text or None
    if isinstance(value, Mapping):
        items = ((str(k), canonical_value(v)) for k, v in value.items())
        return ("{}", tuple(sorted((k, v) for k, v in items if v is not None)))
    if isinstance(value, list | tuple | set | frozenset):
        members = [canonical_value(v) for v in value]
        return ("[]", tuple(sorted((m for m in members if m is not None), key=_sort_key)))
    return canonical_value(str(value))


def _sort_key(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def canonical_args(args: Mapping[str, Any] | None, *, ignore: Iterable[str] = ()) -> tuple[tuple[str, Any], ...]:
    """Arguments as a sorted tuple of (name, canonical value), without absent values and ignored names."""
    skip = set(ignore)
    pairs = ((str(k), canonical_value(v)) for k, v in (args or {}).items() if str(k) not in skip)
    return tuple(sorted((k, v) for k, v in pairs if v is not None))


def canonical_call(tool: str, args: Mapping[str, Any] | None, *, ignore: Iterable[str] = ()) -> tuple[str, tuple]:
    return tool, canonical_args(args, ignore=ignore)


def value_matches(expected: Any, actual: Any, alternatives: Any = None) -> bool:
    """Whether a model's value for one argument is acceptable: the gold value, or one of its alternatives.

    alternatives is None (only the gold value), ANY (anything, including leaving it out), or a list whose
    members are further accepted values; None in that list means "may be left out".
    """
    if alternatives == ANY:
        return True
    got = canonical_value(actual)
    if got == canonical_value(expected):
        return True
    if alternatives is None:
        return False
    return any(got == canonical_value(option) for option in alternatives)
