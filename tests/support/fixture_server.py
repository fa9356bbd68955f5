"""A tiny real-socket HTTP/1.1 server for executor tests and benchmarks: canned bodies, latency, faults.

Routes map a path to a canned response or to a function of the request; faults queued for a path are
served first, one per request: "503" (an nginx HTML page), "429", "reset" (TCP reset), "timeout" (hold
the connection), "truncate" (a complete HTTP answer whose body stops mid-document) and "quota"
(gateway code 22). Every request is kept in .requests, raw query included, so tests can see the wire.
Run it alone with `python -m tests.support.fixture_server --latency-ms 100` (prints its URL).
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit


@dataclass
class Canned:
    body: bytes | str
    status: int = 200
    content_type: str = "application/json;charset=UTF-8"
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def data(self) -> bytes:
        return self.body.encode("utf-8") if isinstance(self.body, str) else self.body


@dataclass
class Seen:
    method: str
    path: str
    raw_query: str
    headers: dict[str, str]
    body: bytes

    @property
    def query(self) -> dict[str, str]:
        return dict(parse_qsl(self.raw_query, keep_blank_values=True))


Route = Canned | Callable[[Seen], Canned]

_QUOTA = (
    "<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR</errMsg>"
    "<returnAuthMsg>서비스 요청제한횟수 초과</returnAuthMsg><returnReasonCode>22</returnReasonCode></cmmMsgHeader>"
    "</OpenAPI_ServiceResponse>"
)
_HTML_503 = "<html>\r\n<head><title>503 Service Unavailable</title></head>\r\n<body><center><h1>503 Service Unavailable</h1></center></body>\r\n</html>\r\n"


def echo_route(seen: Seen) -> Canned:
    """A data.go.kr-style JSON answer whose one record is the query the server received (key included)."""
    record = {"path": seen.path, "raw_query": seen.raw_query, **seen.query}
    body = {
        "response": {
            "header": {"resultCode": "00", "resultMsg": "NORMAL_SERVICE"},
            "body": {"items": {"item": [record]}, "pageNo": 1, "numOfRows": 10, "totalCount": 1},
        }
    }
    return Canned(json.dumps(body, ensure_ascii=False))


class FixtureServer:
    def __init__(self, routes: dict[str, Route] | None = None, *, latency_s: float = 0.0, timeout_hold_s: float = 5.0):
        self.routes: dict[str, Route] = dict(routes or {})
        self.default: Route = echo_route
        self.latency_s = latency_s
        self.timeout_hold_s = timeout_hold_s
        self.requests: list[Seen] = []
        self._faults: dict[str, list[str]] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.in_flight = 0
        self.max_in_flight = 0

    # -------------------------------------------------------------------------------------- control

    def fail_next(self, path: str, *faults: str) -> None:
        with self._lock:
            self._faults.setdefault(path, []).extend(faults)

    def hits(self, path: str) -> int:
        return sum(1 for r in self.requests if r.path == path)

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self, port: int = 0) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        server.daemon_threads = True
        server.request_queue_size = 128
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FixtureServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------------------------- serving

    def _next_fault(self, path: str) -> str | None:
        with self._lock:
            queue = self._faults.get(path)
            return queue.pop(0) if queue else None

    def _respond(self, seen: Seen) -> Canned | str:
        with self._lock:
            self.requests.append(seen)
        fault = self._next_fault(seen.path)
        if fault == "503":
            return Canned(_HTML_503, 503, "text/html")
        if fault == "429":
            return Canned("Too Many Requests", 429, "text/plain", {"Retry-After": "0"})
        if fault == "quota":
            return Canned(_QUOTA, 200, "application/xml;charset=UTF-8")
        if fault in ("reset", "timeout"):
            return fault
        route = self.routes.get(seen.path, self.default)
        canned = route(seen) if callable(route) else route
        if fault == "truncate":
            data = canned.data
            return Canned(data[: max(1, len(data) * 3 // 5)], canned.status, canned.content_type, dict(canned.headers))
        return canned


def _handler_for(server: FixtureServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Headers and body leave in two writes; without NODELAY, Nagle holds the body for the
            # client's delayed ACK and every answer gains ~40 ms.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, *args) -> None:  # tests and benchmarks stay quiet
            return

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            seen = Seen(self.command, parts.path, parts.query, {k.lower(): v for k, v in self.headers.items()}, body)
            with server._lock:
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                if server.latency_s:
                    time.sleep(server.latency_s)
                answer = server._respond(seen)
            finally:
                with server._lock:
                    server.in_flight -= 1
            if answer == "reset":
                # SO_LINGER 0: close() sends RST instead of FIN, like a dropped gateway connection.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                return
            if answer == "timeout":
                time.sleep(server.timeout_hold_s)
                self.close_connection = True
                return
            data = answer.data
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = _serve

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve echo answers with a fixed latency (for benchmarks).")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    args = parser.parse_args()
    server = FixtureServer(latency_s=args.latency_ms / 1000)
    print(server.start(args.port), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
