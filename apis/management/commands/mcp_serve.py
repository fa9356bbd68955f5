"""Serve the catalog's tools over MCP: stdio for a local client, or streamable HTTP at http://HOST:PORT/mcp."""

from __future__ import annotations

import asyncio
import contextlib
import sys

from django.core.management.base import BaseCommand, CommandError

from apis.mcp_server import MCP_MODES, build_server, serve_http, serve_stdio
from apis.selectors import tool_list, tools_by_names


class Command(BaseCommand):
    help = "Serve catalog tools to MCP clients (all active tools, or --tools a,b,c), executing in --mode."

    def add_arguments(self, parser):
        parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
        parser.add_argument("--tools", default="", help="comma-separated function names or ids (default: all active)")
        parser.add_argument("--mode", choices=MCP_MODES, default="sandbox")
        parser.add_argument("--sandbox-origin", default=None, help="default: KOPA_SANDBOX_ORIGIN")
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8766)

    def handle(self, *args, transport, tools, mode, sandbox_origin, host, port, **options):
        if tools.strip():
            try:
                chosen = tools_by_names(tools.split(","))
            except LookupError as exc:
                raise CommandError(str(exc)) from None
        else:
            chosen = list(tool_list().filter(is_active=True))
        if not chosen:
            raise CommandError("the catalog has no active tools: run manage.py catalog_import --bundled first")
        server = build_server(chosen, mode=mode, sandbox_origin=sandbox_origin)
        # stdout carries the protocol on stdio, so anything for people goes to stderr.
        sys.stderr.write(f"MCP: {len(chosen)} tool(s), mode {mode}, transport {transport}")
        sys.stderr.write(f" at http://{host}:{port}/mcp\n" if transport == "http" else "\n")
        sys.stderr.flush()
        with contextlib.suppress(KeyboardInterrupt):
            if transport == "stdio":
                asyncio.run(serve_stdio(server))
            else:
                asyncio.run(serve_http(server, host=host, port=port))
