"""Which tools the bundled sandbox can answer. It routes a sandbox call by the live host (/sandbox/<host>/...),
so a tool imported for a host it does not emulate only ever gets a bare 404 there; the try-it page says so
and refuses the call instead (issue 18)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.utils.translation import gettext

from apis.models import Tool
from apis.sandbox.registry import load_families
from apis.services import ToolExecutionError


def tool_sandbox_host(tool: Tool) -> str:
    """The live host whose emulation answers this tool's sandbox calls."""
    return urlsplit(tool.to_spec().url).netloc


def tool_sandbox_emulated(tool: Tool) -> bool:
    return tool_sandbox_host(tool) in load_families().hosts


def tool_sandbox_check(*, tool: Tool) -> None:
    """Refuse a sandbox call the sandbox cannot answer, saying which modes can (nothing is sent)."""
    if not tool_sandbox_emulated(tool):
        raise ToolExecutionError(
            gettext(
                "The sandbox has no emulation for %(host)s, so sandbox mode cannot answer this tool. Live and "
                "record mode call the real service with a service key; replay mode answers calls recorded before."
            )
            % {"host": tool_sandbox_host(tool)}
        )
