"""서울시 버스정보 (ws.bus.go.kr): {"comMsgHeader":…,"msgHeader":{"headerCd":"0",…,"itemCount":0},"msgBody":{"itemList":[…]}}
or <ServiceResult>; no paging, "결과가 없습니다." (headerCd 4) for no rows, and key failures from the bus system's
own 인증모듈 (headerCd 7, HTTP 200, always XML) rather than the data.go.kr gateway.
"""

from __future__ import annotations

from typing import Any

from apis.sandbox.auth import DOUBLE_ENCODED, INVALID, MISSING, QUOTA, Auth
from apis.sandbox.envelopes.base import Envelope, Page, PageRequest, dumps, record_schema
from apis.sandbox.envelopes.xmlout import DECLARATION, element
from apis.sandbox.errors import ServiceError
from apis.sandbox.registry import Context, Operation, Param, Result
from apis.sandbox.wire import JSON_UTF8, XML_UTF8, SandboxResponse, respond

# headerCd -> headerMsg as the bus system's guide lists them; 4 is the text seen for an empty result.
MESSAGES = {
    "0": "정상적으로 처리되었습니다.",
    "1": "시스템 오류가 발생하였습니다.",
    "2": "잘못된 쿼리 요청입니다. 쿼리 변수가 정확한지 확인하세요.",
    "3": "정류소를 찾을 수 없습니다.",
    "4": "결과가 없습니다.",
    "7": "Key인증실패: SERVICE KEY IS NOT REGISTERED ERROR.[인증모듈 에러코드(30)]",
}
QUOTA_MESSAGE = "Key인증실패: LIMITED NUMBER OF SERVICE REQUESTS EXCEEDS ERROR.[인증모듈 에러코드(22)]"
# Every field of comMsgHeader is null in the captured answers.
COM_MSG_HEADER = {
    "errMsg": None,
    "responseTime": None,
    "requestMsgID": None,
    "responseMsgID": None,
    "successYN": None,
    "returnCode": None,
}


def service_result(ctx: Context, code: str, message: str, items: list[dict[str, Any]] | None) -> SandboxResponse:
    """The whole answer; itemCount stays 0 even with rows, as live writes it."""
    header = {"headerCd": code, "headerMsg": message, "itemCount": 0}
    if ctx.fmt == "json":
        body = {"comMsgHeader": COM_MSG_HEADER, "msgHeader": header, "msgBody": {"itemList": items or None}}
        return respond(dumps(body), JSON_UTF8)
    rows = "".join(element("itemList", item) for item in items or ())
    msg_body = f"<msgBody>{rows}</msgBody>" if rows else "<msgBody/>"
    xml = f"{DECLARATION}<ServiceResult><comMsgHeader/>{element('msgHeader', header)}{msg_body}</ServiceResult>"
    return respond(xml, XML_UTF8)


class SeoulBusEnvelope(Envelope):
    family = "seoul_bus"

    def response_format(self, ctx: Context) -> str:
        return "json" if (ctx.req.arg("resultType") or "").strip().lower() == "json" else "xml"

    def spec_params(self, op: Operation) -> list[Param]:
        return [Param("resultType", "응답 형식 (xml/json), 기본 xml", example="json", enum=("xml", "json"))]

    def page_request(self, ctx: Context) -> PageRequest:
        return PageRequest(1, 0)

    def paginate(self, ctx: Context, result: Result, request: PageRequest) -> Page:
        records = list(result.records)  # no paging: every match in one answer
        return Page(records, len(records), 1, len(records), result.meta)

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        if not page.records:
            return service_result(ctx, "4", MESSAGES["4"], None)
        return service_result(ctx, "0", MESSAGES["0"], [dict(r) for r in page.records])

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        return service_result(ctx, error.code, error.message or MESSAGES.get(error.code, MESSAGES["1"]), None)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "msgHeader": {
                    "type": "object",
                    "properties": {
                        "headerCd": {"type": "string", "description": "결과코드 (0 정상, 4 결과없음, 7 인증실패)"},
                        "headerMsg": {"type": "string", "description": "결과메시지"},
                        "itemCount": {"type": "integer", "description": "항상 0"},
                    },
                },
                "msgBody": {
                    "type": "object",
                    "properties": {"itemList": {"type": "array", "items": record_schema(op)}},
                },
            },
        }

    def spec_produces(self, op: Operation) -> list[str]:
        return ["application/xml", "application/json"]


class SeoulBusAuth(Auth):
    """The data.go.kr key checked by the bus system itself: headerCd 7 in a ServiceResult, HTTP 200, XML
    whatever resultType asked (every captured failure is XML)."""

    key_params = ("serviceKey", "ServiceKey")

    def render(self, ctx: Context, reason: str) -> SandboxResponse:
        ctx.fmt = "xml"
        if reason == QUOTA:
            return service_result(ctx, "7", QUOTA_MESSAGE, None)
        if reason in (MISSING, INVALID, DOUBLE_ENCODED):
            return service_result(ctx, "7", MESSAGES["7"], None)
        return service_result(ctx, "1", MESSAGES["1"], None)

    def spec_params(self) -> list[Param]:
        return [
            Param(
                "serviceKey", "공공데이터포털에서 받은 인증키 (URL 인코딩은 한 번만)", required=True, example="인증키"
            )
        ]
