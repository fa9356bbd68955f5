"""The async executor: one way to call any catalogued API, live, against the sandbox, recording or replaying.

Every call is normalized to a key-free request (method, URL, sorted parameters, body) whose sha256 keys the
response cache and the record/replay store. The user's key is unquoted once and then encoded exactly once
by httpx, whichever form (Encoding or Decoding) was pasted, and it is redacted from everything the engine
returns or raises. Environmental failures are retried with exponential backoff and full jitter; structural
ones never are. Each provider gets a concurrency limit and a token-bucket rate limit.

Rules worth knowing:
- Record mode stores only answers that are not environmental failures, so a replay never replays a 503.
- The cache keeps raw answers of successful (and no-data) calls only; a hit is re-normalized for its caller
  and reports attempts=0, as does a replay.
- latency_ms is the round trip of the last attempt (time spent in backoff or in the limits is not in it).
- Sandbox mode uses the call's key, or sandbox_key when the call has none (the Django layer passes the
  sandbox's demo key); the engine itself knows nothing about the sandbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import random
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol
from urllib.parse import parse_qsl, quote, unquote, urlsplit

import httpx

from apis.engine import errors
from apis.engine.errors import EngineError, Secret, is_environmental, redact, reveal
from apis.engine.normalize import NormalizedResult, failure, normalize


class Mode(StrEnum):
    LIVE = "live"  # the tool's own base URL with the user's key
    SANDBOX = "sandbox"  # the same URL with its origin swapped for the local sandbox
    REPLAY = "replay"  # only recorded calls; a miss is error_class replay.miss
    RECORD = "record"  # call the record target (live or sandbox) and store what came back


@functools.cache
def _tls_context():
    """The one TLS context of the process, shared by every executor's pooled clients: building one loads the CA
    bundle (~40 ms), and a run opens an executor per provider."""
    return httpx.create_ssl_context()


class ExecutorConfigError(EngineError):
    """The executor was set up inconsistently (e.g. sandbox mode without a sandbox origin)."""


class KeySlotLike(Protocol):
    name: str
    location: str
    prefix: str


class ToolLike(Protocol):
    method: str
    path: str
    base_url: str
    key_param: KeySlotLike | None
    json_switch: Mapping[str, str]
    provider: str


@dataclass(frozen=True)
class ToolCall:
    tool: ToolLike
    params: Mapping[str, Any] = field(default_factory=dict)
    service_key: Secret | str | None = field(default=None, repr=False)
    expect_records: bool = False
    # Sent to the sandbox with this call only (e.g. a task's X-Sandbox-Now); never part of the request's identity.
    sandbox_headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ProviderLimits:
    concurrency: int = 8
    rate_per_s: float | None = None  # None: no rate limit
    burst: int | None = None  # tokens available at once; defaults to max(1, rate_per_s)


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 3
    base_delay: float = 0.25
    max_delay: float = 4.0
    jitter: bool = True

    def delay(self, failed_attempt: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Exponential backoff; full jitter draws uniformly below the cap. A Retry-After header raises the floor."""
        cap = min(self.max_delay, self.base_delay * (2 ** (failed_attempt - 1)))
        wait = rng.uniform(0, cap) if self.jitter else cap
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_delay))
        return wait


@dataclass(frozen=True)
class PreparedRequest:
    """A call reduced to what identifies it, with no key anywhere: the cache and store key."""

    method: str
    url: str  # the live URL; a key that lives in the path stays as its {NAME} placeholder
    params: tuple[tuple[str, str], ...]  # query parameters, sorted, JSON switch included, key excluded
    body: Any = None  # a JSON body
    form: dict[str, Any] | None = None  # a form-encoded body
    headers: tuple[tuple[str, str], ...] = ()
    provider: str = ""
    request_hash: str = ""

    def normalized(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "method": self.method,
            "url": self.url,
            "params": [list(p) for p in self.params],
            "body": self.body,
        }
        if self.form:
            data["form"] = self.form
        if self.headers:
            data["headers"] = [list(h) for h in self.headers]
        return data


@dataclass(frozen=True)
class RecordedCall:
    """One stored response for a normalized request. body is text with the key redacted."""

    request_hash: str
    request: dict[str, Any]
    http_status: int
    content_type: str
    body: str
    target: str = "live"
    recorded_at: float = 0.0
    latency_ms: float = 0.0


class CallStore(Protocol):
    """Where record mode writes and replay mode reads. The Django service implements this on ApiCall rows."""

    async def get(self, request_hash: str) -> RecordedCall | None: ...

    async def put(self, record: RecordedCall) -> None: ...


