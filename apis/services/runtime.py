"""The executor's event-loop thread (one per process, shared by every caller) and the store of recorded calls
it reads for replay."""

from __future__ import annotations

import asyncio
import contextvars
import gzip
import hashlib
import os
import threading
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import timezone

from apis.engine.executor import (
    Executor,
    ProviderLimits,
    RecordedCall,
    RetryPolicy,
)
from apis.models import ApiCall
from apis.sandbox.config import SandboxConfig


@dataclass
class _Slot:
    """What one execution hands to and takes from the store: a preloaded recording, a captured response."""

    request_hash: str
    recording: RecordedCall | None = None
    captured: RecordedCall | None = None


_slot: contextvars.ContextVar[_Slot | None] = contextvars.ContextVar("apis_call_slot", default=None)


class ApiCallStore:
    """The executor's CallStore on ApiCall rows.

    Replay answers from the newest recording (an ApiCall made in record mode, with its body) of the request
    hash. tool_execute preloads that row in the caller's thread and takes a record-mode response back through
    the current call's slot, so the recording lands on the call's own ApiCall row: one call, one row. Used
    without tool_execute, get() reads and put() writes rows itself.
    """

    async def get(self, request_hash: str) -> RecordedCall | None:
        slot = _slot.get()
        if slot is not None and slot.request_hash == request_hash:
            return slot.recording
        return await sync_to_async(recording_for)(request_hash)

    async def put(self, record: RecordedCall) -> None:
        slot = _slot.get()
        if slot is not None and slot.request_hash == record.request_hash:
            slot.captured = record
            return
        await sync_to_async(_recording_row)(record)


def recording_for(request_hash: str) -> RecordedCall | None:
    """The newest recording of a request, as the engine's RecordedCall; None when there is none."""
    row = (
        ApiCall.objects.filter(request_hash=request_hash, is_recording=True, body_gz__isnull=False)
        .order_by("-created_at", "-id")
        .first()
    )
    if row is None:
        return None
    return RecordedCall(
        request_hash=row.request_hash,
        request=row.request,
        http_status=row.http_status or 0,
        content_type=row.content_type,
        body=row.body_text or "",
        target=row.target or "live",
        recorded_at=row.created_at.timestamp(),
        latency_ms=row.latency_ms,
    )


def _recording_row(record: RecordedCall) -> ApiCall:
    body = record.body.encode("utf-8")
    return ApiCall.objects.create(
        mode=ApiCall.Mode.RECORD,
        target=record.target,
        request_hash=record.request_hash,
        request=record.request,
        http_status=record.http_status,
        content_type=record.content_type[:200],
        body_gz=gzip.compress(body),
        body_sha256=hashlib.sha256(body).hexdigest(),
        bytes=len(body),
        latency_ms=record.latency_ms,
        is_recording=True,
        finished_at=timezone.now(),
    )


@dataclass(frozen=True)
class _ExecutorKey:
    mode: str
    record_target: str
    sandbox_origin: str
    provider: str
    limits: ProviderLimits
    retry: RetryPolicy
    timeout: float
    headers: tuple[tuple[str, str], ...] = ()


class _Runtime:
    """One event loop on a daemon thread per process; every execution runs there, on long-lived executors."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="apis-executor", daemon=True)
        self.thread.start()
        self.store = ApiCallStore()
        self._executors: dict[_ExecutorKey, Executor] = {}
        self._lock = threading.Lock()

    def executor(self, key: _ExecutorKey) -> Executor:
        with self._lock:
            executor = self._executors.get(key)
            if executor is not None:
                return executor
            # Limits or settings changed: the executor they replace is closed, not leaked.
            stale = [
                k
                for k in self._executors
                if (k.mode, k.record_target, k.provider) == (key.mode, key.record_target, key.provider)
            ]
            for old in stale:
                asyncio.run_coroutine_threadsafe(self._executors.pop(old).aclose(), self.loop)
            executor = Executor(
                key.mode,
                sandbox_origin=key.sandbox_origin or None,
                sandbox_key=_sandbox_key(),
                record_target=key.record_target,
                store=self.store,
                limits=key.limits,
                retry=key.retry,
                timeout=key.timeout,
                headers=dict(key.headers),
            )
            self._executors[key] = executor
            return executor

    def run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    async def arun(self, coroutine):
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self.loop))


_runtimes: dict[int, _Runtime] = {}
_runtimes_lock = threading.Lock()


def _runtime() -> _Runtime:
    # Keyed by pid: a forked queue worker must not reuse its parent's (dead) loop thread.
    pid = os.getpid()
    runtime = _runtimes.get(pid)
    if runtime is None:
        with _runtimes_lock:
            runtime = _runtimes.get(pid)
            if runtime is None:
                runtime = _runtimes[pid] = _Runtime()
    return runtime


def _sandbox_key() -> str:
    return SandboxConfig.from_mapping(getattr(settings, "SANDBOX", None)).service_keys[0]


def _executor_settings() -> dict[str, Any]:
    return {
        "timeout_s": 10.0,
        "max_attempts": 3,
        "base_delay_s": 0.25,
        "max_delay_s": 4.0,
        "concurrency": 8,
        "record_target": "live",
        "body_cap_bytes": 2_000_000,
        # Headers sent with sandbox calls only, e.g. {"X-Sandbox-Latency-Ms": "80"} for a load test.
        "sandbox_headers": {},
        **getattr(settings, "KOPA_EXECUTOR", {}),
    }
