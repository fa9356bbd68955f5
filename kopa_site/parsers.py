"""The API's JSON parser: bounded nesting, finite numbers and valid Unicode, or a 400 (issue 17, points 2, 4, 7).

DRF's own parser hands a 100,000-deep array to json.loads, whose RecursionError became a 500 (on the anonymous
token endpoint too); accepts 1e400 and NaN, which later fail a database JSON check after the call went out;
and lone surrogates ("\\ud800"), which fail as soon as anything encodes them. All three are refused here,
before any view sees the body.
"""

from __future__ import annotations

import json
import math
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

DEFAULT_MAX_DEPTH = 64


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows here")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range (numbers must be finite)")
    return value


def loads_strict(text: str | bytes) -> Any:
    """json.loads refusing NaN/Infinity and numbers that overflow to infinity; ValueError or RecursionError."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)


def check_value(value: Any, *, max_depth: int = DEFAULT_MAX_DEPTH) -> None:
    """ValueError unless `value` nests at most max_depth deep, has finite numbers and encodable strings."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            raise ValueError(f"nested deeper than {max_depth} levels")
        if isinstance(node, dict):
            for key, item in node.items():
                stack.append((key, depth))
                stack.append((item, depth + 1))
        elif isinstance(node, list | tuple):
            stack.extend((item, depth + 1) for item in node)
        elif isinstance(node, float) and not math.isfinite(node):
            raise ValueError("numbers must be finite")
        elif isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("strings must be valid Unicode (a lone surrogate such as \\ud800 is not)") from None


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = stream.read().decode(encoding)
            data = loads_strict(text) if text.strip() else {}
            check_value(data, max_depth=getattr(settings, "KOPA_API_MAX_DEPTH", DEFAULT_MAX_DEPTH))
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
        except (ValueError, UnicodeDecodeError) as error:
            raise ParseError(f"JSON parse error - {error}") from None
        return data
