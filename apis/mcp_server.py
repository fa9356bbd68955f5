"""The catalog's tools as an MCP server (the official mcp package's low-level API), over stdio or streamable HTTP.

Tools are listed under their catalog function names with the parameters of their function schema, and a call
runs through apis.services.tool_execute_async in the server's mode, so it is logged as an ApiCall (source
"mcp") like any other execution. `manage.py mcp_serve` starts it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INVALID_PARAMS

from apis.engine.function_schema import UnknownFunction
from apis.models import Tool
from apis.selectors import catalog_toolset, tool_for_function_call
from apis.services import CallOptions, CatalogError, Execution, tool_execute_async

SERVER_NAME = "kopa-catalog"
MCP_MODES = ("sandbox", "live", "replay")
# A model reads the records; past this many the rest are counted, not sent.
MAX_RECORDS = 100
INSTRUCTIONS = (
    "Korean public APIs (data.go.kr and others) as tools. Each result gives ok, error_class, result_code, "
    "result_msg, total_count and the records (flat dicts). Environmental errors (env.*) may succeed on a retry; "
    "structural ones (struct.*) mean the call itself must change."
)


def result_payload(execution: Execution, *, max_records: int = MAX_RECORDS) -> dict[str, Any]:
    """What an MCP client gets back: the normalized result, records capped, plus the ApiCall id."""
    result = execution.result
    return {
        "call": execution.call.pk,
        "ok": result.ok,
        "error_class": result.error_class,
        "http_status": result.http_status,
        "result_code": result.result_code,
        "result_msg": result.result_msg,
        "total_count": result.total_count,
        "page": result.page,
        "record_count": len(result.records),
        "records": result.records[:max_records],
        "records_omitted": max(0, len(result.records) - max_records),
    }


def build_server(
    tools: Sequence[Tool], *, mode: str = "sandbox", sandbox_origin: str | None = None, name: str = SERVER_NAME
) -> Server:
    """A low-level MCP server for these tools (rows loaded with their service and provider)."""
    if mode not in MCP_MODES:
        raise ValueError(f"mode must be one of {', '.join(MCP_MODES)}; got {mode!r}")
    toolset, rows = catalog_toolset(tools)
    options = CallOptions(mode=mode, source_kind="mcp", sandbox_origin=sandbox_origin)
    listed = [
        types.Tool(
            name=schema["function"]["name"],
            description=schema["function"]["description"],
            input_schema=schema["function"]["parameters"],
        )
        for schema in toolset.schemas
    ]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            tool, arguments = tool_for_function_call(params.name, params.arguments or {}, toolset=toolset, rows=rows)
        except UnknownFunction:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {params.name}") from None
        try:
            execution = await tool_execute_async(tool=tool, params=arguments, options=options)
        except CatalogError as exc:
            return types.CallToolResult(content=[types.TextContent(text=str(exc))], is_error=True)
        payload = result_payload(execution)
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(payload, ensure_ascii=False))],
            structured_content=payload,
            is_error=not execution.result.ok,
        )

    return Server(
        name,
        version="1",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(server: Server) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(server: Server, *, host: str = "127.0.0.1", port: int = 8766, path: str = "/mcp") -> None:
    """Streamable HTTP at http://host:port/mcp until cancelled (uvicorn)."""
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=path, host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve()
