"""서울 열린데이터광장: the key is a path segment (/{KEY}/{TYPE}/{SERVICE}/{START_INDEX}/{END_INDEX}/…), paging
is the 1-based START..END range (at most 1000 rows, 5 with the public key "sample"), and results come as
{"<SERVICE>":{"list_total_count":N,"RESULT":{"CODE":"INFO-000","MESSAGE":"정상 처리되었습니다"},"row":[…]}}.
Errors are a bare {"RESULT":{"CODE","MESSAGE"}}. The realtime subway host (swopenapi) wraps its status
in "errorMessage" and its rows in "realtimeArrivalList" instead.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from apis.sandbox.auth import QUOTA, Auth
from apis.sandbox.envelopes.base import Envelope, Page, PageRequest, dumps, record_schema
from apis.sandbox.envelopes.xmlout import document
from apis.sandbox.errors import ServiceError
from apis.sandbox.registry import Context, Operation, Param, Result
from apis.sandbox.wire import JSON_UTF8, XML_UTF8, SandboxResponse, respond

SAMPLE_KEY = "sample"
MAX_ROWS = 1000
SAMPLE_ROWS = 5
MESSAGES = {
    "INFO-000": "정상 처리되었습니다",
    "INFO-100": "인증키가 유효하지 않습니다. 인증키가 없는 경우, 열린 데이터 광장 홈페이지에서 인증키를 신청하십시오.",
    "INFO-200": "해당하는 데이터가 없습니다.",
    "INFO-300": "유효 호출건수를 이미 초과하셨습니다.",
    "ERROR-300": "필수 값이 누락되어 있습니다. 요청인자를 참고 하십시오.",
    "ERROR-301": "파일타입 값이 누락 혹은 유효하지 않습니다. 요청인자 중 TYPE을 확인하십시오.",
    "ERROR-310": "해당하는 서비스를 찾을 수 없습니다. 요청인자 중 SERVICE를 확인하십시오.",
    "ERROR-331": "요청시작위치 값을 확인하십시오. 요청인자 중 START_INDEX를 확인하십시오.",
    "ERROR-332": "요청종료위치 값을 확인하십시오. 요청인자 중 END_INDEX를 확인하십시오.",
    "ERROR-333": "요청위치 값의 타입이 유효하지 않습니다. 요청위치 값은 정수를 입력하세요.",
    "ERROR-334": "요청종료위치 보다 요청시작위치가 더 큽니다. 요청시작조회건수는 정수를 입력하세요.",
    "ERROR-335": "샘플데이터(샘플키:sample) 는 한번에 최대 5건을 넘을 수 없습니다. 요청시작위치와 요청종료위치 값은 1 ~ 5 사이만 가능합니다.",
    "ERROR-336": "데이터요청은 한번에 최대 1000건을 넘을 수 없습니다. 요청종료위치에서 요청시작위치를 뺀 값이 1000을 넘지 않도록 수정하세요.",
    "ERROR-500": "서버 오류입니다. 지속적으로 발생시 열린 데이터 광장으로 문의(Q&A) 바랍니다.",
}
FORMATS = ("xml", "json")


def path_format(ctx: Context) -> str:
    return "json" if ctx.path_params.get("TYPE", "").strip().lower() == "json" else "xml"


class SeoulAuth(Auth):
    """The key is the {KEY} path segment; the public key "sample" also works, for five rows at a time."""

    key_params = ("KEY",)

    def extract(self, ctx: Context) -> tuple[str | None, str] | None:
        key = unquote(ctx.path_params.get("KEY", "")).strip()
        return (None, key) if key else None

    def check(self, ctx: Context) -> SandboxResponse | None:
        found = self.extract(ctx)
        if found is not None and found[1] == SAMPLE_KEY:
            return None
        return super().check(ctx)

    def render(self, ctx: Context, reason: str) -> SandboxResponse:
        code = "INFO-300" if reason == QUOTA else "INFO-100"
        return ctx.service.envelope.render_error(ctx, ServiceError(code))

    def spec_params(self) -> list[Param]:
        return [Param("KEY", "인증키 (샘플키: sample)", required=True, location="path", example="sample")]


def index_range(ctx: Context, *, zero_start: bool = False) -> PageRequest:
    """START_INDEX..END_INDEX (1-based, inclusive) as PageRequest(start, count), with the portal's checks."""
    if ctx.path_params.get("TYPE", "").strip().lower() not in FORMATS:
        raise ServiceError("ERROR-301")
    start_text, end_text = ctx.path_params.get("START_INDEX", ""), ctx.path_params.get("END_INDEX", "")
    try:
        start, end = int(start_text), int(end_text)
    except ValueError:
        raise ServiceError("ERROR-333") from None
    if zero_start and start == 0:
        start = 1
    if start < 1:
        raise ServiceError("ERROR-331")
    if end < 1:
        raise ServiceError("ERROR-332")
    if start > end:
        raise ServiceError("ERROR-334")
    found = SeoulAuth().extract(ctx)
    if found is not None and found[1] == SAMPLE_KEY and end > SAMPLE_ROWS:
        raise ServiceError("ERROR-335")
    if end - start + 1 > MAX_ROWS:
        raise ServiceError("ERROR-336")
    return PageRequest(start, end - start + 1)


