"""The agent runner: a multi-step tool-calling loop over any backend and any ToolEnvironment.

One episode: the system prompt (with the task's sandbox clock) and the request go to the backend; each turn's
tool calls are checked against the tools' schemas, the valid ones run concurrently, and every result (or the
error that stopped a call) goes back to the model as a tool message. The episode ends with a reply that calls
no tool (the answer), at max_steps, on a backend error, or at the episode timeout. Malformed calls (unreadable
JSON, unknown tools, wrong or missing arguments) are recorded and answered with an error; nothing the model
does stops the run. run_tasks runs (task, seed) episodes concurrently and returns them in a stable order.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from apis.engine.errors import EngineError
from apis.engine.executor import Executor, ToolCall
from apis.engine.function_schema import AGENT_SYSTEM_PROMPT, FunctionToolset, UnknownFunction, build_toolset
from apis.engine.model import ToolSpec
from benchmarks.engine.accounting import Usage
from benchmarks.engine.backends.base import Backend, BackendError, ModelRequest, ParsedCall, SamplingParams
from benchmarks.engine.backends.parsing import TOOL_CALL_OPEN, UNPARSED, parse_tool_calls
from benchmarks.engine.task import Task

INVALID_ARGUMENTS = "call.invalid_arguments"
UNKNOWN_TOOL = "call.unknown_tool"
TOO_MANY_CALLS = "call.too_many"
EXECUTION_EXCEPTION = "call.execution_exception"

STOP_ANSWER = "answer"
STOP_MAX_STEPS = "max_steps"
STOP_BACKEND_ERROR = "backend_error"
STOP_TIMEOUT = "timeout"

DEFAULT_SYSTEM_PROMPT = AGENT_SYSTEM_PROMPT


# ------------------------------------------------------------------------------------- environments


@dataclass(frozen=True)
class Observation:
    """A tool result: `content` is the JSON text the model reads; the rest is what the metrics need."""

    content: str
    ok: bool
    error_class: str | None = None
    total_count: int | None = None
    page: Mapping[str, Any] = field(default_factory=dict)
    records_returned: int = 0  # records the API sent
    records_delivered: int = 0  # records the model saw (after the environment's caps)
    latency_ms: float = 0.0

    @classmethod
    def error(cls, error_class: str, message: str) -> Observation:
        body = json.dumps({"ok": False, "error_class": error_class, "error": message}, ensure_ascii=False)
        return cls(content=body, ok=False, error_class=error_class)


class ToolEnvironment:
    """The tools an episode may call. `schemas` are OpenAI function schemas; `execute` never raises for a
    failed API call (it returns an Observation with ok False), only for a broken environment."""

    schemas: list[dict[str, Any]] = []

    @property
    def tool_names(self) -> set[str]:
        return {schema["function"]["name"] for schema in self.schemas}

    def parameters(self, name: str) -> Mapping[str, Any]:
        for schema in self.schemas:
            if schema["function"]["name"] == name:
                return schema["function"].get("parameters") or {}
        raise KeyError(name)

    async def execute(self, name: str, args: Mapping[str, Any]) -> Observation:
        raise NotImplementedError

    async def aclose(self) -> None:
        return None


class StaticToolEnvironment(ToolEnvironment):
    """Tools answered by plain Python: each name maps to a function (args -> records list, or an Observation).
    For tests, the concurrency benchmark, and tasks that need no API."""

    def __init__(self, schemas: Sequence[Mapping[str, Any]], handlers: Mapping[str, Callable[[dict], Any]]):
        self.schemas = [dict(s) for s in schemas]
        self.handlers = dict(handlers)

    async def execute(self, name: str, args: Mapping[str, Any]) -> Observation:
        started = time.perf_counter()
        answer = self.handlers[name](dict(args))
        if inspect.isawaitable(answer):
            answer = await answer
        if isinstance(answer, Observation):
            return answer
        records = list(answer)
        body = {"ok": True, "total_count": len(records), "record_count": len(records), "records": records}
        return Observation(
            content=json.dumps(body, ensure_ascii=False),
            ok=True,
            total_count=len(records),
            records_returned=len(records),
            records_delivered=len(records),
            latency_ms=(time.perf_counter() - started) * 1000,
        )


def toolset_subset(toolset: FunctionToolset, names: Iterable[str]) -> FunctionToolset:
    """The toolset restricted to these function names, in the toolset's order. Unknown names raise KeyError."""
    wanted = list(dict.fromkeys(names))
    missing = [n for n in wanted if n not in toolset.tools]
    if missing:
        raise KeyError(f"no tool named {', '.join(missing)} in the toolset")
    keep = set(wanted)
    return FunctionToolset(
        schemas=[s for s in toolset.schemas if s["function"]["name"] in keep],
        tools={n: t for n, t in toolset.tools.items() if n in keep},
        param_aliases={n: a for n, a in toolset.param_aliases.items() if n in keep},
    )


