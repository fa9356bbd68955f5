"""법정동코드 (1741000/StanReginCd): {"StanReginCd":[{"head":[…]},{"row":[…]}]}, INFO-0 "NOMAL SERVICE" (sic),
INFO-3 for no data, JSON sent as text/html, and an error for more than 1000 rows per call (reported)."""

from __future__ import annotations

from typing import Any

from apis.sandbox.envelopes.base import Envelope, Page, PageRequest, dumps, record_schema
from apis.sandbox.envelopes.xmlout import document
from apis.sandbox.errors import ServiceError
from apis.sandbox.registry import Context, Operation, Param
from apis.sandbox.wire import HTML_UTF8, XML_UTF8, SandboxResponse, respond

MESSAGES = {
    "INFO-0": "NOMAL SERVICE",
    "INFO-3": "데이터없음 에러",
    "ERROR-1": "요청건수 초과 에러",
    "ERROR-2": "잘못된 요청 파라메터 에러",
}
MAX_ROWS = 1000


class StanReginCdEnvelope(Envelope):
    family = "stanregincd"
    root = "StanReginCd"

    def response_format(self, ctx: Context) -> str:
        return "json" if (ctx.req.arg("type") or "").strip().lower() == "json" else "xml"

    def spec_params(self, op: Operation) -> list[Param]:
        return [
            Param("pageNo", "페이지 번호", type="integer", example="1", default="1"),
            Param("numOfRows", "한 페이지 결과 수 (최대 1000)", type="integer", example="10", default="10"),
            Param("type", "응답 형식 (xml/json), 기본 xml", example="json", enum=("xml", "json")),
        ]

    def page_request(self, ctx: Context) -> PageRequest:
        try:
            number = ctx.params.int("pageNo", 1, minimum=1, code="ERROR-2")
            size = ctx.params.int("numOfRows", 10, minimum=1, code="ERROR-2")
        except ServiceError:
            raise ServiceError("ERROR-2") from None
        if size > MAX_ROWS:
            raise ServiceError("ERROR-1")
        return PageRequest(number, size)

    def _head(self, ctx: Context, page: Page) -> list[dict[str, Any]]:
        return [
            {"totalCount": page.total},
            {"numOfRows": str(page.size), "pageNo": str(page.number), "type": ctx.fmt.upper()},
            {"RESULT": {"resultCode": "INFO-0", "resultMsg": MESSAGES["INFO-0"]}},
        ]

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        if page.total == 0:
            return self.render_error(ctx, ServiceError("INFO-3"))
        rows = [dict(r) for r in page.records]
        if ctx.fmt == "json":
            return respond(dumps({self.root: [{"head": self._head(ctx, page)}, {"row": rows}]}), HTML_UTF8)
        head = {
            "totalCount": page.total,
            "numOfRows": page.size,
            "pageNo": page.number,
            "type": "XML",
            "RESULT": {"resultCode": "INFO-0", "resultMsg": MESSAGES["INFO-0"]},
        }
        return respond(document(self.root, {"head": head, "row": rows}), XML_UTF8)

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        result = {"resultCode": error.code, "resultMsg": error.message or MESSAGES.get(error.code, "")}
        if ctx.fmt == "json":
            return respond(dumps({"RESULT": result}), HTML_UTF8, error.http_status)
        return respond(document("RESULT", result), XML_UTF8, error.http_status)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                self.root: {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "head": {
                                "type": "array",
                                "items": {"type": "object"},
                                "description": "totalCount, numOfRows, pageNo, type, RESULT",
                            },
                            "row": {"type": "array", "items": record_schema(op)},
                        },
                    },
                }
            },
        }

    def spec_produces(self, op: Operation) -> list[str]:
        return ["application/xml", "text/html"]
