"""The contract every envelope family implements: format switch, paging, success and error rendering."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from apis.sandbox.errors import ServiceError
from apis.sandbox.registry import Context, Operation, Param, Result
from apis.sandbox.wire import SandboxResponse


@dataclass
class PageRequest:
    number: int  # 1-based page (or the family's own start index, see the envelope)
    size: int


@dataclass
class Page:
    records: Sequence[Mapping[str, Any]]  # this page only
    total: int
    number: int
    size: int
    meta: dict[str, Any] = field(default_factory=dict)


def dumps(value: Any) -> str:
    """JSON as the gateways write it: UTF-8 Korean, no spaces."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class Envelope:
    """Subclass per family. The engine calls, in order: response_format, page_request, paginate, render.

    render_error is called for ServiceError raised by the handler or by page_request.
    """

    family = "base"

    def response_format(self, ctx: Context) -> str:
        return "xml"

    def spec_params(self, op: Operation) -> list[Param]:
        """Parameters every operation of this family has (paging, format switch), for specs and index."""
        return []

    def page_request(self, ctx: Context) -> PageRequest:
        return PageRequest(1, 10)

    def paginate(self, ctx: Context, result: Result, request: PageRequest) -> Page:
        """Slice the whole result set; a handler that already returned one page sets result.total."""
        if result.total is not None:
            return Page(list(result.records), result.total, request.number, request.size, result.meta)
        start = (request.number - 1) * request.size
        records = list(result.records[start : start + request.size]) if start >= 0 else []
        return Page(records, len(result.records), request.number, request.size, result.meta)

    def render(self, ctx: Context, page: Page) -> SandboxResponse:
        raise NotImplementedError

    def render_error(self, ctx: Context, error: ServiceError) -> SandboxResponse:
        raise NotImplementedError

    def spec_response_schema(self, op: Operation) -> dict[str, Any]:
        """Swagger 2.0 schema of a success response, with the item record inside."""
        return {"type": "object", "properties": {"item": record_schema(op)}}

    def spec_produces(self, op: Operation) -> list[str]:
        return ["application/xml"]


def record_schema(op: Operation) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            f.name: {
                "type": f.type,
                "description": f.description,
                **({"example": f.example} if f.example != "" else {}),
            }
            for f in op.fields
        },
    }
