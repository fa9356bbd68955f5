"""에어코리아 (B552584) flavour of the data.go.kr envelope: returnType=json, NORMAL_SERVICE, JSON items as a bare
array ("items":[…], empty as []), and null fields (e.g. pm10Flag) kept as null in JSON and empty elements in XML."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apis.sandbox.envelopes.base import Page
from apis.sandbox.envelopes.standard import StandardEnvelope


@dataclass
class AirKoreaEnvelope(StandardEnvelope):
    json_switch: tuple[str, str] | None = ("returnType", "json")
    success_code: str = "00"
    success_msg: str = "NORMAL_SERVICE"
    bare_array: bool = True
    empty_items_json: Any = field(default_factory=list)
    family: str = "datagokr_airkorea"

    def body_items(self, page: Page, as_json: bool) -> Any:
        if as_json:
            return super().body_items(page, True)
        # The XML writer drops None inside a record; live keeps a null flag as an empty element.
        records = [{k: ("" if v is None else v) for k, v in r.items()} for r in page.records]
        return {"item": records} if records else None
