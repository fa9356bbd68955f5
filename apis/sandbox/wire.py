"""The request and response the engine sees: plain values, independent of Django or the socket server."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qsl


@dataclass
class SandboxRequest:
    method: str
    host: str  # the live host, with its port where live has one ("openapi.seoul.go.kr:8088")
    path: str  # the live path, percent-decoded, starting with "/"
    raw_query: str = ""  # exactly as received, so a double-encoded key can be seen
    query: dict[str, list[str]] = field(default_factory=dict)  # decoded once; repeated names keep order
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    body: bytes = b""

    @classmethod
    def build(cls, method: str, host: str, path: str, raw_query: str = "", headers=None, body: bytes = b""):
        query: dict[str, list[str]] = {}
        for name, value in parse_qsl(raw_query, keep_blank_values=True):
            query.setdefault(name, []).append(value)
        lowered = {str(k).lower(): str(v) for k, v in (headers or {}).items()}
        return cls(method.upper(), host.lower(), path or "/", raw_query, query, lowered, body)

    def arg(self, name: str, default: str | None = None) -> str | None:
        """The first value of a query parameter (names are case-sensitive, as on the live gateways)."""
        values = self.query.get(name)
        return values[0] if values else default

    def form(self) -> dict[str, list[str]]:
        """Fields of an application/x-www-form-urlencoded POST body (Juso takes its query that way too)."""
        if self.method != "POST" or "x-www-form-urlencoded" not in self.headers.get("content-type", ""):
            return {}
        fields: dict[str, list[str]] = {}
        for name, value in parse_qsl(self.body.decode("utf-8", "replace"), keep_blank_values=True):
            fields.setdefault(name, []).append(value)
        return fields

    def raw_arg(self, name: str) -> str | None:
        """The still-encoded text of a query parameter, taken from raw_query."""
        for part in self.raw_query.split("&"):
            key, _, value = part.partition("=")
            if key == name:
                return value
        return None


@dataclass
class SandboxResponse:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    fault: str | None = None  # "timeout": hold the connection, then drop it; "reset": abort the TCP connection
    delay_s: float = 0.0  # wait before answering (latency; for "timeout" it includes the hold time)

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "")

    def text(self) -> str:
        return self.body.decode("utf-8")


XML_UTF8 = "application/xml;charset=UTF-8"
JSON_UTF8 = "application/json;charset=UTF-8"
HTML_UTF8 = "text/html;charset=UTF-8"
TEXT_UTF8 = "text/plain;charset=UTF-8"


def respond(body: bytes | str, content_type: str, status: int = 200, **headers: str) -> SandboxResponse:
    data = body.encode("utf-8") if isinstance(body, str) else body
    return SandboxResponse(status=status, headers={"Content-Type": content_type, **headers}, body=data)
