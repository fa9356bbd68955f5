"""A small, predictable XML writer (compact, UTF-8, escaped) for the envelopes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'


def _escape(text: str) -> str:
    if "&" in text or "<" in text or ">" in text:
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text


def element(tag: str, value: Any) -> str:
    """<tag>value</tag>; a dict nests, a list repeats the tag, None and "" give an empty element."""
    # Plain strings first: they are nearly every value, and this runs for every field of every record.
    if type(value) is str:
        return f"<{tag}>{_escape(value)}</{tag}>" if value else f"<{tag}></{tag}>"
    if isinstance(value, Mapping):
        inner = "".join([element(k, v) for k, v in value.items() if v is not None])
        return f"<{tag}>{inner}</{tag}>"
    if isinstance(value, list | tuple):
        return "".join([element(tag, v) for v in value])
    if value is None:
        return f"<{tag}></{tag}>"
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"<{tag}>{_escape(str(value))}</{tag}>"


def document(root: str, value: Any, *, declaration: bool = True) -> str:
    return (DECLARATION if declaration else "") + element(root, value)
