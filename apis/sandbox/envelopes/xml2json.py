"""The data.go.kr gateway's XML-to-JSON conversion for services that only speak XML inside (HIRA, NMC):
item text that reads as a number becomes a JSON number, unless a leading zero would be lost.

Captured HIRA bodies show it: "trmtMonStart":"0930" next to "trmtMonEnd":1830, "XPos":126.7248987,
"sidoCd":220000. Fields listed in keep_text stay strings whatever they hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from apis.sandbox.envelopes.base import Page
from apis.sandbox.envelopes.standard import StandardEnvelope

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")


def json_value(value: Any) -> Any:
    """ "1830" -> 1830, "127.0985" -> 127.0985, "0930"/"02-123-4567"/"" stay text."""
    if type(value) is not str or not _NUMBER.fullmatch(value):
        return value
    if "." in value:
        return float(value)
    number = int(value)
    return number if abs(number) < 2**53 else value


@dataclass
class ConvertedJsonEnvelope(StandardEnvelope):
    """StandardEnvelope whose JSON items pass through the gateway's number conversion."""

    keep_text: frozenset[str] = field(default_factory=frozenset)

    def body_items(self, page: Page, as_json: bool) -> Any:
        if as_json:
            converted = [
                {k: (v if k in self.keep_text else json_value(v)) for k, v in record.items()} for record in page.records
            ]
            page = Page(converted, page.total, page.number, page.size, page.meta)
        return super().body_items(page, as_json)
