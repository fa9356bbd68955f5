"""Raw TCP listeners on loopback for security tests: count who connects, answer with whatever bytes a test needs."""

from __future__ import annotations

import contextlib
import socketserver
import threading


class Listener:
    """A threaded TCP server on `host`; `handler(conn)` answers each connection; `hits` counts connections and
    `received` keeps the first bytes of each request."""

    def __init__(self, handler, host: str = "127.0.0.1"):
        self.hits = 0
        self.received: list[bytes] = []
        outer = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                outer.hits += 1
                with contextlib.suppress(OSError):  # the client hung up: that is its business
                    handler(self.request, outer)

        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.server = socketserver.ThreadingTCPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def http_answer(body: bytes, status: str = "200 OK", headers: str = "Content-Type: application/json\r\n"):
    """A handler that reads the request and answers one HTTP/1.1 response."""

    def handler(conn, listener: Listener):
        listener.received.append(conn.recv(65536))
        head = f"HTTP/1.1 {status}\r\n{headers}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        conn.sendall(head.encode() + body)

    return handler