def _service_name(op: Operation) -> str:
    return op.path.strip("/").split("/")[2]


class SeoulOpenEnvelope(Envelope):
    family = "seoul_open"

    def response_format(self, ctx: Context) -> str:
        return path_format(ctx)

    def spec_params(self, op: Operation) -> list[Param]:
        return [
            Param("TYPE", "요청파일타입 (xml, json)", required=True, location="path", example="json", enum=FORMATS),
            Param("START_INDEX", "요청시작위치 (1부터)", required=True, type="integer", location="path", example="1"),
            Param(
                "END_INDEX",
                "요청종료위치 (한 번에 1000건까지)",
                required=True,
                type="integer",
                location="path",
                example="5",
            ),
        ]

    def page_request(self, ctx: Context) -> PageRequest:
        return index_range(ctx)

    def paginate(self, ctx: Context, result: Result, request: PageRequest) -> Page:
        start = request.number - 1
        return Page(
            list(result.records[start : start + request.size]), len(result.records), request.number, request.size
        )

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        if not page.records:
            return self.render_error(ctx, ServiceError("INFO-200"))
        name = _service_name(ctx.op)
        result = {"CODE": "INFO-000", "MESSAGE": MESSAGES["INFO-000"]}
        rows = [dict(r) for r in page.records]
        if ctx.fmt == "json":
            return respond(dumps({name: {"list_total_count": page.total, "RESULT": result, "row": rows}}), JSON_UTF8)
        return respond(document(name, {"list_total_count": page.total, "RESULT": result, "row": rows}), XML_UTF8)

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        result = {"CODE": error.code, "MESSAGE": error.message or MESSAGES.get(error.code, MESSAGES["ERROR-500"])}
        if ctx.fmt == "json":
            return respond(dumps({"RESULT": result}), JSON_UTF8, error.http_status)
        return respond(document("RESULT", result), XML_UTF8, error.http_status)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                _service_name(op): {
                    "type": "object",
                    "properties": {
                        "list_total_count": {"type": "integer", "description": "전체 결과 수"},
                        "RESULT": {
                            "type": "object",
                            "properties": {"CODE": {"type": "string"}, "MESSAGE": {"type": "string"}},
                        },
                        "row": {"type": "array", "items": record_schema(op)},
                    },
                }
            },
        }

    def spec_produces(self, op: Operation) -> list[str]:
        return ["application/xml", "application/json"]


class SeoulSubwayEnvelope(SeoulOpenEnvelope):
    """swopenapi.seoul.go.kr: {"errorMessage":{status, code, message, link, developerMessage, total}, "<list>":[…]}."""

    family = "seoul_subway"

    def __init__(self, list_name: str):
        self.list_name = list_name

    def page_request(self, ctx: Context) -> PageRequest:
        return index_range(ctx, zero_start=True)

    def _status(self, code: str, total: int, message: str | None = None) -> dict[str, Any]:
        text = message or (MESSAGES[code] + "." if code == "INFO-000" else MESSAGES.get(code, MESSAGES["ERROR-500"]))
        status = 200 if code == "INFO-000" else 500
        return {"status": status, "code": code, "message": text, "link": "", "developerMessage": "", "total": total}

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        if not page.records:
            return self.render_error(ctx, ServiceError("INFO-200"))
        status = self._status("INFO-000", page.total)
        rows = [dict(r) for r in page.records]
        if ctx.fmt == "json":
            return respond(dumps({"errorMessage": status, self.list_name: rows}), JSON_UTF8)
        return respond(document(_service_name(ctx.op), {"RESULT": status, "row": rows}), XML_UTF8)

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        status = self._status(error.code, 0, error.message)
        if ctx.fmt == "json":
            return respond(dumps({"errorMessage": status}), JSON_UTF8, error.http_status)
        return respond(document("RESULT", status), XML_UTF8, error.http_status)

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "errorMessage": {
                    "type": "object",
                    "description": "status, code (INFO-000 정상), message, link, developerMessage, total",
                },
                self.list_name: {"type": "array", "items": record_schema(op)},
            },
        }


def unknown_service(envelope: SeoulOpenEnvelope):
    """A HostDef.unknown_path answer: ERROR-310 in the format the path asks for (xml unless /json/)."""

    def answer(ctx: Context) -> SandboxResponse:
        segments = ctx.req.path.strip("/").split("/")
        ctx.fmt = "json" if len(segments) > 1 and segments[1].lower() == "json" else "xml"
        return envelope.render_error(ctx, ServiceError("ERROR-310"))

    return answer
