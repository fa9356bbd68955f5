"""The data.go.kr standard envelope: response/header/body/items/item, with each API's own quirks as options."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apis.sandbox.envelopes.base import Envelope, Page, PageRequest, dumps, record_schema
from apis.sandbox.envelopes.xmlout import DECLARATION, document, element
from apis.sandbox.errors import ServiceError
from apis.sandbox.registry import Context, Operation, Param
from apis.sandbox.wire import JSON_UTF8, XML_UTF8, SandboxResponse, respond

# resultCode -> resultMsg for service-level errors, as the portal's guides write them.
STANDARD_MESSAGES: dict[str, str] = {
    "01": "APPLICATION_ERROR",
    "02": "DB_ERROR",
    "03": "NODATA_ERROR",
    "04": "HTTP_ERROR",
    "05": "SERVICETIME_OUT",
    "10": "INVALID_REQUEST_PARAMETER_ERROR",
    "11": "NO_MANDATORY_REQUEST_PARAMETERS_ERROR",
    "12": "NO_OPENAPI_SERVICE_ERROR",
    "20": "SERVICE_ACCESS_DENIED_ERROR",
    "22": "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR",
    "30": "SERVICE_KEY_IS_NOT_REGISTERED_ERROR",
    "31": "DEADLINE_HAS_EXPIRED_ERROR",
    "32": "UNREGISTERED_IP_ERROR",
    "99": "UNKNOWN_ERROR",
}


@dataclass
class StandardEnvelope(Envelope):
    """Options mirror what differs between gateway APIs (research §2.1–2.4).

    json_switch: (parameter, value) that asks for JSON, compared case-insensitively, e.g. ("_type", "json"),
        ("dataType", "JSON"), ("returnType", "json"); None for XML-only APIs (the switch is then ignored).
    """

    json_switch: tuple[str, str] | None = ("_type", "json")
    success_code: str = "00"
    success_msg: str = "NORMAL SERVICE."
    messages: dict[str, str] = field(default_factory=dict)  # per-API overrides of STANDARD_MESSAGES
    single_item_as_object: bool = True  # one record => "item": {...}, not [...]
    bare_array: bool = False  # JSON "items": [...] without the "item" wrapper (AirKorea, MFDS)
    empty_items_json: Any = ""  # what JSON "items" is when there are no records
    counts_as_strings: bool = False  # JSON pageNo/numOfRows/totalCount as "1" rather than 1
    json_data_type: bool = False  # JSON body starts with "dataType":"JSON" (KMA)
    page_param: str = "pageNo"
    size_param: str = "numOfRows"
    default_rows: int = 10
    max_rows: int | None = None  # larger numOfRows is clamped silently (live caps differ per API)
    family: str = "datagokr_standard"

    def response_format(self, ctx: Context) -> str:
        if self.json_switch is None:
            return "xml"
        name, wanted = self.json_switch
        value = ctx.req.arg(name)
        return "json" if value is not None and value.strip().lower() == wanted.lower() else "xml"

    def spec_params(self, op: Operation) -> list[Param]:
        params = [
            Param(self.page_param, "페이지번호", type="integer", example="1", default="1"),
            Param(self.size_param, "한 페이지 결과 수", type="integer", example="10", default=str(self.default_rows)),
        ]
        if self.json_switch:
            name, value = self.json_switch
            params.append(
                Param(name, f"응답자료형식 (XML/{value.upper()}), 기본 XML", example=value, enum=("xml", value))
            )
        return params

    def page_request(self, ctx: Context) -> PageRequest:
        number = ctx.params.int(self.page_param, 1, minimum=1)
        size = ctx.params.int(self.size_param, self.default_rows, minimum=0)
        if self.max_rows is not None:
            size = min(size, self.max_rows)
        return PageRequest(number, size)

    def body_items(self, page: Page, as_json: bool) -> Any:
        records = [dict(r) for r in page.records]
        if as_json:
            if not records:
                return self.empty_items_json
            if self.bare_array:
                return records
            if len(records) == 1 and self.single_item_as_object:
                return {"item": records[0]}
            return {"item": records}
        return {"item": records} if records else None

    def count(self, value: int, as_json: bool) -> Any:
        return str(value) if (as_json and self.counts_as_strings) else value

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        header = {"resultCode": self.success_code, "resultMsg": self.success_msg}
        if ctx.fmt == "json":
            body: dict[str, Any] = {"dataType": "JSON"} if self.json_data_type else {}
            body["items"] = self.body_items(page, True)
            body[self.page_param] = self.count(page.number, True)
            body[self.size_param] = self.count(page.size, True)
            body["totalCount"] = self.count(page.total, True)
            return respond(dumps({"response": {"header": header, "body": body}}), JSON_UTF8)
        items = self.body_items(page, False)
        body_xml = {
            "items": items if items is not None else _EMPTY,
            self.size_param: page.size,
            self.page_param: page.number,
            "totalCount": page.total,
        }
        return respond(_render_xml(header, body_xml), XML_UTF8)

    def error_message(self, error: ServiceError) -> str:
        if error.message:
            return error.message
        return self.messages.get(error.code) or STANDARD_MESSAGES.get(error.code, "UNKNOWN_ERROR")

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        header = {"resultCode": error.code, "resultMsg": self.error_message(error)}
        if ctx.fmt == "json":
            return respond(dumps({"response": {"header": header}}), JSON_UTF8, error.http_status)
        return respond(document("response", {"header": header}), XML_UTF8, error.http_status)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return standard_response_schema(op)

    def spec_produces(self, op: Operation) -> list[str]:
        return ["application/xml", "application/json"] if self.json_switch else ["application/xml"]


class _Empty:
    """Marks <items/>: the XML form of an empty result."""


_EMPTY = _Empty()


def _render_xml(header: dict[str, Any], body: dict[str, Any]) -> str:
    parts = []
    for tag, value in body.items():
        parts.append(f"<{tag}/>" if value is _EMPTY else element(tag, value))
    return f"{DECLARATION}<response>{element('header', header)}<body>{''.join(parts)}</body></response>"


def standard_response_schema(op: Operation) -> dict[str, Any]:
    """response.header + response.body.items.item, the shape data.go.kr's own Swagger documents use."""
    return {
        "type": "object",
        "properties": {
            "response": {
                "type": "object",
                "properties": {
                    "header": {
                        "type": "object",
                        "properties": {
                            "resultCode": {"type": "string", "description": "결과코드"},
                            "resultMsg": {"type": "string", "description": "결과메세지"},
                        },
                    },
                    "body": {
                        "type": "object",
                        "properties": {
                            "items": {"type": "object", "properties": {"item": record_schema(op)}},
                            "numOfRows": {"type": "integer", "description": "한 페이지 결과 수"},
                            "pageNo": {"type": "integer", "description": "페이지 번호"},
                            "totalCount": {"type": "integer", "description": "전체 결과 수"},
                        },
                    },
                },
            }
        },
    }
