"""Executing tools: one plan per call, run on the shared runtime, logged as one ApiCall each (keys redacted)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gzip
import hashlib
import json
import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from apis.engine.errors import EngineError, Secret, redact
from apis.engine.executor import (
    Executor,
    Mode,
    PreparedRequest,
    ProviderLimits,
    RetryPolicy,
    ToolCall,
)
from apis.engine.normalize import NormalizedResult, failure
from apis.models import ApiCall, ApiService, Tool
from apis.services.credentials import _checked_key, _credential_key
from apis.services.errors import (
    INTERNAL_ERROR,
    MODES,
    ExecutorFault,
    MissingCredential,
    ParamsInvalid,
    ToolExecutionError,
)
from apis.services.runtime import _executor_settings, _ExecutorKey, _runtime, _Slot, _slot, recording_for
from kopa_site.parsers import check_value

logger = logging.getLogger(__name__)


_RESULT_MSG_LIMIT = 2000
# zlib's default level: a quarter of level 9's time (gzip.compress's default) for bodies about 6 % larger.
_BODY_GZIP_LEVEL = 6


@dataclass(frozen=True)
class Execution:
    """One logged execution: the ApiCall row and the engine's normalized result (records included)."""

    call: ApiCall
    result: NormalizedResult


@dataclass(frozen=True)
class CallOptions:
    """How a call is made and logged: the one object every tool_execute* entry point takes (none is CallOptions()).

    mode: live (the service's base URL with the provider's key, or `service_key`), sandbox (the same URL on the
    sandbox origin), record (call `record_target` and keep the body for replay) or replay (answer from a
    recording; none is error_class replay.miss). `source_kind`/`source_id` say what made the call (a page, a
    trial, a walk). `sandbox_headers` go to the sandbox with this call only, e.g. {"X-Sandbox-Now": a task's
    clock}; `sandbox_origin` replaces settings.KOPA_SANDBOX_ORIGIN.
    """

    mode: str = "sandbox"
    service_key: str | None = field(default=None, repr=False)
    user: Any = None
    source_kind: str = ""
    source_id: Any = None
    expect_records: bool = False
    record_target: str | None = None
    sandbox_origin: str | None = None
    sandbox_headers: dict[str, str] | None = None


@dataclass
class _Plan:
    tool: Tool
    mode: str
    target: str  # live | sandbox | "" (replay)
    call: ToolCall
    executor: Executor
    slot: _Slot
    request: dict[str, Any]
    params: dict[str, Any]
    secrets: tuple[str, ...] = field(repr=False)
    user: Any
    source_kind: str
    source_id: str


