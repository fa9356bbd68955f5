"""도로명주소 (business.juso.go.kr/addrlink): {"results":{"common":{errorCode,errorMessage,totalCount,currentPage,
countPerPage as strings},"juso":[…]}} or <results>, paging by currentPage/countPerPage, errors inside common
with HTTP 200 (E0001 key … E0015 too many, -999 system), and the portal's own key `confmKey` (GET or POST form).
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime, timedelta
from typing import Any

from apis.sandbox.auth import DOUBLE_ENCODED, INVALID, MISSING, QUOTA, Auth
from apis.sandbox.envelopes.base import Envelope, Page, PageRequest, dumps, record_schema
from apis.sandbox.envelopes.xmlout import element
from apis.sandbox.errors import ServiceError
from apis.sandbox.registry import Context, Operation, Param
from apis.sandbox.wire import JSON_UTF8, XML_UTF8, SandboxResponse, respond

MESSAGES = {
    "0": "정상",
    "-999": "시스템에러",
    "E0001": "승인되지 않은 KEY 입니다.",
    "E0005": "검색어가 입력되지 않았습니다.",
    "E0006": "주소를 상세히 입력해 주시기 바랍니다.",
    "E0008": "검색어는 두글자 이상 입력되어야 합니다.",
    "E0009": "검색어는 문자와 숫자 같이 입력되어야 합니다.",
    "E0010": "검색어가 너무 깁니다. (한글40자, 영문,숫자 80자 이하)",
    "E0011": "검색어에 너무 긴 숫자가 포함되어 있습니다. (숫자10자 이하)",
    "E0012": "특수문자+숫자만으로는 검색이 불가능 합니다.",
    "E0013": "SQL 예약어 또는 특수문자(%,=,>,<,[,])는 검색이 불가능 합니다.",
    "E0014": "개발승인키 기간이 만료되어 서비스를 이용하실 수 없습니다.",
    "E0015": "검색 범위를 초과하였습니다.",
}
MAX_PER_PAGE = 100
DEV_KEY_DAYS = 90  # a development approval key (devU01TX…) works for 90 days from issue
EXPIRED = "expired"


def argument(ctx: Context, name: str) -> str | None:
    """A parameter from the query, or from a POST form (Juso accepts both)."""
    value = ctx.req.arg(name)
    if value is None:
        values = ctx.req.form().get(name)
        value = values[0] if values else None
    return value


class JusoEnvelope(Envelope):
    family = "juso"

    def __init__(self, *, json_order: tuple[str, ...], xml_order: tuple[str, ...]):
        self.json_order = json_order  # live JSON keeps its own (hash) order of the fields …
        self.xml_order = xml_order  # … and XML the order of the guide

    def response_format(self, ctx: Context) -> str:
        return "json" if (argument(ctx, "resultType") or "").strip().lower() == "json" else "xml"

    def spec_params(self, op: Operation) -> list[Param]:
        return [
            Param("currentPage", "현재 페이지 번호", type="integer", example="1", default="1"),
            Param(
                "countPerPage",
                f"페이지당 출력할 결과 수 (최대 {MAX_PER_PAGE})",
                type="integer",
                example="10",
                default="10",
            ),
            Param("resultType", "검색결과형식 (xml/json), 기본 xml", example="json", enum=("xml", "json")),
        ]

    def page_request(self, ctx: Context) -> PageRequest:
        try:
            number = int(ctx.params.text("currentPage", "1").strip() or "1")
            size = int(ctx.params.text("countPerPage", "10").strip() or "10")
        except ValueError:
            raise ServiceError("-999") from None
        return PageRequest(max(1, number), min(max(1, size), MAX_PER_PAGE))

    def _common(self, code: str, message: str, page: Page | None) -> dict[str, Any]:
        counts = (str(page.total), str(page.number), str(page.size)) if page else (None, None, None)
        return {
            "errorMessage": message,
            "countPerPage": counts[2],
            "totalCount": counts[0],
            "errorCode": code,
            "currentPage": counts[1],
        }

    def _answer(self, ctx: Context, common: dict[str, Any], rows: list[dict[str, Any]] | None) -> SandboxResponse:
        if ctx.fmt == "json":
            juso = None if rows is None else [{k: row[k] for k in self.json_order if k in row} for row in rows]
            return respond(dumps({"results": {"common": common, "juso": juso}}), JSON_UTF8)
        head = {k: common[k] for k in ("totalCount", "currentPage", "countPerPage", "errorCode", "errorMessage")}
        items = "".join(element("juso", {k: row[k] for k in self.xml_order if k in row}) for row in rows or ())
        xml = f'<?xml version="1.0" encoding="UTF-8"?><results>{element("common", head)}{items}</results>'
        return respond(xml, XML_UTF8)

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        return self._answer(ctx, self._common("0", MESSAGES["0"], page), [dict(r) for r in page.records])

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        message = error.message or MESSAGES.get(error.code, MESSAGES["-999"])
        return self._answer(ctx, self._common(error.code, message, None), None)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "results": {
                    "type": "object",
                    "properties": {
                        "common": {
                            "type": "object",
                            "properties": {
                                "errorCode": {"type": "string", "description": "0 정상, E0001…E0015, -999"},
                                "errorMessage": {"type": "string", "description": "결과 메시지"},
                                "totalCount": {"type": "string", "description": "전체 결과 수 (문자열)"},
                                "currentPage": {"type": "string", "description": "현재 페이지 (문자열)"},
                                "countPerPage": {"type": "string", "description": "페이지당 결과 수 (문자열)"},
                            },
                        },
                        "juso": {"type": "array", "items": record_schema(op)},
                    },
                }
            },
        }

    def spec_produces(self, op: Operation) -> list[str]:
        return ["application/xml", "application/json"]


def dev_key_issued(key: str) -> datetime | None:
    """When a development key (dev + base64 "SMS_AUTH" + YYYYMMDDHHMMSS + serial) was issued, else None."""
    if not key.startswith("dev"):
        return None
    try:
        text = base64.b64decode(key[3:], validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if not text.startswith("SMS_AUTH") or not text[8:22].isdigit():
        return None
    try:
        return datetime.strptime(text[8:22], "%Y%m%d%H%M%S")
    except ValueError:
        return None


class JusoAuth(Auth):
    """confmKey in the query or a POST form. A development key older than 90 days answers E0014; any other
    key problem is E0001; the sandbox's quota (Juso publishes none) answers -999."""

    key_params = ("confmKey",)

    def extract(self, ctx: Context) -> tuple[str | None, str] | None:
        value = argument(ctx, "confmKey")
        if value is None or value == "":
            return None
        return ctx.req.raw_arg("confmKey"), value

    def check(self, ctx: Context) -> SandboxResponse | None:
        found = self.extract(ctx)
        issued = dev_key_issued(found[1]) if found else None
        if issued is not None and ctx.now.replace(tzinfo=None) - issued > timedelta(days=DEV_KEY_DAYS):
            return self.render(ctx, EXPIRED)
        return super().check(ctx)

    def render(self, ctx: Context, reason: str) -> SandboxResponse:
        code = {MISSING: "E0001", INVALID: "E0001", DOUBLE_ENCODED: "E0001", EXPIRED: "E0014", QUOTA: "-999"}
        return ctx.service.envelope.render_error(ctx, ServiceError(code.get(reason, "-999")))

    def spec_params(self) -> list[Param]:
        return [
            Param(
                "confmKey",
                "도로명주소 API 승인키 (business.juso.go.kr 발급; data.go.kr 키 아님)",
                required=True,
                example="승인키",
            )
        ]
