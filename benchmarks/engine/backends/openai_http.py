"""An OpenAI-compatible chat endpoint as a backend: POST {base_url}/chat/completions with tools and
tool_choice "auto" (a vLLM server started with --enable-auto-tool-choice --tool-call-parser …, or any such
endpoint).

Transient failures (connection errors, timeouts, 429 and 5xx) are retried with exponential backoff; other
errors end the episode with a BackendError whose text never holds the API key. extra_body is merged into every
request for server-specific options (e.g. {"chat_template_kwargs": {"enable_thinking": false}}).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from apis.engine.errors import redact
from benchmarks.engine.accounting import Usage
from benchmarks.engine.backends.base import Backend, BackendError, ModelRequest, ModelTurn, ParsedCall
from benchmarks.engine.backends.parsing import call_from_parts, strip_thinking

RETRY_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class OpenAIConfig:
    base_url: str  # ends in /v1, e.g. http://127.0.0.1:8000/v1
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 120.0
    max_attempts: int = 4
    backoff_s: float = 0.5
    max_connections: int = 64
    send_seed: bool = True
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)


class OpenAIChatBackend(Backend):
    name = "openai"

    def __init__(self, config: OpenAIConfig, *, transport: httpx.AsyncBaseTransport | None = None):
        if config.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.config = config
        self.model = config.model
        self._transport = transport
        self._pool: _ClientShards | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._rng = random.Random(0)

    def _clients(self) -> _ClientShards:
        loop = asyncio.get_running_loop()
        if self._pool is None or self._loop is not loop:  # clients belong to one event loop
            headers = {"Content-Type": "application/json", **self.config.headers}
            if self.config.api_key:
                headers["Authorization"] = f"Bearer {self.config.api_key}"

            def make(size: int) -> httpx.AsyncClient:
                return httpx.AsyncClient(
                    transport=self._transport,
                    timeout=httpx.Timeout(self.config.timeout_s),
                    limits=httpx.Limits(max_connections=size, max_keepalive_connections=size),
                    headers=headers,
                )

            # An injected transport has its own pool; it gets one client rather than shards sharing it.
            per_client = _ClientShards.PER_CLIENT if self._transport is None else self.config.max_connections
            self._pool = _ClientShards(make, self.config.max_connections, per_client)
            self._loop = loop
        return self._pool

    async def aclose(self) -> None:
        if self._pool is not None and self._loop is asyncio.get_running_loop():
            await self._pool.aclose()
        self._pool, self._loop = None, None

    def body(self, request: ModelRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": request.messages,
            "temperature": request.sampling.temperature,
            "top_p": request.sampling.top_p,
            "max_tokens": request.sampling.max_tokens,
        }
        if request.tools:
            body["tools"] = request.tools
            body["tool_choice"] = "auto"
        if self.config.send_seed:
            body["seed"] = request.seed
        body.update(self.config.extra_body)
        return body

    async def complete(self, request: ModelRequest) -> ModelTurn:
        url = self.config.base_url.rstrip("/") + "/chat/completions"
        body = self.body(request)
        started = time.perf_counter()
        problem = ""
        for attempt in range(1, self.config.max_attempts + 1):
            try:
                async with self._clients().client() as http:
                    response = await http.post(url, json=body)
            except httpx.HTTPError as error:
                problem = f"{type(error).__name__}: {error}"
            else:
                if response.status_code == 200:
                    return self._turn(response, request.step, time.perf_counter() - started)
                problem = f"HTTP {response.status_code}: {response.text[:500]}"
                if response.status_code not in RETRY_STATUSES:
                    break
            if attempt < self.config.max_attempts:
                delay = self.config.backoff_s * (2 ** (attempt - 1))
                await asyncio.sleep(self._rng.uniform(delay / 2, delay))
        raise BackendError(self._safe(f"{url}: {problem} (after {attempt} attempt(s))"))

    def _safe(self, text: str) -> str:
        return redact(text, [self.config.api_key])

    def _turn(self, response: httpx.Response, step: int, latency: float) -> ModelTurn:
        try:
            data = response.json()
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (ValueError, KeyError, IndexError, TypeError) as error:
            raise BackendError(
                self._safe(f"not a chat completion ({type(error).__name__}): {response.text[:300]}")
            ) from None
        calls: list[ParsedCall] = []
        for index, item in enumerate(message.get("tool_calls") or []):
            function = (item or {}).get("function") or {}
            call_id = item.get("id") or f"call_{step}_{index}"
            name = function.get("name")
            arguments = function.get("arguments", "{}")
            if not isinstance(name, str) or not name:
                raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
                calls.append(ParsedCall(call_id, None, None, raw, "call.bad_json: the call has no function name"))
                continue
            calls.append(call_from_parts(call_id, name, arguments))
        usage = data.get("usage") or {}
        return ModelTurn(
            content=strip_thinking(message.get("content") or "").strip(),
            tool_calls=calls,
            usage=Usage(int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)),
            latency_s=latency,
            finish_reason=str(choice.get("finish_reason") or ""),
        )


class _ClientShards:
    """Several small httpx clients instead of one large one: httpcore scans every connection of a pool on each
    request, so sixteen episodes sharing one pool of 32 spend their time there (measured with
    tests/perf/bench_concurrency.py; apis/engine/executor.py found the same). A request takes the least
    busy client; another opens when all are full, up to max_connections in all."""

    PER_CLIENT = 4

    def __init__(self, factory, max_connections: int, per_client: int):
        self._factory = factory
        self.per_client = max(1, per_client)
        self._limit = max(1, max_connections // self.per_client)
        self._clients: list[httpx.AsyncClient] = []
        self._busy: list[int] = []

    @contextlib.asynccontextmanager
    async def client(self):
        index = min(range(len(self._clients)), key=self._busy.__getitem__, default=None)
        if index is None or (self._busy[index] >= self.per_client and len(self._clients) < self._limit):
            self._clients.append(self._factory(self.per_client))
            self._busy.append(0)
            index = len(self._clients) - 1
        self._busy[index] += 1
        try:
            yield self._clients[index]
        finally:
            self._busy[index] -= 1

    async def aclose(self) -> None:
        for client in self._clients:
            await client.aclose()
        self._clients, self._busy = [], []
