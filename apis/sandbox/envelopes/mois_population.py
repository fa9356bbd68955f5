"""주민등록 인구 (1741000/stdgPpltnHhStus): {"Response":{"head":{resultCode "0",…},"items":{"item":[…]}}}."""

from __future__ import annotations

from typing import Any

from apis.sandbox.envelopes.base import Envelope, Page, PageRequest, dumps, record_schema
from apis.sandbox.envelopes.xmlout import document
from apis.sandbox.errors import ServiceError
from apis.sandbox.registry import Context, Operation, Param
from apis.sandbox.wire import JSON_UTF8, XML_UTF8, SandboxResponse, respond

MESSAGES = {
    "0": "NORMAL_SERVICE",
    "03": "결과 없음",
    "10": "잘못된 요청 파라메터 에러",
    "11": "필수요청 파라메터가 없음",
}


class PopulationEnvelope(Envelope):
    family = "mois_population"

    def response_format(self, ctx: Context) -> str:
        return "json" if (ctx.req.arg("type") or "").strip().lower() == "json" else "xml"

    def spec_params(self, op: Operation) -> list[Param]:
        return [
            Param("type", "응답 형식 (xml/json), 기본 xml", example="json", enum=("xml", "json")),
            Param("numOfRows", "한 페이지 결과 수", type="integer", example="10", default="10"),
            Param("pageNo", "페이지 번호", type="integer", example="1", default="1"),
        ]

    def page_request(self, ctx: Context) -> PageRequest:
        return PageRequest(ctx.params.int("pageNo", 1, minimum=1), ctx.params.int("numOfRows", 10, minimum=1))

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        if page.total == 0:
            return self.render_error(ctx, ServiceError("03"))
        head = {
            "resultCode": "0",
            "resultMsg": MESSAGES["0"],
            "numOfRows": str(page.size),
            "pageNo": str(page.number),
            "totalCount": str(page.total),
        }
        records = [dict(r) for r in page.records]
        if ctx.fmt == "json":
            items: Any = {"item": records[0] if len(records) == 1 else records} if records else ""
            return respond(dumps({"Response": {"head": head, "items": items}}), JSON_UTF8)
        return respond(document("Response", {"head": head, "items": {"item": records} if records else ""}), XML_UTF8)

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        head = {"resultCode": error.code, "resultMsg": error.message or MESSAGES.get(error.code, "UNKNOWN_ERROR")}
        if ctx.fmt == "json":
            return respond(dumps({"Response": {"head": head}}), JSON_UTF8, error.http_status)
        return respond(document("Response", {"head": head}), XML_UTF8, error.http_status)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "Response": {
                    "type": "object",
                    "properties": {
                        "head": {
                            "type": "object",
                            "properties": {
                                "resultCode": {"type": "string", "description": "결과코드 (0 정상)"},
                                "resultMsg": {"type": "string", "description": "결과메시지"},
                                "totalCount": {"type": "string", "description": "전체 결과 수"},
                            },
                        },
                        "items": {"type": "object", "properties": {"item": record_schema(op)}},
                    },
                }
            },
        }

    def spec_produces(self, op: Operation) -> list[str]:
        return ["application/xml", "application/json"]
