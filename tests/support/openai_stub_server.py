"""A stand-in OpenAI-compatible server (http.server) for tests and the concurrency benchmark.

It serves GET /v1/models and POST /v1/chat/completions. With a model path it renders the chat template with
the request's tools, generates with the local model and reads Hermes `<tool_call>` blocks into `tool_calls`
(finish_reason "tool_calls"), as vLLM's hermes parser does: a block it cannot read leaves the whole text in
`content`. Without a model it follows a policy (by default: call the first tool once, then answer). A fixed
latency and a number of initial 503 answers can be set.

    .venv/bin/python -m tests.support.openai_stub_server --port 8011 --latency-ms 50
    .venv/bin/python -m tests.support.openai_stub_server --port 8011 --model-path var/test-cache/tiny-qwen3-…
"""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Policy = Callable[[dict[str, Any]], dict[str, Any]]


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 drops connections when a benchmark opens 16 at once (a 1 s SYN retry each).
    request_queue_size = 256


def call_then_answer(body: dict[str, Any]) -> dict[str, Any]:
    """Call the first offered tool (with no arguments) until a tool result is in the conversation, then answer."""
    tools = body.get("tools") or []
    if tools and not any(m.get("role") == "tool" for m in body.get("messages", [])):
        name = tools[0]["function"]["name"]
        return {"content": None, "tool_calls": [{"name": name, "arguments": "{}"}]}
    return {"content": "정답: 모름", "tool_calls": []}


class StubServer:
    def __init__(
        self,
        *,
        model_name: str = "stub",
        model_path: str | None = None,
        policy: Policy = call_then_answer,
        latency_s: float = 0.0,
        fail_first: int = 0,
        max_new_tokens: int | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ):
        self.model_name = model_name
        self.policy = policy
        self.latency_s = latency_s
        self.max_new_tokens = max_new_tokens
        self.requests: list[dict[str, Any]] = []
        self._fail_left = fail_first
        self._lock = threading.Lock()
        self.local = None
        if model_path:
            from benchmarks.engine.backends.transformers_local import LocalChatModel

            self.local = LocalChatModel(model_path, num_threads=1).load()
        self._httpd = _Server((host, port), self._handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> StubServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="openai-stub", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (the command-line mode)."""
        try:
            self._httpd.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self._httpd.server_close()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- answers

    def models(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": self.model_name, "object": "model", "owned_by": "stub"}]}

    def chat(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append(body)
            if self._fail_left > 0:
                self._fail_left -= 1
                return 503, {"error": {"message": "stub: temporarily unavailable", "type": "server_error"}}
        if body.get("model") != self.model_name:
            return 404, {
                "error": {"message": f"The model `{body.get('model')}` does not exist.", "type": "NotFoundError"}
            }
        if self.latency_s:
            time.sleep(self.latency_s)
        usage = {"prompt_tokens": 0, "completion_tokens": 0}
        if self.local is not None:
            message, finish, usage = self._generate(body)
        else:
            planned = self.policy(body)
            message = {"role": "assistant", "content": planned.get("content")}
            calls = [
                {"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function", "function": call}
                for call in planned.get("tool_calls") or []
            ]
            if calls:
                message["tool_calls"] = calls
            finish = "tool_calls" if calls else "stop"
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return 200, {
            "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        }

    def _generate(self, body: dict[str, Any]) -> tuple[dict[str, Any], str, dict[str, int]]:
        max_tokens = int(body.get("max_tokens") or 256)
        if self.max_new_tokens:
            max_tokens = min(max_tokens, self.max_new_tokens)
        turn = self.local.generate(
            body.get("messages") or [],
            body.get("tools") or None,
            max_new_tokens=max_tokens,
            temperature=float(body.get("temperature") or 0.0),
            top_p=float(body.get("top_p") or 1.0),
            seed=int(body.get("seed") or 0),
        )
        usage = {"prompt_tokens": turn.usage.prompt_tokens, "completion_tokens": turn.usage.completion_tokens}
        if not turn.tool_calls or any(c.error for c in turn.tool_calls):
            finish = "length" if turn.finish_reason == "length" else "stop"
            return {"role": "assistant", "content": turn.raw if turn.tool_calls else turn.content}, finish, usage
        calls = [
            {
                "id": f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
            }
            for c in turn.tool_calls
        ]
        return {"role": "assistant", "content": turn.content or None, "tool_calls": calls}, "tool_calls", usage

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                # Headers and body go out in separate writes; without TCP_NODELAY, Nagle's algorithm and the
                # client's delayed ACK add ~40 ms to every answer.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args):  # quiet: tests read results, not access logs
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, server.models())
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError as error:
                    self._send(400, {"error": {"message": f"invalid JSON: {error.msg}"}})
                    return
                self._send(*server.chat(body))

        return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--model-name", default="stub")
    parser.add_argument("--model-path")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    args = parser.parse_args(argv)
    server = StubServer(
        model_name=args.model_name,
        model_path=args.model_path,
        latency_s=args.latency_ms / 1000,
        host=args.host,
        port=args.port,
    )
    print(f"serving {server.url}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
