"""A response body as people read it: the exact text the API sent, with JSON indented and XML one element a line
(nothing else changes), cut at a limit so a huge body cannot swamp a page."""

from __future__ import annotations

import contextlib
import json
import re

RAW_LIMIT = 200_000
# Two tags touching in a one-line XML body; whitespace between tags is data (" " quirks) and stays as sent.
_TAG_GAP = re.compile(r"><")


def body_kind(text: str | None) -> str:
    """ "JSON", "XML" or "text": what the body is, for a label."""
    stripped = (text or "").lstrip()
    if stripped.startswith(("{", "[")):
        return "JSON"
    return "XML" if stripped.startswith("<") else "text"


def pretty_body(text: str | None, limit: int = RAW_LIMIT) -> str:
    """JSON indented, XML one element per line, anything else as it came; cut at `limit` characters."""
    if not text:
        return ""
    shown = text
    kind = body_kind(text)
    if kind == "JSON":
        with contextlib.suppress(ValueError):
            shown = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    elif kind == "XML" and "\n<" not in text:
        shown = _TAG_GAP.sub(">\n<", text)
    return shown if len(shown) <= limit else shown[:limit] + f"\n… ({len(shown) - limit:,} more characters)"
