"""The agent runner's tools on the Django side: catalog Tool rows executed through apis.services, so every call
an evaluated model makes leaves an ApiCall (source_kind "bench_step"), with the task's sandbox clock and the
run's tool mode (sandbox, replay or live).

Observations are built by the engine's ExecutorToolEnvironment (same payload and caps as a CLI run); only the
executor underneath is swapped for one that goes through tool_execute_async. Which episode and model turn a call
belongs to travels in a context variable that TurnTaggingBackend sets before each turn: the runner awaits the
backend and then runs that turn's calls in the same asyncio task, so the calls see the turn that asked for them.
"""

from __future__ import annotations

import contextvars
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from apis.engine.errors import EngineError
from apis.engine.executor import Mode, ToolCall
from apis.engine.function_schema import FunctionToolset, function_schema, tool_identity
from apis.engine.normalize import NormalizedResult
from apis.models import Tool
from apis.services import CallOptions, ToolExecutionError, tool_execute_async
from benchmarks.engine.backends.base import Backend, ModelRequest, ModelTurn
from benchmarks.engine.runner import EpisodeResult, ExecutorToolEnvironment, ToolEnvironment
from benchmarks.engine.task import Task

SOURCE_KIND = "bench_step"


@dataclass(frozen=True)
class Turn:
    task_id: str
    seed: int
    step: int


_turn: contextvars.ContextVar[Turn | None] = contextvars.ContextVar("bench_turn", default=None)


@dataclass
class LedgerEntry:
    """One executed call as the environment saw it, and the ApiCall it left."""

    step: int
    name: str
    args: dict[str, Any]
    api_call_id: int | None = None


_entry: contextvars.ContextVar[LedgerEntry | None] = contextvars.ContextVar("bench_call", default=None)


class TurnTaggingBackend(Backend):
    """Any backend, telling the environment which (task, seed, step) the calls that follow belong to."""

    def __init__(self, inner: Backend):
        self.inner = inner
        self.name = inner.name
        self.model = inner.model

    async def complete(self, request: ModelRequest) -> ModelTurn:
        _turn.set(Turn(request.task.id, request.seed, request.step))
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class CallLedger:
    """The calls executed per (task id, seed), so a stored episode can name the ApiCall of each of its calls."""

    def __init__(self):
        self._entries: dict[tuple[str, int], list[LedgerEntry]] = defaultdict(list)

    def add(self, turn: Turn | None, entry: LedgerEntry) -> None:
        if turn is not None:
            self._entries[(turn.task_id, turn.seed)].append(entry)

    def pop(self, task_id: str, seed: int) -> list[LedgerEntry]:
        return self._entries.pop((task_id, seed), [])

    def api_call_ids(self, episode: EpisodeResult) -> list[int | None]:
        """The ApiCall id of each of the episode's calls, in transcript order (None: invalid, never executed)."""
        entries = self.pop(episode.task_id, episode.seed)
        ids: list[int | None] = []
        for call in episode.calls:
            found = None
            if call.status != "invalid":
                for index, entry in enumerate(entries):
                    if (entry.step, entry.name, entry.args) == (call.step, call.name, call.arguments or {}):
                        found = entries.pop(index).api_call_id
                        break
            ids.append(found)
        return ids


@dataclass
class Catalog:
    """The active catalog as the models see it: function schemas under each Tool's stored function name."""

    toolset: FunctionToolset
    rows: dict[str, Tool] = field(default_factory=dict)  # tool identity -> row

    @property
    def names(self) -> set[str]:
        return set(self.toolset.tools)