def _plan(*, tool: Tool, params: dict[str, Any] | None, options: CallOptions) -> _Plan:
    mode, service_key, record_target = options.mode, options.service_key, options.record_target
    sandbox_origin, sandbox_headers = options.sandbox_origin, options.sandbox_headers
    if mode not in MODES:
        raise ToolExecutionError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    if params is not None and not isinstance(params, dict):
        raise ToolExecutionError("params must be a JSON object of parameter names and values")
    config = _executor_settings()
    record_target = record_target or config["record_target"]
    if record_target not in (Mode.LIVE, Mode.SANDBOX):
        raise ToolExecutionError(f"record_target must be live or sandbox; got {record_target!r}")
    target = record_target if mode == Mode.RECORD else ("" if mode == Mode.REPLAY else mode)
    try:
        check_value(params or {}, max_depth=32)  # finite numbers, encodable text: or nothing could be logged
    except ValueError as error:
        raise ParamsInvalid([f"params: {error}"]) from None
    provider = tool.service.provider
    # A one-off key follows the stored keys' rules, and lives in a Secret: no frame shows it on an error page.
    given_key = Secret(_checked_key(service_key)) if isinstance(service_key, str) and service_key.strip() else None
    key = given_key
    if target == Mode.LIVE and key is None:
        key = _credential_key(provider)
        if key is None:
            raise MissingCredential(
                f"live mode needs a service key for {provider.display_name} ({provider.code}): an admin sets one "
                f"on the service page or in the admin, or pass service_key"
            )
    secrets = tuple(s.reveal() for s in (given_key, key) if s)
    slot_name = (tool.key_slot or {}).get("name", "")
    # The key slot in any spelling (serviceKey, SERVICEKEY) never goes out from params: only the key does.
    sent_params = {k: v for k, v in (params or {}).items() if not (slot_name and k.lower() == slot_name.lower())}
    clean_params = _redacted(sent_params, secrets)

    origin = (sandbox_origin or getattr(settings, "KOPA_SANDBOX_ORIGIN", "") or "").rstrip("/")
    needs_sandbox = target == Mode.SANDBOX
    if needs_sandbox and not origin:
        raise ToolExecutionError("sandbox mode needs KOPA_SANDBOX_ORIGIN (e.g. http://127.0.0.1:8000)")
    limits = ProviderLimits(
        concurrency=provider.max_concurrency or config["concurrency"], rate_per_s=provider.rate_limit_per_s or None
    )
    retry = RetryPolicy(
        max_attempts=config["max_attempts"], base_delay=config["base_delay_s"], max_delay=config["max_delay_s"]
    )
    key_tuple = _ExecutorKey(
        mode=mode,
        record_target=record_target,
        sandbox_origin=origin if needs_sandbox else "",
        provider=provider.code,
        limits=limits,
        retry=retry,
        timeout=float(config["timeout_s"]),
        headers=tuple(sorted(config["sandbox_headers"].items())) if needs_sandbox else (),
    )
    runtime = _runtime()
    executor = runtime.executor(key_tuple)
    spec = tool.to_spec()
    call = ToolCall(
        spec,
        sent_params,
        service_key=key,
        expect_records=options.expect_records,
        sandbox_headers=dict(sandbox_headers or {}) if needs_sandbox else {},
    )
    try:
        prepared: PreparedRequest | None = executor.prepare(call)
    except EngineError:
        prepared = None  # e.g. a missing path parameter: the engine answers it as a structural failure
    if prepared is not None:
        request, request_hash = prepared.normalized(), prepared.request_hash
    else:
        request = {"method": spec.method.upper(), "url": spec.url, "params": sorted(clean_params.items(), key=str)}
        request_hash = hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()
    slot = _Slot(request_hash)
    if mode == Mode.REPLAY and prepared is not None:
        slot.recording = recording_for(request_hash)
    return _Plan(
        tool=tool,
        mode=mode,
        target=target,
        call=call,
        executor=executor,
        slot=slot,
        request=_redacted(request, secrets),
        params=clean_params,
        secrets=secrets,
        user=options.user,
        source_kind=(options.source_kind or "")[:40],
        source_id=str(options.source_id)[:64] if options.source_id not in (None, "") else "",
    )


# Paging parameters of the Korean public APIs: a page from 1, and no more rows than any gateway serves.
_PAGING = {"pageno": 1_000_000, "page": 1_000_000, "numofrows": 10_000, "perpage": 10_000, "pagesize": 10_000}
_INT64 = 2**63
_TRUTHY = {"true", "false", "1", "0", "y", "n"}