class InMemoryCallStore:
    def __init__(self) -> None:
        self._records: dict[str, RecordedCall] = {}

    async def get(self, request_hash: str) -> RecordedCall | None:
        return self._records.get(request_hash)

    async def put(self, record: RecordedCall) -> None:
        self._records[record.request_hash] = record

    def __len__(self) -> int:
        return len(self._records)

    def records(self) -> list[RecordedCall]:
        return list(self._records.values())


@dataclass(frozen=True)
class _Stored:
    http_status: int
    content_type: str
    body: str


class ResponseCache(Protocol):
    def get(self, key: str) -> _Stored | None: ...

    def set(self, key: str, value: _Stored) -> None: ...


class MemoryCache:
    """A small LRU with a time to live. Holds raw responses, so a hit is re-normalized for its own caller."""

    def __init__(self, max_entries: int = 1024, ttl_s: float = 300.0, clock: Callable[[], float] = time.monotonic):
        self.max_entries = max_entries
        self.ttl_s = ttl_s
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, _Stored]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> _Stored | None:
        entry = self._entries.get(key)
        if entry is None or self._clock() - entry[0] > self.ttl_s:
            self._entries.pop(key, None)
            self.misses += 1
            return None
        self._entries.move_to_end(key)
        self.hits += 1
        return entry[1]

    def set(self, key: str, value: _Stored) -> None:
        self._entries[key] = (self._clock(), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


class TokenBucket:
    """rate tokens per second, at most burst at once; waiters are served in arrival order."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        if rate <= 0:
            raise ExecutorConfigError(f"rate_per_s must be positive; got {rate}")
        self.rate = rate
        self.capacity = max(1, burst)
        self.tokens = float(self.capacity)
        self._clock = clock
        self._updated = clock()
        self._lock = asyncio.Lock()

    async def acquire(self) -> None:
        async with self._lock:
            while True:
                now = self._clock()
                self.tokens = min(self.capacity, self.tokens + (now - self._updated) * self.rate)
                self._updated = now
                if self.tokens >= 1:
                    self.tokens -= 1
                    return
                await asyncio.sleep((1 - self.tokens) / self.rate)


class _ProviderGate:
    def __init__(self, limits: ProviderLimits):
        self.semaphore = asyncio.Semaphore(max(1, limits.concurrency))
        rate = limits.rate_per_s
        self.bucket = TokenBucket(rate, limits.burst or max(1, int(rate))) if rate else None

    async def __aenter__(self):
        await self.semaphore.acquire()
        try:
            if self.bucket is not None:
                await self.bucket.acquire()
        except BaseException:
            self.semaphore.release()
            raise
        return self

    async def __aexit__(self, *exc):
        self.semaphore.release()


class _ClientPool:
    """Several small httpx clients instead of one big one.

    httpcore scans every connection of its pool, under a lock, on each request, so one pool of 64
    connections makes each call pay for all 64 (measured: 0.55 of the C/L bound at C=32 with one client,
    0.88 with pools of four). A request takes the least busy client; a new one opens when all are full.
    """

    PER_CLIENT = 4

    def __init__(self, factory: Callable[[int], httpx.AsyncClient], max_connections: int, *, shard: bool = True):
        self._factory = factory
        # An injected transport is one object with its own pool; it gets one client, not several sharing it.
        self.per_client = self.PER_CLIENT if shard else max_connections
        self._limit = max(1, max_connections // self.per_client)
        self._clients: list[httpx.AsyncClient] = []
        self._busy: list[int] = []

    def _pick(self) -> int:
        if self._clients:
            index = min(range(len(self._clients)), key=self._busy.__getitem__)
            if self._busy[index] < self.per_client or len(self._clients) >= self._limit:
                return index
        self._clients.append(self._factory(self.per_client))
        self._busy.append(0)
        return len(self._clients) - 1

    @contextlib.asynccontextmanager
    async def client(self):
        index = self._pick()
        self._busy[index] += 1
        try:
            yield self._clients[index]
        finally:
            self._busy[index] -= 1

    async def aclose(self) -> None:
        for client in self._clients:
            await client.aclose()
        self._clients, self._busy = [], []


@dataclass
class _Wire:
    """What actually goes out: target URL, query (with the key), headers and body."""

    url: str
    params: list[tuple[str, str]]
    headers: dict[str, str]
    json_body: Any = None
    form_body: dict[str, Any] | None = None


@dataclass
class _Attempt:
    result: NormalizedResult
    stored: _Stored | None  # the response, when one arrived
    retry_after: float | None = None


class Executor:
    def __init__(
        self,
        mode: Mode | str = Mode.LIVE,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sandbox_origin: str | None = None,
        sandbox_key: str | None = None,
        record_target: Mode | str = Mode.LIVE,
        store: CallStore | None = None,
        cache: ResponseCache | None = None,
        limits: ProviderLimits = ProviderLimits(),
        provider_limits: Mapping[str, ProviderLimits] | None = None,
        retry: RetryPolicy = RetryPolicy(),
        timeout: float = 10.0,
        headers: Mapping[str, str] | None = None,
        max_connections: int = 256,
        rng: random.Random | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ):
        self.mode = Mode(mode)
        self.record_target = Mode(record_target)
        if self.record_target not in (Mode.LIVE, Mode.SANDBOX):
            raise ExecutorConfigError("record_target must be live or sandbox")
        self.target = self.record_target if self.mode is Mode.RECORD else self.mode
        if self.target is Mode.SANDBOX and not sandbox_origin:
            raise ExecutorConfigError("sandbox mode needs sandbox_origin (e.g. http://127.0.0.1:8765)")
        if self.mode in (Mode.REPLAY, Mode.RECORD) and store is None:
            raise ExecutorConfigError(f"{self.mode.value} mode needs a store")
        if retry.max_attempts < 1:
            raise ExecutorConfigError("retry.max_attempts must be at least 1")
        self.sandbox_origin = (sandbox_origin or "").rstrip("/")
        self.sandbox_key = sandbox_key
        self.store = store
        # Record and replay must see the wire, never a cached copy.
        self.cache = cache if self.mode in (Mode.LIVE, Mode.SANDBOX) else None
        self.limits = limits
        self.provider_limits = dict(provider_limits or {})
        self.retry = retry
        self.timeout = timeout
        # Sent with every request and never part of a request's identity (e.g. the sandbox's X-Sandbox-* knobs).
        self.headers = dict(headers or {})
        self._transport = transport
        self._max_connections = max_connections
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clients: _ClientPool | None = None
        self._gates: dict[str, _ProviderGate] = {}

    # ------------------------------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> Executor:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._clients is not None and self._loop is asyncio.get_running_loop():
            await self._clients.aclose()
        self._clients = None
        self._loop = None
        self._gates = {}

    def _bind_loop(self) -> None:
        """Clients, semaphores and locks belong to one event loop; a new loop (a new asyncio.run) gets new ones."""
        loop = asyncio.get_running_loop()
        if self._loop is loop:
            return
        self._loop = loop
        self._gates = {}
        tls = _tls_context() if self._transport is None else True
        self._clients = _ClientPool(
            lambda size: httpx.AsyncClient(
                transport=self._transport,
                verify=tls,
                timeout=httpx.Timeout(self.timeout),
                limits=httpx.Limits(max_connections=size, max_keepalive_connections=size),
                follow_redirects=False,
            ),
            max_connections=self._max_connections,
            shard=self._transport is None,
        )

    def _gate(self, provider: str) -> _ProviderGate:
        gate = self._gates.get(provider)
        if gate is None:
            gate = self._gates[provider] = _ProviderGate(self.provider_limits.get(provider, self.limits))
        return gate

    # ----------------------------------------------------------------------------------------- requests

    def prepare(self, call: ToolCall) -> PreparedRequest:
        """The key-free normalized request and its hash. Raises EngineError for a call that cannot be built."""
        tool = call.tool
        # A fixed query in the path ("/statisticsSearch.do?method=getList", KOSIS) is sent on every call.
        template, _, fixed_query = tool.path.partition("?")
        locations = dict(getattr(tool, "param_locations", None) or {})
        key_slot = tool.key_param
        query: list[tuple[str, str]] = []
        headers: list[tuple[str, str]] = []
        body: dict[str, Any] = {}
        form: dict[str, Any] = {}
        path_values: dict[str, str] = {}
        for name, value in parse_qsl(fixed_query, keep_blank_values=True):
            if name not in call.params:
                query.append((name, value))
        switch = dict(tool.json_switch or {})
        for name, value in switch.items():
            if "{" + name + "}" in template:
                path_values[name] = value
            elif name not in call.params:
                query.append((name, value))
        for name, value in call.params.items():
            if value is None:
                continue
            if key_slot is not None and name == key_slot.name:
                continue  # a key smuggled into params never reaches the request identity
            where = locations.get(name) or ("path" if "{" + name + "}" in template else "query")
            if where == "path":
                path_values[name] = _text(value)
            elif where == "header":
                headers.append((name, _text(value)))
            elif where == "body":
                body[name] = value
            elif where == "form":
                form[name] = value
            else:
                for item in value if isinstance(value, list | tuple) else [value]:
                    query.append((name, _text(item)))
        url = tool.base_url.rstrip("/") + _fill_path(template, path_values, keep={key_slot.name} if key_slot else set())
        payload: Any = None
        if body:  # a whole-body parameter (OpenAPI 3 requestBody that is not an object) is sent as it is
            payload = body["body"] if set(body) == {"body"} and isinstance(body["body"], dict | list) else body
        prepared = PreparedRequest(
            method=tool.method.upper(),
            url=url,
            params=tuple(sorted(query)),
            body=payload,
            form=form or None,
            headers=tuple(sorted(headers)),
            provider=tool.provider or urlsplit(tool.base_url).netloc,
        )
        return replace(prepared, request_hash=request_hash(prepared))

    def _key_for(self, call: ToolCall) -> str | None:
        raw = reveal(call.service_key)
        if self.target is Mode.SANDBOX and not raw:
            raw = self.sandbox_key
        if not raw:
            return None
        # Unquote once: an Encoding key (%2B...) becomes the Decoding form; httpx then encodes it exactly once.
        return unquote(raw.strip())

    def _wire(self, prepared: PreparedRequest, call: ToolCall, key: str | None) -> _Wire:
        url = prepared.url
        if self.target is Mode.SANDBOX:
            parts = urlsplit(url)
            url = f"{self.sandbox_origin}/sandbox/{parts.netloc}{parts.path}"
        slot = call.tool.key_param
        params = list(prepared.params)
        per_call = call.sandbox_headers if self.target is Mode.SANDBOX else {}
        headers = {**self.headers, **per_call, **dict(prepared.headers)}
        if slot is not None and key:
            if slot.location == "path":
                url = url.replace("{" + slot.name + "}", quote(key, safe=""))
            elif slot.location == "header":
                headers[slot.name] = f"{slot.prefix}{key}"
            else:
                params.insert(0, (slot.name, key))
        return _Wire(url, params, headers, json_body=prepared.body, form_body=prepared.form)

    # ---------------------------------------------------------------------------------------- execution

    async def execute(self, call: ToolCall, *, use_cache: bool = True) -> NormalizedResult:
        key = self._key_for(call)
        secrets = _secrets(reveal(call.service_key), key, self.sandbox_key)
        try:
            return await self._execute(call, key, secrets, use_cache)
        except ExecutorConfigError as error:
            raise ExecutorConfigError(redact(str(error), secrets)) from None
        except EngineError as error:
            raise EngineError(redact(str(error), secrets)) from None
        except Exception as error:  # anything unforeseen still leaves without the key in its text
            raise EngineError(redact(f"{type(error).__name__}: {error}", secrets)) from None

    async def _execute(
        self, call: ToolCall, key: str | None, secrets: tuple[str, ...], use_cache: bool
    ) -> NormalizedResult:
        try:
            prepared = self.prepare(call)
        except _MissingPathParam as missing:
            return failure(errors.STRUCT_MISSING_PARAM, f"path parameter {{{missing.name}}} is missing")
        if self.mode is Mode.REPLAY:
            return await self._replay(prepared, call, secrets)
        cache = self.cache if use_cache else None
        cache_key = f"{self.target.value}:{prepared.request_hash}"
        if call.sandbox_headers and self.target is Mode.SANDBOX:
            # A per-call clock (X-Sandbox-Now) changes the answer, so it must change the cache key too.
            cache_key += ":" + json.dumps(sorted(call.sandbox_headers.items()))
        if cache is not None and (hit := cache.get(cache_key)) is not None:
            result = normalize(
                hit.body,
                http_status=hit.http_status,
                content_type=hit.content_type,
                expect_records=call.expect_records,
                secrets=secrets,
            )
            return replace(result, attempts=0, latency_ms=0.0)

        self._bind_loop()
        wire = self._wire(prepared, call, key)
        gate = self._gate(prepared.provider)
        attempts = 0
        while True:
            attempts += 1
            async with gate:
                attempt = await self._send(prepared.method, wire, call, secrets)
            if not is_environmental(attempt.result.error_class) or attempts >= self.retry.max_attempts:
                break
            await self._sleep(self.retry.delay(attempts, self._rng, attempt.retry_after))
        result = replace(attempt.result, attempts=attempts)

        if attempt.stored is not None and not is_environmental(result.error_class):
            if self.mode is Mode.RECORD:
                await self.store.put(
                    RecordedCall(
                        request_hash=prepared.request_hash,
                        request=prepared.normalized(),
                        http_status=attempt.stored.http_status,
                        content_type=attempt.stored.content_type,
                        body=attempt.stored.body,
                        target=self.target.value,
                        recorded_at=time.time(),
                        latency_ms=result.latency_ms,
                    )
                )
            if cache is not None and (result.ok or result.error_class == errors.STRUCT_NO_DATA):
                cache.set(cache_key, attempt.stored)
        return result

    async def _send(self, method: str, wire: _Wire, call: ToolCall, secrets: tuple[str, ...]) -> _Attempt:
        assert self._clients is not None
        started = time.perf_counter()
        try:
            async with self._clients.client() as client:
                response = await client.request(
                    method,
                    wire.url,
                    params=wire.params,
                    headers=wire.headers,
                    json=wire.json_body,
                    data=wire.form_body,
                )
        except httpx.TimeoutException as error:
            return _Attempt(_transport_failure(errors.ENV_TIMEOUT, error, secrets, started), None)
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
            return _Attempt(_transport_failure(errors.STRUCT_INVALID_PARAM, error, secrets, started), None)
        except (httpx.TransportError, httpx.DecodingError) as error:
            return _Attempt(_transport_failure(errors.ENV_CONNECTION, error, secrets, started), None)
        latency_ms = (time.perf_counter() - started) * 1000
        content_type = response.headers.get("content-type", "")
        result = normalize(
            response.content,
            http_status=response.status_code,
            content_type=content_type,
            expect_records=call.expect_records,
            secrets=secrets,
        )
        stored = _Stored(response.status_code, content_type, result.raw)
        return _Attempt(replace(result, latency_ms=latency_ms), stored, _retry_after(response))

    async def _replay(self, prepared: PreparedRequest, call: ToolCall, secrets: tuple[str, ...]) -> NormalizedResult:
        record = await self.store.get(prepared.request_hash)
        if record is None:
            return failure(
                errors.REPLAY_MISS,
                f"no recorded call for {prepared.method} {prepared.url} (request {prepared.request_hash[:12]})",
            )
        result = normalize(
            record.body,
            http_status=record.http_status,
            content_type=record.content_type,
            expect_records=call.expect_records,
            secrets=secrets,
        )
        return replace(result, attempts=0, latency_ms=record.latency_ms)

    async def execute_many(
        self, calls: Iterable[ToolCall], *, concurrency: int | None = None
    ) -> list[NormalizedResult]:
        """Run calls concurrently (provider limits still apply); results come back in the calls' order."""
        calls = list(calls)
        if concurrency is None:
            return list(await asyncio.gather(*(self.execute(c) for c in calls)))
        limiter = asyncio.Semaphore(max(1, concurrency))

        async def one(call: ToolCall) -> NormalizedResult:
            async with limiter:
                return await self.execute(call)

        return list(await asyncio.gather(*(one(c) for c in calls)))


# -------------------------------------------------------------------------------------------- helpers


class _MissingPathParam(EngineError):
    def __init__(self, name: str):
        super().__init__(f"path parameter {name} is missing")
        self.name = name


def _fill_path(template: str, values: Mapping[str, str], keep: set[str]) -> str:
    out = []
    for segment in template.split("/"):
        if segment.startswith("{") and segment.endswith("}"):
            name = segment[1:-1].rstrip("?")
            if name in keep:
                out.append(segment)
                continue
            if name not in values:
                if segment.endswith("?}"):  # an optional trailing segment
                    continue
                raise _MissingPathParam(name)
            out.append(quote(values[name], safe=""))
        else:
            out.append(segment)
    return "/".join(out)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def request_hash(prepared: PreparedRequest) -> str:
    canonical = json.dumps(
        prepared.normalized(), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _secrets(*values: str | None) -> tuple[str, ...]:
    return tuple(v for v in values if v)


def _transport_failure(error_class: str, error: Exception, secrets: Sequence[str], started: float) -> NormalizedResult:
    detail = str(error) or type(error).__name__
    result = failure(error_class, redact(f"{type(error).__name__}: {detail}", secrets))
    return replace(result, latency_ms=(time.perf_counter() - started) * 1000)


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