def catalog_load(tools: Iterable[Tool] | None = None) -> Catalog:
    """Schemas of the given (default: every active) tool, named by Tool.function_name."""
    if tools is None:
        tools = Tool.objects.filter(is_active=True).select_related("service__provider").order_by("function_name")
    schemas, specs, aliases, rows = [], {}, {}, {}
    for row in tools:
        spec = row.to_spec()
        schema, alias = function_schema(spec, row.function_name)
        schemas.append(schema)
        specs[row.function_name] = spec
        if alias:
            aliases[row.function_name] = alias
        rows[tool_identity(spec)] = row
    return Catalog(FunctionToolset(schemas=schemas, tools=specs, param_aliases=aliases), rows)


class _LoggingExecutor:
    """Executor-shaped (what ExecutorToolEnvironment calls): each call goes through apis.services, leaving an
    ApiCall tagged with the run, task, seed and model turn it came from."""

    def __init__(self, catalog: Catalog, *, mode: str, clock: str, source_prefix: str, sandbox_origin: str | None):
        self.catalog = catalog
        self.mode = Mode(mode)
        self.source_prefix = source_prefix
        self.options = CallOptions(
            mode=self.mode.value,
            source_kind=SOURCE_KIND,
            sandbox_origin=sandbox_origin,
            sandbox_headers={"X-Sandbox-Now": clock} if clock else {},
        )

    async def execute(self, call: ToolCall) -> NormalizedResult:
        row = self.catalog.rows[tool_identity(call.tool)]
        turn = _turn.get()
        source_id = f"{self.source_prefix}/{turn.seed}/{turn.step}" if turn else self.source_prefix
        try:
            execution = await tool_execute_async(
                tool=row, params=dict(call.params), options=replace(self.options, source_id=source_id)
            )
        except ToolExecutionError as error:  # e.g. live mode without a key; the text never holds a key
            raise EngineError(str(error)) from None
        entry = _entry.get()
        if entry is not None:
            entry.api_call_id = execution.call.pk
        return execution.result

    async def aclose(self) -> None:
        return None


class DjangoToolEnvironment(ExecutorToolEnvironment):
    """A task's tools, executed through apis.services; the calls it ran are written to `ledger`."""

    def __init__(
        self,
        catalog: Catalog,
        task: Task,
        *,
        mode: str,
        ledger: CallLedger,
        source_prefix: str,
        sandbox_origin: str | None = None,
        **options: Any,
    ):
        executor = _LoggingExecutor(
            catalog,
            mode=mode,
            clock=task.clock if mode == Mode.SANDBOX else "",
            source_prefix=source_prefix,
            sandbox_origin=sandbox_origin,
        )
        names = None if task.uses_all_tools else task.tools
        super().__init__(catalog.toolset, executor, names=names, **options)
        self.ledger = ledger

    async def execute(self, name: str, args: Mapping[str, Any]):
        turn = _turn.get()
        entry = LedgerEntry(turn.step if turn else -1, name, dict(args))
        token = _entry.set(entry)
        try:
            return await super().execute(name, args)
        finally:
            _entry.reset(token)
            self.ledger.add(turn, entry)


def django_environment_factory(
    catalog: Catalog,
    *,
    mode: str,
    ledger: CallLedger,
    source_prefix_of: Mapping[str, str],
    sandbox_origin: str | None = None,
    **options: Any,
):
    """task -> its DjangoToolEnvironment; `source_prefix_of` maps a task id to the ApiCall source prefix."""

    def make(task: Task) -> ToolEnvironment:
        return DjangoToolEnvironment(
            catalog,
            task,
            mode=mode,
            ledger=ledger,
            source_prefix=source_prefix_of[task.id],
            sandbox_origin=sandbox_origin,
            **options,
        )

    return make


def missing_tools(catalog: Catalog, tasks: Sequence[Task]) -> dict[str, list[str]]:
    """Per task id, the tools it names that the active catalog lacks (a run cannot offer them)."""
    names = catalog.names
    out = {}
    for task in tasks:
        wanted = set() if task.uses_all_tools else set(task.tools)
        wanted |= {call.tool for call in task.calls}
        lacking = sorted(wanted - names)
        if lacking:
            out[task.id] = lacking
    return out
