"""Injected failures: the HTML error pages, hung and reset connections, quota and broken bodies of live gateways."""

from __future__ import annotations

from apis.sandbox.wire import HTML_UTF8, SandboxResponse, respond

_TITLES = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Time-out"}


def error_page(status: int) -> SandboxResponse:
    """The bare HTML page a proxy in front of the gateway sends (nginx style)."""
    title = f"{status} {_TITLES[status]}"
    html = f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n<center><h1>{title}</h1></center>\r\n</body>\r\n</html>\r\n"
    return respond(html, HTML_UTF8, status)


def malformed(response: SandboxResponse) -> SandboxResponse:
    """Cut the body short mid-element, as a dropped upstream connection does; status and headers stay."""
    body = response.body
    cut = max(1, int(len(body) * 0.6))
    while cut > 1 and (body[cut] & 0xC0) == 0x80:  # keep the bytes valid UTF-8, only the markup breaks
        cut -= 1
    return SandboxResponse(response.status, dict(response.headers), body[:cut])