class ExecutorToolEnvironment(ToolEnvironment):
    """Catalog tools executed through apis.engine.executor (live, sandbox over HTTP, or replay).

    The observation mirrors the MCP server's result (ok, error_class, result_code, result_msg, total_count,
    page, records): at most max_records records, and records dropped from the end until the JSON fits
    max_chars; records_omitted says how many the model did not see.
    """

    def __init__(
        self,
        tools: Sequence[ToolSpec] | FunctionToolset,
        executor: Executor,
        *,
        names: Iterable[str] | None = None,
        service_keys: Mapping[str, str] | None = None,
        max_records: int = 100,
        max_chars: int = 24_000,
    ):
        toolset = tools if isinstance(tools, FunctionToolset) else build_toolset(tools)
        self.toolset = toolset_subset(toolset, names) if names is not None else toolset
        self.schemas = list(self.toolset.schemas)
        self.executor = executor
        self._service_keys = dict(service_keys or {})
        self.max_records = max_records
        self.max_chars = max_chars

    def __repr__(self) -> str:  # the service keys stay out of reprs and logs
        return f"ExecutorToolEnvironment({len(self.schemas)} tools, mode={self.executor.mode.value})"

    async def execute(self, name: str, args: Mapping[str, Any]) -> Observation:
        try:
            tool, params = self.toolset.to_call(name, dict(args))
        except UnknownFunction as error:
            return Observation.error(UNKNOWN_TOOL, str(error))
        key = self._service_keys.get(tool.provider)
        try:
            result = await self.executor.execute(ToolCall(tool, params, service_key=key))
        except EngineError as error:  # already redacted by the executor
            return Observation.error(EXECUTION_EXCEPTION, str(error))
        records = result.records[: self.max_records]
        payload = {
            "ok": result.ok,
            "error_class": result.error_class,
            "http_status": result.http_status,
            "result_code": result.result_code,
            "result_msg": result.result_msg,
            "total_count": result.total_count,
            "page": result.page,
            "record_count": len(result.records),
            "records": records,
            "records_omitted": len(result.records) - len(records),
        }
        content = json.dumps(payload, ensure_ascii=False, default=str)
        while len(content) > self.max_chars and payload["records"]:
            cut = max(1, len(payload["records"]) // 4)
            payload["records"] = payload["records"][:-cut]
            payload["records_omitted"] = len(result.records) - len(payload["records"])
            content = json.dumps(payload, ensure_ascii=False, default=str)
        return Observation(
            content=content,
            ok=result.ok,
            error_class=result.error_class,
            total_count=result.total_count,
            page=dict(result.page),
            records_returned=len(result.records),
            records_delivered=len(payload["records"]),
            latency_ms=result.latency_ms,
        )


class ClockedExecutors:
    """Executors for tasks with their own sandbox clock: in sandbox mode one executor per clock, each sending
    X-Sandbox-Now; in other modes one shared executor (a live API has its own clock)."""

    def __init__(self, mode: str = "sandbox", **executor_kwargs: Any):
        self.mode = mode
        self._kwargs = executor_kwargs
        self._executors: dict[str | None, Executor] = {}

    def for_clock(self, clock: str | None) -> Executor:
        key = clock if self.mode == "sandbox" else None
        if key not in self._executors:
            headers = dict(self._kwargs.get("headers") or {})
            if key is not None:
                headers["X-Sandbox-Now"] = key
            self._executors[key] = Executor(self.mode, **{**self._kwargs, "headers": headers})
        return self._executors[key]

    async def aclose(self) -> None:
        for executor in self._executors.values():
            await executor.aclose()
        self._executors = {}


def catalog_environment_factory(
    toolset: FunctionToolset, executors: ClockedExecutors, **options: Any
) -> Callable[[Task], ToolEnvironment]:
    """task -> an ExecutorToolEnvironment with the task's tool set and sandbox clock."""

    def make(task: Task) -> ToolEnvironment:
        names = None if task.uses_all_tools else task.tools
        return ExecutorToolEnvironment(toolset, executors.for_clock(task.clock), names=names, **options)

    return make


# ------------------------------------------------------------------------------------------ records


@dataclass
class CallRecord:
    id: str
    step: int
    name: str | None
    arguments: dict[str, Any] | None
    raw_arguments: str
    status: str  # ok | error (executed, the API failed) | invalid (never executed)
    ok: bool = False
    error_class: str | None = None
    error: str = ""
    total_count: int | None = None
    page: dict[str, Any] = field(default_factory=dict)
    records_returned: int = 0
    records_delivered: int = 0
    latency_ms: float = 0.0
    observation: str = ""


@dataclass
class StepRecord:
    index: int
    content: str
    calls: list[CallRecord] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    finish_reason: str = ""
    raw: str = ""


@dataclass
class EpisodeResult:
    task_id: str
    seed: int
    backend: str
    model: str
    stop_reason: str
    answer: str | None
    steps: list[StepRecord] = field(default_factory=list)
    error: str = ""
    wall_s: float = 0.0
    started_at: str = ""
    max_steps: int = 0

    @property
    def calls(self) -> list[CallRecord]:
        return [call for step in self.steps for call in step.calls]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EpisodeResult:
        steps = []
        for step in data.get("steps", []):
            calls = [CallRecord(**c) for c in step.get("calls", [])]
            usage = Usage(
                **{k: v for k, v in (step.get("usage") or {}).items() if k in ("prompt_tokens", "completion_tokens")}
            )
            steps.append(StepRecord(**{**step, "calls": calls, "usage": usage}))
        return cls(**{**data, "steps": steps})


def write_results_jsonl(path: str | Path, results: Iterable[EpisodeResult]) -> Path:
    """One episode per line (UTF-8 JSON), written to a temporary file first so a crash leaves no half file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(path.suffix + ".partial")
    with partial.open("w", encoding="utf-8") as handle:
        for result in results:
            handle.write(json.dumps(result.to_dict(), ensure_ascii=False, default=str) + "\n")
    partial.replace(path)
    return path


def read_results_jsonl(path: str | Path) -> list[EpisodeResult]:
    with Path(path).open(encoding="utf-8") as handle:
        return [EpisodeResult.from_dict(json.loads(line)) for line in handle if line.strip()]


# ------------------------------------------------------------------------------------------ the loop


@dataclass(frozen=True)
class RunConfig:
    max_steps: int = 8  # model turns per episode
    max_calls_per_turn: int = 16
    concurrency: int = 1  # episodes in flight
    sampling: SamplingParams = SamplingParams()
    system_prompt: str | None = DEFAULT_SYSTEM_PROMPT  # {now} becomes the task's clock; None: no system message
    episode_timeout_s: float | None = None

    def __post_init__(self):
        if self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.max_calls_per_turn < 1:
            raise ValueError("max_calls_per_turn must be at least 1")


def initial_messages(task: Task, config: RunConfig) -> list[dict[str, Any]]:
    messages = []
    if config.system_prompt:
        now = datetime.fromisoformat(task.clock).strftime("%Y-%m-%d %H:%M")
        messages.append({"role": "system", "content": config.system_prompt.replace("{now}", now)})
    messages.append({"role": "user", "content": task.request})
    return messages


async def run_episode(
    task: Task, backend: Backend, env: ToolEnvironment, *, seed: int = 0, config: RunConfig = RunConfig()
) -> EpisodeResult:
    """One episode; never raises for anything the model or an API does (those end up in the result)."""
    result = EpisodeResult(
        task_id=task.id,
        seed=seed,
        backend=backend.name,
        model=backend.model,
        stop_reason=STOP_MAX_STEPS,
        answer=None,
        started_at=datetime.now().astimezone().isoformat(timespec="seconds"),
        max_steps=config.max_steps,
    )
    started = time.perf_counter()
    try:
        if config.episode_timeout_s:
            await asyncio.wait_for(_loop(task, backend, env, seed, config, result), config.episode_timeout_s)
        else:
            await _loop(task, backend, env, seed, config, result)
    except TimeoutError:
        result.stop_reason = STOP_TIMEOUT
        result.error = f"the episode ran past {config.episode_timeout_s} s"
    result.wall_s = time.perf_counter() - started
    return result


async def _loop(
    task: Task, backend: Backend, env: ToolEnvironment, seed: int, config: RunConfig, result: EpisodeResult
):
    messages = initial_messages(task, config)
    tools = list(env.schemas)
    for step_index in range(config.max_steps):
        request = ModelRequest(task, [dict(m) for m in messages], tools, step_index, seed, config.sampling)
        started = time.perf_counter()
        try:
            turn = await backend.complete(request)
        except BackendError as error:
            result.stop_reason, result.error = STOP_BACKEND_ERROR, str(error)
            return
        except Exception as error:  # a backend bug must not take the other episodes down with it
            result.stop_reason, result.error = STOP_BACKEND_ERROR, f"{type(error).__name__}: {error}"
            return
        latency = turn.latency_s or (time.perf_counter() - started)
        step = StepRecord(step_index, turn.content or "", [], turn.usage, latency, turn.finish_reason, turn.raw)
        result.steps.append(step)
        calls = list(turn.tool_calls)
        unparsed = not calls and TOOL_CALL_OPEN in (turn.content or "")
        if unparsed:
            _, read = parse_tool_calls(turn.content, id_prefix=f"text_{step_index}")
            reason = f"{UNPARSED}: the endpoint returned this tool call as text; its tool-call parser could not read it"
            calls = [replace(c, arguments=None, error=reason) for c in read]
        if not calls:
            result.stop_reason, result.answer = STOP_ANSWER, turn.content or ""
            return
        calls = _unique_ids(calls, step_index)
        records = await _run_calls(calls, env, step_index, config)
        step.calls = records
        if unparsed:
            messages.append({"role": "assistant", "content": turn.content})
            errors = "\n".join(r.observation for r in records)
            messages.append({"role": "user", "content": f"<tool_response>\n{errors}\n</tool_response>"})
            continue
        messages.append(
            {
                "role": "assistant",
                "content": turn.content or "",
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": call.name or "unknown",
                            "arguments": call.raw_arguments if call.arguments is not None else "{}",
                        },
                    }
                    for call in calls
                ],
            }
        )
        for record in records:
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": record.id,
                    "name": record.name or "unknown",
                    "content": record.observation,
                }
            )


def _unique_ids(calls: list[ParsedCall], step: int) -> list[ParsedCall]:
    seen: set[str] = set()
    out = []
    for index, call in enumerate(calls):
        call_id = call.id
        if not call_id or call_id in seen:
            call_id = f"call_{step}_{index}"
        seen.add(call_id)
        out.append(replace(call, id=call_id))
    return out


async def _run_calls(calls: list[ParsedCall], env: ToolEnvironment, step: int, config: RunConfig) -> list[CallRecord]:
    records: list[CallRecord] = []
    pending: list[tuple[CallRecord, Awaitable[Observation]]] = []
    names = env.tool_names
    for index, call in enumerate(calls):
        record = CallRecord(call.id, step, call.name, call.arguments, call.raw_arguments or "", "invalid")
        records.append(record)
        problem = None
        if index >= config.max_calls_per_turn:
            problem = (TOO_MANY_CALLS, f"at most {config.max_calls_per_turn} tool calls per turn; this one was not run")
        elif call.error:
            kind, _, detail = call.error.partition(":")
            problem = (kind.strip(), (detail.strip() or call.error) + f"; raw call: {call.raw_arguments[:300]}")
        elif call.name not in names:
            known = ", ".join(sorted(names)[:50])
            problem = (UNKNOWN_TOOL, f"no tool named {call.name!r}; available: {known}")
        else:
            issues = check_arguments(env.parameters(call.name), call.arguments or {})
            if issues:
                problem = (INVALID_ARGUMENTS, "; ".join(issues))
        if problem is not None:
            observation = Observation.error(*problem)
            record.error_class, record.error, record.observation = problem[0], problem[1], observation.content
            continue
        pending.append((record, _safe_execute(env, call.name, call.arguments or {})))
    observations = await asyncio.gather(*(awaitable for _, awaitable in pending))
    for (record, _), observation in zip(pending, observations, strict=True):
        record.status = "ok" if observation.ok else "error"
        record.ok = observation.ok
        record.error_class = observation.error_class
        record.total_count = observation.total_count
        record.page = dict(observation.page)
        record.records_returned = observation.records_returned
        record.records_delivered = observation.records_delivered
        record.latency_ms = observation.latency_ms
        record.observation = observation.content
        if not observation.ok:
            record.error = _error_text(observation.content)
    return records


async def _safe_execute(env: ToolEnvironment, name: str, args: Mapping[str, Any]) -> Observation:
    started = time.perf_counter()
    try:
        observation = await env.execute(name, args)
    except Exception as error:  # a broken environment is the call's error, not the run's
        return Observation.error(EXECUTION_EXCEPTION, f"{type(error).__name__}: {error}")
    if not observation.latency_ms:
        observation = replace(observation, latency_ms=(time.perf_counter() - started) * 1000)
    return observation


def _error_text(content: str) -> str:
    try:
        data = json.loads(content)
    except (json.JSONDecodeError, TypeError):
        return content[:300]
    if isinstance(data, dict):
        return str(data.get("error") or data.get("result_msg") or data.get("error_class") or "")[:300]
    return ""


# ------------------------------------------------------------------------------------ argument checks

_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object"}


def check_arguments(schema: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    """Problems with a call's arguments against its JSON Schema object: unknown or missing parameters, wrong
    types, values outside an enum. Lenient where APIs are: numbers are fine for text parameters and numeric
    text for number parameters (Korean APIs read every parameter as text)."""
    properties = schema.get("properties") or {}
    problems = []
    for name, value in args.items():
        if name not in properties:
            known = ", ".join(properties) or "none"
            problems.append(f"unknown parameter {name!r} (parameters: {known})")
            continue
        if value is None:
            continue
        problem = _type_problem(properties[name], value)
        if problem:
            problems.append(f"{name}: {problem}")
    for name in schema.get("required") or []:
        if args.get(name) is None or args.get(name) == "":
            problems.append(f"missing required parameter {name!r}")
    return problems


def _type_problem(spec: Mapping[str, Any], value: Any) -> str | None:
    kind = spec.get("type", "string")
    kinds = kind if isinstance(kind, list) else [kind]
    if not any(_is_type(k, value) for k in kinds if k in _JSON_TYPES) and any(k in _JSON_TYPES for k in kinds):
        return f"expected {'/'.join(kinds)}, got {type(value).__name__} {json.dumps(value, ensure_ascii=False)[:60]}"
    enum = spec.get("enum")
    if enum and str(value) not in {str(e) for e in enum}:
        return f"{value!r} is not one of {', '.join(str(e) for e in enum[:20])}"
    return None


def _is_type(kind: str, value: Any) -> bool:
    if isinstance(value, bool):
        return kind == "boolean"
    if kind == "string":
        return isinstance(value, str | int | float)
    if kind == "integer":
        if isinstance(value, int):
            return True
        if isinstance(value, float):
            return value.is_integer()
        return isinstance(value, str) and value.strip().lstrip("-").isdigit()
    if kind == "number":
        if isinstance(value, int | float):
            return True
        if isinstance(value, str):
            try:
                float(value)
            except ValueError:
                return False
            return True
        return False
    if kind == "boolean":
        return isinstance(value, str) and value.strip().lower() in ("true", "false")
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True


# --------------------------------------------------------------------------------------- many episodes


async def run_tasks(
    tasks: Sequence[Task],
    backend: Backend,
    environment_factory: Callable[[Task], ToolEnvironment],
    *,
    seeds: Sequence[int] = (0,),
    config: RunConfig = RunConfig(),
    on_result: Callable[[EpisodeResult, int, int], Any] | None = None,
) -> list[EpisodeResult]:
    """Every (task, seed) episode, at most config.concurrency at a time; results in task order, then seed.

    on_result(result, done, total) is called as each episode finishes (progress reporting).
    """
    jobs = [(task, seed) for task in tasks for seed in seeds]
    limiter = asyncio.Semaphore(config.concurrency)
    results: list[EpisodeResult | None] = [None] * len(jobs)
    done = 0

    async def one(index: int, task: Task, seed: int) -> None:
        nonlocal done
        async with limiter:
            env = environment_factory(task)
            try:
                result = await run_episode(task, backend, env, seed=seed, config=config)
            finally:
                await env.aclose()
        results[index] = result
        done += 1
        if on_result is not None:
            on_result(result, done, len(jobs))

    await asyncio.gather(*(one(i, task, seed) for i, (task, seed) in enumerate(jobs)))
    return [r for r in results if r is not None]
