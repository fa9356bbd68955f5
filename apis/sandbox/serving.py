"""The /sandbox/ URL layout shared by the Django view and the standalone server:
"" -> JSON index, "specs/<service>.json" -> Swagger, "<live host>/<live path>" -> the engine."""

from __future__ import annotations

from apis.sandbox.config import SandboxConfig
from apis.sandbox.engine import handle
from apis.sandbox.index import index_json
from apis.sandbox.state import SandboxState
from apis.sandbox.swagger import SPEC_DIR
from apis.sandbox.wire import JSON_UTF8, TEXT_UTF8, SandboxRequest, SandboxResponse, respond


def serve_path(
    method: str,
    rest: str,
    raw_query: str,
    headers: dict[str, str],
    body: bytes,
    *,
    config: SandboxConfig,
    state: SandboxState | None = None,
    base_url: str = "",
) -> SandboxResponse:
    """rest is the decoded path after "/sandbox/" (e.g. "apis.data.go.kr/1613000/…")."""
    rest = rest.lstrip("/")
    if rest in ("", "index.json"):
        return respond(index_json(base_url), JSON_UTF8)
    if rest.startswith("specs/"):
        name = rest.removeprefix("specs/")
        path = SPEC_DIR / name
        if "/" in name or not name.endswith(".json") or not path.is_file():
            return respond("Not Found", TEXT_UTF8, 404)
        return respond(path.read_bytes(), JSON_UTF8)
    host, _, path = rest.partition("/")
    request = SandboxRequest.build(method, host, "/" + path, raw_query, headers, body)
    return handle(request, config=config, state=state)
