"""KOSIS 공유서비스 (kosis.kr/openapi): apiKey in the query, a bare JSON array on success and
{"err":"<code>","errMsg":"…"} on failure, both with HTTP 200.

Without jsonVD=Y the array is written with unquoted keys ({ORG_ID:"101",…}), the form that makes
strict JSON parsers fail on live answers; jsonVD=Y gives standard JSON.
"""

from __future__ import annotations

import re
from typing import Any

from apis.sandbox.auth import DOUBLE_ENCODED, INVALID, MISSING, QUOTA, Auth
from apis.sandbox.envelopes.base import Envelope, Page, PageRequest, dumps, record_schema
from apis.sandbox.errors import ServiceError
from apis.sandbox.registry import Context, Operation, Param
from apis.sandbox.wire import JSON_UTF8, SandboxResponse, respond

MESSAGES = {
    "10": "인증KEY값이 누락되었습니다.",
    "11": "유효하지않은 인증KEY입니다.",
    "20": "필수요청변수값이 누락되었습니다.",
    "21": "요청변수값이 잘못되었습니다.",
    "30": "데이터가 존재하지 않습니다.",
    "31": "조회결과가 40,000셀을 초과합니다. 조회범위를 줄여서 요청하십시오.",
    "40": "호출가능건수를 초과하였습니다.",
    "50": "서버오류입니다.",
}
_KEY = re.compile(r'(?<=[{,])"([A-Za-z_][A-Za-z0-9_]*)":')


def error_body(code: str, message: str | None = None) -> bytes:
    return dumps({"err": code, "errMsg": message or MESSAGES.get(code, MESSAGES["50"])}).encode("utf-8")


class KosisAuth(Auth):
    key_params = ("apiKey",)
    codes = {MISSING: "10", INVALID: "11", DOUBLE_ENCODED: "11", QUOTA: "40"}

    def render(self, ctx: Context, reason: str) -> SandboxResponse:
        return respond(error_body(self.codes.get(reason, "11")), JSON_UTF8)

    def spec_params(self) -> list[Param]:
        return [Param("apiKey", "KOSIS 공유서비스에서 받은 인증키", required=True, example="인증키")]


def unquoted(text: str) -> str:
    """{"ORG_ID":"101"} -> {ORG_ID:"101"}: KOSIS's answer without jsonVD=Y. Quotes inside string values
    are escaped (\\"), so a quote right after { or , always opens a key."""
    return _KEY.sub(r"\1:", text)


class KosisEnvelope(Envelope):
    family = "kosis"

    def response_format(self, ctx: Context) -> str:
        return "json"

    def spec_params(self, op: Operation) -> list[Param]:
        return [
            Param("format", "결과 유형 (json)", required=True, example="json", default="json"),
            Param("jsonVD", "표준 JSON 여부 (Y: 키에 따옴표; 생략하면 키에 따옴표 없음)", example="Y", enum=("Y", "N")),
        ]

    def page_request(self, ctx: Context) -> PageRequest:
        if ctx.params.text("format", "json").strip().lower() != "json":
            raise ServiceError("21")  # sdmx/xls are not emulated
        names = {p.name for p in ctx.op.params}
        if "resultCount" not in names:
            return PageRequest(1, 0)
        try:
            number = ctx.params.int("startCount", 1, minimum=1, code="21")
            size = ctx.params.int("resultCount", 20, minimum=1, code="21")
        except ServiceError:
            raise ServiceError("21") from None
        return PageRequest(number, size)

    def paginate(self, ctx: Context, result, request: PageRequest) -> Page:
        if request.size == 0:
            return Page(list(result.records), len(result.records), 1, len(result.records), result.meta)
        return super().paginate(ctx, result, request)

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        if not page.records:
            return self.render_error(ctx, ServiceError("30"))
        text = dumps([dict(r) for r in page.records])
        if (ctx.req.arg("jsonVD") or "").strip().upper() != "Y":
            text = unquoted(text)
        return respond(text, JSON_UTF8)

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        return respond(error_body(error.code, error.message), JSON_UTF8, error.http_status)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return {"type": "array", "items": record_schema(op)}

    def spec_produces(self, op: Operation) -> list[str]:
        return ["application/json"]
