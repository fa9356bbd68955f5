"""식품의약품안전처 (1471000) JSON: {"header":{…},"body":{"pageNo","totalCount","numOfRows","items":[…]}} with no
"response" root, items as a bare array, nulls for empty fields and "<\\/p>" escaped as the live serializer does.
XML keeps the standard response/header/body form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apis.sandbox.envelopes.base import Page, dumps, record_schema
from apis.sandbox.envelopes.standard import StandardEnvelope
from apis.sandbox.envelopes.xmlout import DECLARATION, element
from apis.sandbox.errors import ServiceError
from apis.sandbox.registry import Context, Operation
from apis.sandbox.wire import JSON_UTF8, XML_UTF8, SandboxResponse, respond


def mfds_json(value: Any) -> str:
    """Compact JSON with "</" written "<\\/" (org.json's escaping, visible in captured bodies)."""
    return dumps(value).replace("</", "<\\/")


@dataclass
class MfdsEnvelope(StandardEnvelope):
    json_switch: tuple[str, str] | None = ("type", "json")
    family: str = "mfds"

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        header = {"resultCode": self.success_code, "resultMsg": self.success_msg}
        records = [dict(r) for r in page.records]
        if ctx.fmt == "json":
            body = {"pageNo": page.number, "totalCount": page.total, "numOfRows": page.size, "items": records}
            return respond(mfds_json({"header": header, "body": body}), JSON_UTF8)
        items = element("items", {"item": records}) if records else "<items/>"
        body_xml = f"{element('pageNo', page.number)}{element('totalCount', page.total)}{element('numOfRows', page.size)}{items}"
        return respond(
            f"{DECLARATION}<response>{element('header', header)}<body>{body_xml}</body></response>", XML_UTF8
        )

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        header = {"resultCode": error.code, "resultMsg": self.error_message(error)}
        if ctx.fmt == "json":
            return respond(mfds_json({"header": header}), JSON_UTF8, error.http_status)
        return respond(f"{DECLARATION}<response>{element('header', header)}</response>", XML_UTF8, error.http_status)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "header": {
                    "type": "object",
                    "properties": {"resultCode": {"type": "string"}, "resultMsg": {"type": "string"}},
                },
                "body": {
                    "type": "object",
                    "properties": {
                        "pageNo": {"type": "integer"},
                        "totalCount": {"type": "integer"},
                        "numOfRows": {"type": "integer"},
                        "items": {"type": "array", "items": record_schema(op)},
                    },
                },
            },
        }
