"""api.odcloud.kr (infuser): its own key policy and the envelopes of the services behind it.

The key comes as ?serviceKey=… or as the header "Authorization: Infuser <key>"; a missing key is HTTP 401
{"code":-401,"msg":"인증키는 필수 항목 입니다."} and an unknown one {"code":-4,"msg":"등록되지 않은 인증키 입니다."}.
NTS 사업자등록 answers {"request_cnt","match_cnt"|"valid_cnt","status_code":"OK","data":[…]}; the file-data
services (청약홈) answer {"page","perPage","totalCount","currentCount","matchCount","data":[…]}.
"""

from __future__ import annotations

from typing import Any

from apis.sandbox.auth import DOUBLE_ENCODED, INVALID, MISSING, QUOTA, Auth
from apis.sandbox.envelopes.base import Envelope, Page, PageRequest, dumps, record_schema
from apis.sandbox.envelopes.xmlout import document
from apis.sandbox.errors import ServiceError
from apis.sandbox.registry import Context, Operation, Param
from apis.sandbox.wire import JSON_UTF8, XML_UTF8, SandboxResponse, respond

AUTH_ERRORS = {
    MISSING: (-401, "인증키는 필수 항목 입니다."),
    INVALID: (-4, "등록되지 않은 인증키 입니다."),
    DOUBLE_ENCODED: (-4, "등록되지 않은 인증키 입니다."),
    QUOTA: (-10, "일일 트래픽 허용량을 초과하였습니다."),
}


class OdcloudAuth(Auth):
    key_params = ("serviceKey",)

    def extract(self, ctx: Context) -> tuple[str | None, str] | None:
        found = super().extract(ctx)
        if found is not None:
            return found
        header = ctx.req.headers.get("authorization", "").strip()
        scheme, _, key = header.partition(" ")
        if scheme.lower() == "infuser" and key.strip():
            return None, key.strip()
        return None

    def render(self, ctx: Context, reason: str) -> SandboxResponse:
        code, msg = AUTH_ERRORS.get(reason, AUTH_ERRORS[INVALID])
        return respond(dumps({"code": code, "msg": msg}), JSON_UTF8, 429 if reason == QUOTA else 401)

    def spec_params(self) -> list[Param]:
        return [
            Param(
                "serviceKey", "공공데이터포털에서 받은 인증키 (또는 Authorization 헤더)", example="인증키 (URL Encode)"
            ),
            Param("Authorization", "Infuser {인증키} (serviceKey 대신)", location="header", example="Infuser 인증키"),
        ]


class NtsEnvelope(Envelope):
    """국세청 사업자등록: the handler's Result.meta holds request_cnt and match_cnt (or valid_cnt), in order."""

    family = "odcloud_nts"

    def response_format(self, ctx: Context) -> str:
        return "json"

    def page_request(self, ctx: Context) -> PageRequest:
        return PageRequest(1, 0)

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        body = {**page.meta, "status_code": "OK", "data": [dict(r) for r in page.records]}
        return respond(dumps(body), JSON_UTF8)

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        body: dict[str, Any] = {"status_code": error.code}
        if error.message:
            body["message"] = error.message
        return respond(dumps(body), JSON_UTF8, error.http_status)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "request_cnt": {"type": "integer", "description": "요청 건수"},
                "status_code": {
                    "type": "string",
                    "description": "OK, 또는 BAD_JSON_REQUEST / REQUEST_DATA_MALFORMED / TOO_LARGE_REQUEST",
                },
                "data": {"type": "array", "items": record_schema(op)},
            },
        }

    def spec_produces(self, op: Operation) -> list[str]:
        return ["application/json"]


class OdcloudEnvelope(Envelope):
    """The file-data services (청약홈 …): page/perPage paging, returnType JSON (default) or XML, and
    {"page","perPage","totalCount","currentCount","matchCount","data":[…]} where totalCount ignores cond[…]
    filters (the handler puts it in Result.meta["totalCount"]) and matchCount counts what they kept."""

    family = "odcloud"

    def response_format(self, ctx: Context) -> str:
        return "xml" if (ctx.req.arg("returnType") or "").strip().upper() == "XML" else "json"

    def spec_params(self, op: Operation) -> list[Param]:
        return [
            Param("page", "페이지 번호", type="integer", example="1", default="1"),
            Param("perPage", "한 페이지 결과 수", type="integer", example="10", default="10"),
            Param("returnType", "응답 형식 (JSON 기본, XML)", example="JSON", enum=("JSON", "XML")),
        ]

    def page_request(self, ctx: Context) -> PageRequest:
        try:
            return PageRequest(ctx.params.int("page", 1, minimum=1), ctx.params.int("perPage", 10, minimum=1))
        except ServiceError:
            raise ServiceError("-1", "page와 perPage는 1 이상의 정수여야 합니다.", http_status=400) from None

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        rows = [dict(r) for r in page.records]
        head = {
            "page": page.number,
            "perPage": page.size,
            "totalCount": page.meta.get("totalCount", page.total),
            "currentCount": len(rows),
            "matchCount": page.total,
        }
        if ctx.fmt == "xml":
            return respond(document("results", {**head, "data": {"item": rows}}), XML_UTF8)
        return respond(dumps({**head, "data": rows}), JSON_UTF8)

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        body = {"code": int(error.code) if error.code.lstrip("-").isdigit() else error.code, "msg": error.message or ""}
        if ctx.fmt == "xml":
            return respond(document("results", body), XML_UTF8, error.http_status)
        return respond(dumps(body), JSON_UTF8, error.http_status)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "page": {"type": "integer"},
                "perPage": {"type": "integer"},
                "totalCount": {"type": "integer", "description": "전체 건수 (cond 조건과 무관)"},
                "currentCount": {"type": "integer", "description": "이 페이지의 건수"},
                "matchCount": {"type": "integer", "description": "cond 조건에 맞는 건수"},
                "data": {"type": "array", "items": record_schema(op)},
            },
        }

    def spec_produces(self, op: Operation) -> list[str]:
        return ["application/json", "application/xml"]