def _number(value: Any, integer: bool) -> float | int | None:
    """The number a parameter value stands for (JSON number or its text), None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if integer and value.is_integer() else (None if integer else value)
    if isinstance(value, str):
        text = value.strip()
        if integer:
            return int(text) if re.fullmatch(r"[+-]?\d{1,30}", text) else None
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _value_problem(name: str, value: Any, schema: dict[str, Any]) -> str | None:
    declared = schema.get("type")
    kinds = declared if isinstance(declared, list) else [declared] if declared else []
    if not kinds:
        return None
    for kind in kinds:
        if kind in ("integer", "number"):
            number = _number(value, kind == "integer")
            if number is None:
                continue
            if abs(number) >= _INT64:
                return f"{name}: {value!r} is out of range"
            low, high = schema.get("minimum"), schema.get("maximum")
            cap = _PAGING.get(name.lower())
            if cap is not None:
                low, high = max(_number(low, False) or 1, 1), min(_number(high, False) or cap, cap)
            if (low := _number(low, False)) is not None and number < low:
                return f"{name}: {number} is below the minimum {low:g}"
            if (high := _number(high, False)) is not None and number > high:
                return f"{name}: {number} is above the maximum {high:g}"
            return None
        if kind == "boolean" and (isinstance(value, bool) or str(value).strip().lower() in _TRUTHY):
            return None
        if kind == "string" and isinstance(value, str | int | float) and not isinstance(value, bool):
            return None
        if kind == "array" and isinstance(value, list | tuple | str):
            return None
        if kind == "object" and isinstance(value, dict):
            return None
        if kind in ("null", "file"):
            return None
    return f"{name}: expected {' or '.join(map(str, kinds))}, got {type(value).__name__} {str(value)[:40]!r}"


def tool_params_check(*, tool: Tool, params: dict[str, Any] | None) -> None:
    """Refuse (ParamsInvalid) parameters that do not fit the tool's schema: a missing required one, a wrong
    type, a number out of its range or a page out of the gateways' range. Nothing is sent for a refused call.
    Unknown names pass: the API itself answers them, as it does for a model's mistaken call."""
    if params is not None and not isinstance(params, dict):
        raise ParamsInvalid(["params must be an object of parameter names and values"])
    params = params or {}
    schema = tool.parameters if isinstance(tool.parameters, dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    slot = str((tool.key_slot or {}).get("name", "")).lower()
    problems = [
        f"{name}: required"
        for name in (schema.get("required") or [])
        if params.get(name) in (None, "") and not (slot and str(name).lower() == slot)
    ]
    for name, value in params.items():
        if value is None or (slot and name.lower() == slot) or not isinstance(properties.get(name), dict):
            continue
        if problem := _value_problem(name, value, properties[name]):
            problems.append(problem)
    if problems:
        raise ParamsInvalid(problems)


def _redacted(value: Any, secrets: Sequence[str]) -> Any:
    """A JSON value with every wire form of every secret masked, wherever it hides."""
    if not secrets:
        return value
    return json.loads(redact(json.dumps(value, ensure_ascii=False, default=str), secrets))


async def _run(plan: _Plan) -> NormalizedResult:
    token = _slot.set(plan.slot)
    try:
        return await plan.executor.execute(plan.call, use_cache=False)
    finally:
        _slot.reset(token)


async def _run_many(plans: list[_Plan], concurrency: int | None) -> list[NormalizedResult | EngineError]:
    limiter = asyncio.Semaphore(concurrency) if concurrency else None

    async def one(plan: _Plan) -> NormalizedResult | EngineError:
        try:
            if limiter is None:
                return await _run(plan)
            async with limiter:
                return await _run(plan)
        except EngineError as error:
            return error

    return list(await asyncio.gather(*(one(plan) for plan in plans)))


def _log(plan: _Plan, result: NormalizedResult) -> ApiCall:
    """Write the call's ApiCall row: key-free request, outcome, body (gzip up to the cap) and its source."""
    row = _log_row(plan, result)
    _insert(plan, row)
    _logged(plan, result, row)
    return row


def _log_row(plan: _Plan, result: NormalizedResult) -> ApiCall:
    """The call's ApiCall row, not yet stored (nothing here touches the database)."""
    body_text = redact(result.raw, plan.secrets)
    body = body_text.encode("utf-8")
    captured = plan.slot.captured
    content_type = (
        captured.content_type if captured else (plan.slot.recording.content_type if plan.slot.recording else "")
    )
    keep = bool(body) and (captured is not None or len(body) <= _executor_settings()["body_cap_bytes"])
    return ApiCall(
        tool=plan.tool,
        mode=plan.mode,
        target=plan.target,
        request_hash=plan.slot.request_hash,
        request=plan.request,
        params=plan.params,
        ok=result.ok,
        http_status=result.http_status,
        result_code=redact(result.result_code or "", plan.secrets)[:40],
        result_msg=redact(result.result_msg or "", plan.secrets)[:_RESULT_MSG_LIMIT],
        error_class=(result.error_class or "")[:40],
        record_count=len(result.records),
        total_count=max(0, result.total_count) if result.total_count is not None else None,
        latency_ms=round(result.latency_ms, 2),
        bytes=result.bytes or len(body),
        attempts=result.attempts,
        content_type=content_type[:200],
        body_gz=gzip.compress(body, compresslevel=_BODY_GZIP_LEVEL) if keep else None,
        body_sha256=hashlib.sha256(body).hexdigest() if body else "",
        is_recording=captured is not None and keep,
        source_kind=plan.source_kind,
        source_id=plan.source_id,
        created_by=plan.user if getattr(plan.user, "is_authenticated", False) else None,
        finished_at=timezone.now(),
    )


def _insert(plan: _Plan, row: ApiCall) -> None:
    try:
        with transaction.atomic():
            row.save(force_insert=True)
    except (DatabaseError, ValueError, TypeError) as error:
        # The call went out, so it is logged whatever its values: the ones that cannot be stored go in as text.
        logger.warning("api call of %s: values stored as text (%s)", plan.tool.function_name, type(error).__name__)
        row.pk = None
        row.request = {"unstorable": ascii(plan.request)[:10_000]}
        row.params = {"unstorable": ascii(plan.params)[:10_000]}
        row.save(force_insert=True)


def _logged(plan: _Plan, result: NormalizedResult, row: ApiCall) -> None:
    """What follows a stored row: a success code the service did not list yet is learnt, and the call is logged."""
    service = plan.tool.service
    if result.ok and result.result_code and result.result_code not in service.success_codes:
        service.success_codes = [*service.success_codes, result.result_code[:40]]
        ApiService.objects.filter(pk=service.pk).update(success_codes=service.success_codes)
    logger.info(
        "api call #%s %s [%s] %s %s -> %s in %.0f ms",
        row.pk,
        plan.tool.function_name,
        plan.mode,
        plan.request.get("method", ""),
        plan.request.get("url", ""),
        "ok" if result.ok else (result.error_class or "failed"),
        result.latency_ms,
    )


class CallLog:
    """ApiCall rows kept back and written together (tool_execute_async(log=...)), for a caller that makes many calls
    on the loop and can wait to store them: one insert for the lot, no trip to a database thread per call. Until
    flush() the rows of its executions have no id; flush from a thread that may use the database, also when the
    calls failed half-way (every call that went out is logged)."""

    def __init__(self) -> None:
        self._pending: list[tuple[_Plan, NormalizedResult, ApiCall]] = []

    def add(self, plan: _Plan, result: NormalizedResult) -> ApiCall:
        row = _log_row(plan, result)
        self._pending.append((plan, result, row))
        return row

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        if not pending:
            return
        try:
            with transaction.atomic():
                ApiCall.objects.bulk_create([row for _, _, row in pending])
        except (DatabaseError, ValueError, TypeError):
            for plan, _, row in pending:  # a row that cannot be stored as it is: each goes in on its own, as _log does
                row.pk = None
                _insert(plan, row)
        for plan, result, row in pending:
            _logged(plan, result, row)


def _failure_of(plan: _Plan, error: Exception) -> NormalizedResult:
    return failure(INTERNAL_ERROR, redact(str(error) or type(error).__name__, plan.secrets))


def tool_execute(*, tool: Tool, params: dict[str, Any] | None = None, options: CallOptions | None = None) -> Execution:
    """Execute a tool through the one executor and log it as an ApiCall; `options` say how (CallOptions).

    API failures come back as a result with its error class; ToolExecutionError means the call could not be made
    as asked (its text never holds the key).
    """
    options = options or CallOptions()
    # Named for the key, so an error report finds the key here and masks it in every frame (exception_reporter).
    service_key = options.service_key  # noqa: F841
    plan = _plan(tool=tool, params=params, options=options)
    try:
        result = _runtime().run(_run(plan))
    except EngineError as error:
        row = _log(plan, _failure_of(plan, error))
        raise ExecutorFault(f"call #{row.pk} failed inside the executor: {row.result_msg}") from None
    return Execution(_log(plan, result), result)


class PendingExecution:
    """A call handed to the executor's loop by tool_execute_submit; result() waits and writes its ApiCall."""

    def __init__(self, plan: _Plan):
        self._plan = plan
        self.future: concurrent.futures.Future = asyncio.run_coroutine_threadsafe(_run(plan), _runtime().loop)

    def done(self) -> bool:
        return self.future.done()

    def result(self) -> Execution:
        """The logged execution (an engine fault comes back as the call's INTERNAL_ERROR result, as in
        tool_execute_many); call it from a thread that may use the database."""
        try:
            outcome = self.future.result()
        except EngineError as error:
            outcome = _failure_of(self._plan, error)
        return Execution(_log(self._plan, outcome), outcome)


def tool_execute_submit(
    *, tool: Tool, params: dict[str, Any] | None = None, options: CallOptions | None = None
) -> PendingExecution:
    """Start one call without waiting for it, for callers that keep many in flight and act on each as it
    finishes (the EDGE verifier's pipeline). Wait with concurrent.futures.wait on .future; result() logs it.
    Raises ToolExecutionError at once when the call cannot be made as asked."""
    options = options or CallOptions()
    service_key = options.service_key  # noqa: F841 (see tool_execute)
    plan = _plan(tool=tool, params=params, options=options)
    return PendingExecution(plan)


async def tool_execute_async(
    *,
    tool: Tool,
    params: dict[str, Any] | None = None,
    options: CallOptions | None = None,
    log: CallLog | None = None,
) -> Execution:
    """tool_execute for async callers (the MCP server): the same arguments, database work off the loop. With `log`,
    the ApiCall row goes into it, to be stored by its flush() (a call the executor failed on is stored at once)."""
    options = options or CallOptions()
    service_key = options.service_key  # noqa: F841 (see tool_execute)
    plan = await sync_to_async(_plan)(tool=tool, params=params, options=options)
    try:
        result = await _runtime().arun(_run(plan))
    except EngineError as error:
        row = await sync_to_async(_log)(plan, _failure_of(plan, error))
        raise ExecutorFault(f"call #{row.pk} failed inside the executor: {row.result_msg}") from None
    if log is not None:
        return Execution(log.add(plan, result), result)
    return Execution(await sync_to_async(_log)(plan, result), result)


def tool_execute_many(
    *,
    calls: Sequence[tuple[Tool, dict[str, Any]]],
    concurrency: int | None = None,
    options: CallOptions | None = None,
) -> list[Execution]:
    """Execute many calls at once (provider rate and concurrency limits still apply); results in order.

    An engine fault in one call is logged as that call's INTERNAL_ERROR result; the others go on.
    """
    options = options or CallOptions()
    service_key = options.service_key  # noqa: F841 (see tool_execute)
    plans = [_plan(tool=tool, params=params, options=options) for tool, params in calls]
    outcomes = _runtime().run(_run_many(plans, concurrency))
    executions = []
    for plan, outcome in zip(plans, outcomes, strict=True):
        result = _failure_of(plan, outcome) if isinstance(outcome, EngineError) else outcome
        executions.append(Execution(_log(plan, result), result))
    return executions
