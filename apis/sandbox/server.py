"""Standalone sandbox server (asyncio + h11): same /sandbox/ layout as the Django site, no database.

Latency waits without blocking other connections, "reset" really aborts the TCP connection and
"timeout" holds it open, then drops it. Run with `manage.py sandbox_serve` or
`python -m apis.sandbox.server --port 8765` (add --warm to build the whole world before the first request);
tests use start_sandbox_server().
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import resource
import threading
import time
from collections.abc import Callable
from urllib.parse import unquote

import h11

from apis.sandbox.config import SandboxConfig
from apis.sandbox.registry import load_families
from apis.sandbox.serving import serve_path
from apis.sandbox.state import SandboxState
from apis.sandbox.warm import warm
from apis.sandbox.wire import TEXT_UTF8, SandboxResponse, respond
from apis.sandbox.world import regions

PREFIX = "/sandbox"
MAX_BODY = 1 << 20


class SandboxServer:
    def __init__(self, config: SandboxConfig, state: SandboxState | None = None):
        self.config = config
        self.state = state or SandboxState()
        self.base_url = ""

    def answer(self, method: str, target: str, headers: dict[str, str], body: bytes) -> SandboxResponse:
        raw_path, _, raw_query = target.partition("?")
        path = unquote(raw_path)
        if path.rstrip("/") == PREFIX or path.startswith(PREFIX + "/"):
            rest = path[len(PREFIX) :]
            return serve_path(
                method, rest, raw_query, headers, body, config=self.config, state=self.state, base_url=self.base_url
            )
        return respond("Not Found", TEXT_UTF8, 404)

    async def client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=64 * 1024)
        try:
            while True:
                request = await self._next(conn, reader)
                if not isinstance(request, h11.Request):
                    return
                body = b""
                while True:
                    event = await self._next(conn, reader)
                    if isinstance(event, h11.Data):
                        body += event.data
                        if len(body) > MAX_BODY:
                            raise h11.RemoteProtocolError("body too large", 413)
                    elif isinstance(event, h11.EndOfMessage):
                        break
                    else:
                        return
                headers = {k.decode("latin-1").lower(): v.decode("utf-8", "replace") for k, v in request.headers}
                response = self.answer(request.method.decode(), request.target.decode("latin-1"), headers, body)
                if response.delay_s:
                    await asyncio.sleep(response.delay_s)
                if response.fault in ("reset", "timeout"):
                    writer.transport.abort()
                    return
                self._send(conn, writer, response, head=request.method == b"HEAD")
                await writer.drain()
                if conn.our_state is h11.MUST_CLOSE:
                    return
                conn.start_next_cycle()
        except h11.RemoteProtocolError as exc:
            if conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                with contextlib.suppress(Exception):
                    self._send(conn, writer, respond(str(exc), TEXT_UTF8, exc.error_status_hint))
                    await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        except asyncio.CancelledError:
            writer.transport.abort()  # the server is stopping; end quietly instead of logging the cancel
            return
        finally:
            if not writer.transport.is_closing():
                writer.close()

    async def _next(self, conn: h11.Connection, reader: asyncio.StreamReader):
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await reader.read(65536))
                continue
            return event

    def _send(
        self, conn: h11.Connection, writer: asyncio.StreamWriter, response: SandboxResponse, *, head=False
    ) -> None:
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.items()]
        headers.append((b"content-length", str(len(response.body)).encode()))
        out = conn.send(h11.Response(status_code=response.status, headers=headers, reason=b""))
        if not head:
            out += conn.send(h11.Data(data=response.body))
        out += conn.send(h11.EndOfMessage())
        writer.write(out)


async def serve(config: SandboxConfig, host: str, port: int, ready: Callable[[asyncio.Server], None] | None = None):
    load_families()  # import every family and read the region table before the first request
    regions.regions()
    app = SandboxServer(config)
    server = await asyncio.start_server(app.client, host, port, backlog=1024)
    bound = server.sockets[0].getsockname()
    app.base_url = f"http://{bound[0]}:{bound[1]}"
    if ready is not None:
        ready(server)
    async with server:
        await server.serve_forever()


def start_sandbox_server(port: int = 0, config: SandboxConfig | None = None, host: str = "127.0.0.1"):
    """Run the standalone server in a daemon thread; returns (base_url, stop). base_url has no /sandbox."""
    config = config or SandboxConfig()
    started = threading.Event()
    holder: dict[str, object] = {}
    loop = asyncio.new_event_loop()

    def ready(server: asyncio.Server) -> None:
        holder["server"] = server
        started.set()

    def run() -> None:
        asyncio.set_event_loop(loop)
        with contextlib.suppress(asyncio.CancelledError):
            loop.run_until_complete(serve(config, host, port, ready))

    thread = threading.Thread(target=run, name="sandbox-server", daemon=True)
    thread.start()
    if not started.wait(30):
        raise RuntimeError("the sandbox server did not start within 30 s")
    server: asyncio.Server = holder["server"]  # type: ignore[assignment]
    bound = server.sockets[0].getsockname()

    def stop() -> None:
        def shutdown() -> None:
            server.close()
            for task in asyncio.all_tasks(loop):
                task.cancel()

        if loop.is_running():
            loop.call_soon_threadsafe(shutdown)
        thread.join(10)

    return f"http://{bound[0]}:{bound[1]}", stop


def warm_up(config: SandboxConfig) -> float:
    """Build the whole world (apis.sandbox.warm) and keep it out of the garbage collector's way; returns seconds."""
    started = time.perf_counter()
    warm(config)
    # The built world lives as long as the server. Frozen, it is skipped by the collector's full sweeps, which
    # would otherwise walk millions of objects and stall every connection for about half a second.
    gc.collect()
    gc.freeze()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the KOPA sandbox standalone (no database).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument(
        "--warm",
        action="store_true",
        help="build every lazily built piece (nationwide lists, bus networks) before listening, so that no "
        "request pays for a build (about 20 s and 0.6 GB)",
    )
    args = parser.parse_args(argv)
    config = SandboxConfig.from_env()
    print(f"KOPA sandbox on http://{args.host}:{args.port}/sandbox/ (clock {config.now.isoformat()})", flush=True)
    if args.warm:
        seconds = warm_up(config)
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux
        print(f"warmed in {seconds:.1f} s (peak RSS {peak_mb:.0f} MB)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(config, args.host, args.port))


if __name__ == "__main__":
    main()
