"""기상청 (1360000) flavour of the data.go.kr envelope: dataType=JSON switch, NORMAL_SERVICE, "03 NO_DATA" for an
empty answer (a page past the end included), "dataType" first in the body in both formats, and a list even
for a single item, as captured from VilageFcstInfoService_2.0 and MidFcstInfoService."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apis.sandbox.envelopes.base import Page, PageRequest
from apis.sandbox.envelopes.standard import StandardEnvelope
from apis.sandbox.envelopes.xmlout import element
from apis.sandbox.errors import NoData, ServiceError
from apis.sandbox.registry import Context, Result
from apis.sandbox.wire import XML_UTF8, SandboxResponse, respond

# KMA's XML starts with a plain declaration and a CRLF (captured bodies), unlike the core writer's.
KMA_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\r\n'


@dataclass
class KmaEnvelope(StandardEnvelope):
    json_switch: tuple[str, str] | None = ("dataType", "JSON")
    success_code: str = "00"
    success_msg: str = "NORMAL_SERVICE"
    # Live text is NO_DATA although the guide's table says NODATA_ERROR (research §2.2).
    messages: dict[str, str] = field(default_factory=lambda: {"03": "NO_DATA"})
    single_item_as_object: bool = False
    json_data_type: bool = True
    family: str = "datagokr_kma"

    def paginate(self, ctx: Context, result: Result, request: PageRequest) -> Page:
        page = super().paginate(ctx, result, request)
        if not page.records:
            raise NoData()
        return page

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        if ctx.fmt == "json":
            return super().render(ctx, page)
        body: dict[str, Any] = {
            "dataType": "XML",
            "items": {"item": [dict(r) for r in page.records]},
            self.size_param: page.size,
            self.page_param: page.number,
            "totalCount": page.total,
        }
        header = {"resultCode": self.success_code, "resultMsg": self.success_msg}
        return respond(KMA_DECLARATION + element("response", {"header": header, "body": body}) + "\r\n", XML_UTF8)

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        if ctx.fmt == "json":
            return super().render_error(ctx, error)
        header = {"resultCode": error.code, "resultMsg": self.error_message(error)}
        text = KMA_DECLARATION + element("response", {"header": header}) + "\r\n"
        return respond(text, XML_UTF8, error.http_status)
