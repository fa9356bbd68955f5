"""Writes of the trajectories app: synthesis runs (walk, execute, phrase, filter, dedupe, store) and exports.

A run loads a graph snapshot, walks it (graphs.engine.walk), executes each plan through the catalog's executor
service (apis.services.tool_execute_async: every call leaves an ApiCall with source_kind "synthesis" and source_id
"<run>/<attempt>"), writes the Korean request and answer (templates, or the configured LLM), runs the three
filters and stores the trajectory with its steps, calls and provenance. Walks are planned in batches and a
batch's plans execute concurrently. Discarded walks are counted per reason on the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import transaction
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from apis.engine.function_schema import function_schema
from apis.models import ApiCall, Tool
from apis.services import MODES, CallLog, CallOptions, ToolExecutionError, tool_execute_async
from datasets.engine import export as export_engine
from datasets.engine import phrasing
from datasets.engine.dedupe import Deduper, dedupe_key
from datasets.engine.diversity import blank, diversity_report
from datasets.engine.filters import first_failure, passed, run_filters
from datasets.engine.items import build_item, used_tools
from datasets.engine.needs import NeedPlanner, Phrasebook, Verified, llm_rewrite, realise, write
from datasets.engine.synthesis import Execution, execute_plan
from datasets.models import SynthesisRun, Trajectory, TrajectoryCall, TrajectoryStep
from graphs.engine import trials as trial_engine
from graphs.engine.graph import from_node_link
from graphs.engine.llm import LLMClient, LLMError, client_from_settings
from graphs.engine.walk import JUNCTIONS, MAX_LENGTH, STRATEGIES, Plan, ToolMeta, Usage, WalkConfig, Walker, WalkError
from graphs.models import CandidateEdge, GraphSnapshot
from kopa_site.errors import DomainError
from kopa_site.jobs import JobCancelled
from kopa_site.progress import QuietReporter, Reporter
from kopa_site.runs import run_mark_failed, run_mark_finished, run_mark_running, run_mark_stopped, run_start

logger = logging.getLogger(__name__)

SOURCE_KIND = "synthesis"
RECORDED_INPUTS = 20
SAMPLES_PER_REASON = 3
GENERATORS = ("auto", "template", "llm")
JUDGES = ("auto", "rules", "llm")

RUN_DEFAULTS: dict[str, Any] = {
    "count": 20,  # trajectories to keep (passing every filter)
    "max_attempts": None,  # walks tried at most; None: 5 x count
    "min_length": 1,
    "max_length": 6,
    "strategy": "needs",  # need-first (datasets/engine/needs); or "coverage", "random": walks over the graph
    "junctions": list(JUNCTIONS),  # junction types walks may use
    "seed": None,  # None: the run's id
    "mode": "sandbox",  # executor mode: sandbox, live, record, replay
    "sandbox_origin": "",  # empty: settings.KOPA_SANDBOX_ORIGIN
    "concurrency": 4,  # walks executed at once
    "page_size": 50,  # records per page when a step reads every page
    "max_pages": 20,
    "generator": "auto",  # auto: the LLM when configured, else templates; or template, llm
    "judge": "auto",  # auto: the LLM judge when configured, else rules; or rules, llm
}


ALL_STRATEGIES = ("needs", *STRATEGIES)


class SynthesisError(DomainError):
    """A synthesis or export request that cannot be carried out; the message says why."""


# --- Runs ----------------------------------------------------------------------------------------------


def _int(params: dict, name: str, low: int, high: int) -> None:
    value = params[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SynthesisError(f"{name} must be a whole number from {low} to {high}; got {value!r}")


def check_run_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """RUN_DEFAULTS completed with the given values, or SynthesisError naming what is wrong."""
    params = dict(params or {})
    unknown = sorted(set(params) - set(RUN_DEFAULTS))
    if unknown:
        raise SynthesisError(f"unknown parameter(s) {', '.join(unknown)}; accepted: {', '.join(RUN_DEFAULTS)}")
    merged = {**RUN_DEFAULTS, **{k: v for k, v in params.items() if v is not None}}
    _int(merged, "count", 1, 100_000)
    if merged["max_attempts"] is None:
        merged["max_attempts"] = 5 * merged["count"]
    _int(merged, "max_attempts", 1, 1_000_000)
    _int(merged, "min_length", 1, MAX_LENGTH)
    _int(merged, "max_length", 1, MAX_LENGTH)
    _int(merged, "concurrency", 1, 64)
    _int(merged, "page_size", 1, 100)
    _int(merged, "max_pages", 1, 500)
    if merged["min_length"] > merged["max_length"]:
        raise SynthesisError("min_length must not exceed max_length")
    if merged["strategy"] not in ALL_STRATEGIES:
        raise SynthesisError(f"strategy must be one of {', '.join(ALL_STRATEGIES)}")
    junctions = merged["junctions"]
    if isinstance(junctions, str):
        junctions = [j.strip().upper() for j in junctions.split(",") if j.strip()]
    if not junctions or not isinstance(junctions, list) or any(j not in JUNCTIONS for j in junctions):
        raise SynthesisError(f"junctions must be a non-empty list from {', '.join(JUNCTIONS)}; got {junctions!r}")
    merged["junctions"] = [j for j in JUNCTIONS if j in junctions]
    if merged["mode"] not in MODES:
        raise SynthesisError(f"mode must be one of {', '.join(MODES)}")
    if merged["generator"] not in GENERATORS:
        raise SynthesisError(f"generator must be one of {', '.join(GENERATORS)}")
    if merged["judge"] not in JUDGES:
        raise SynthesisError(f"judge must be one of {', '.join(JUDGES)}")
    if "llm" in (merged["generator"], merged["judge"]) and _llm() is None:
        raise SynthesisError("generator or judge 'llm' needs KOPA_SYNTH_LLM_URL and KOPA_SYNTH_LLM_MODEL")
    if merged["seed"] is not None and not isinstance(merged["seed"], int | str):
        raise SynthesisError("seed must be a number or a text")
    if not isinstance(merged["sandbox_origin"], str):
        raise SynthesisError("sandbox_origin must be text")
    return merged


def synthesis_run_create(
    *, params: Mapping[str, Any] | None = None, snapshot: GraphSnapshot | None = None, user=None
) -> SynthesisRun:
    """A pending run over `snapshot` (default: the latest) with checked parameters."""
    merged = check_run_params(params)
    snapshot = snapshot or GraphSnapshot.objects.order_by("-version").first()
    if snapshot is None:
        raise SynthesisError("no graph snapshot yet: verify edges and take a snapshot first (manage.py graph_snapshot)")
    run = SynthesisRun.objects.create(
        params=merged, snapshot=snapshot, created_by=user if getattr(user, "is_authenticated", False) else None
    )
    if merged["seed"] is None:
        run.params = {**merged, "seed": run.pk}
        run.save(update_fields=["params"])
    return run


def synthesis_run_start(*, run: SynthesisRun, user=None):
    """Queue the run as an edge.synthesize job."""
    return run_start(run=run, kind="edge.synthesize", error=SynthesisError, user=user)


# --- Tools and graphs as the engines see them ----------------------------------------------------------


def _entries(tool: Tool) -> list[dict[str, str]]:
    """Inputs a walk may start a tool with: its examples and enum variants, then inputs of recorded calls
    that returned records (made by people, probes or the benchmark; not values bound by other walks)."""
    calls = (
        ApiCall.objects.filter(tool=tool, ok=True, record_count__gt=0)
        .exclude(source_kind__in=[SOURCE_KIND, "edge_trial"])
        .order_by("-id")
        .only("params")[:RECORDED_INPUTS]
    )
    recorded = [c.params for c in calls if isinstance(c.params, dict)]
    return trial_engine.source_inputs(tool.parameters, recorded)


def tool_metas(tools: Iterable[Tool]) -> dict[int, ToolMeta]:
    return {
        tool.pk: phrasing.tool_meta(
            id=tool.pk,
            name=tool.function_name,
            label=tool.name_ko,
            provider=tool.service.provider.code,
            parameters=tool.parameters,
            record_fields=tool.record_fields,
            entries=_entries(tool),
        )
        for tool in tools
    }


def _graph_and_tools(snapshot: GraphSnapshot):
    graph = from_node_link(snapshot.node_link)
    rows = {
        t.pk: t
        for t in Tool.objects.filter(pk__in=list(graph.nodes), is_active=True)
        .select_related("service__provider")
        .defer("service__spec_document")
    }
    missing = [n for n in graph.nodes if n not in rows]
    graph.remove_nodes_from(missing)
    if graph.number_of_nodes() == 0:
        raise SynthesisError(f"graph v{snapshot.version} has no active tool; take a new snapshot")
    return graph, rows, tool_metas(rows.values())


# --- Execution through the catalog's executor ----------------------------------------------------------


class _Observed:
    """The executor's result with the ApiCall it left: the row itself while the batch runs (a batch's rows are stored
    when it ends, by its CallLog), which _with_call_ids then swaps for the id it got."""

    def __init__(self, execution):
        self._result = execution.result
        self.api_call_id = execution.call

    def __getattr__(self, name: str):
        return getattr(self._result, name)


@contextlib.contextmanager
def _call_log():
    """The batch's CallLog: its ApiCalls are stored together when it ends, also when it fails."""
    log = CallLog()
    try:
        yield log
    finally:
        log.flush()


def _with_call_ids(executions: Iterable[Execution]) -> None:
    """Give the calls of a batch (once its CallLog is stored) the ids of their ApiCalls in place of the rows."""
    for execution in executions:
        for call in execution.calls:
            if isinstance(call.api_call_id, ApiCall):
                call.api_call_id = call.api_call_id.pk


def _executor(run: SynthesisRun, attempt: int, rows: Mapping[int, Tool], params: Mapping[str, Any], log: CallLog):
    options = CallOptions(
        mode=params["mode"],
        sandbox_origin=params["sandbox_origin"] or None,
        source_kind=SOURCE_KIND,
        source_id=f"{run.pk}/{attempt}",
    )

    async def execute(tool: ToolMeta, args: dict[str, Any]):
        try:
            execution = await tool_execute_async(tool=rows[tool.id], params=args, options=options, log=log)
        except ToolExecutionError as exc:  # e.g. live mode without a key; the text never holds one
            raise RuntimeError(str(exc)) from None
        return _Observed(execution)

    return execute


async def _execute_batch(
    run: SynthesisRun, batch: Sequence[tuple[int, Plan]], tools, rows, params, log: CallLog
) -> list[Execution]:
    gate = asyncio.Semaphore(params["concurrency"])

    async def one(attempt: int, plan: Plan) -> Execution:
        async with gate:
            return await execute_plan(
                plan,
                tools,
                _executor(run, attempt, rows, params, log),
                seed=f"{params['seed']}:{attempt}",
                page_size=params["page_size"],
                max_pages=params["max_pages"],
            )

    return list(await asyncio.gather(*(one(attempt, plan) for attempt, plan in batch)))


# --- Items: the plain form filters and exports read ----------------------------------------------------


def _clock(mode: str) -> str:
    if mode == "sandbox":
        return str((getattr(settings, "SANDBOX", None) or {}).get("now") or "")
    return timezone.localtime().isoformat(timespec="seconds")


def _schemas(rows: Iterable[Tool]) -> tuple[list[dict], dict[str, dict[str, str]]]:
    schemas, aliases = [], {}
    for row in rows:
        schema, alias = function_schema(row.to_spec(), row.function_name)
        schemas.append(schema)
        if alias:
            aliases[row.function_name] = alias
    return schemas, aliases


def execution_item(
    plan: Plan,
    execution: Execution,
    text: phrasing.Text,
    tools: Mapping[int, ToolMeta],
    rows: Mapping[int, Tool],
    *,
    mode: str,
) -> dict[str, Any]:
    """The item of a fresh execution (the shape trajectory_item gives a stored one)."""
    schemas, aliases = _schemas(rows[t] for t in used_tools(plan, execution))
    return build_item(plan, execution, text, tools, schemas=schemas, aliases=aliases, clock=_clock(mode))


def trajectory_item(trajectory: Trajectory) -> dict[str, Any]:
    """A stored trajectory as the filters and exporters read it (calls must be prefetched for speed)."""
    calls = sorted(trajectory.calls.all(), key=lambda c: c.seq)
    return {
        "id": trajectory.pk,
        "request": trajectory.request,
        "answer": trajectory.answer,
        "short_answer": trajectory.short_answer,
        "template_id": trajectory.template_id,
        "template": trajectory.template,
        "junctions": trajectory.junctions,
        "length": trajectory.length,
        "tools": trajectory.tool_names,
        "providers": trajectory.providers,
        "calls": [
            {
                "seq": c.seq,
                "step": c.step.index if c.step_id else None,
                "round": c.round,
                "page": c.page,
                "branch": c.branch,
                "name": c.tool_name,
                "arguments": c.arguments,
                "bindings": c.bindings,
                "observation": c.observation,
            }
            for c in calls
        ],
        "schemas": trajectory.schemas,
        "aliases": trajectory.aliases,
        "facts": trajectory.facts,
        "named": trajectory.named,
        "units": trajectory.units,
        "clock": trajectory.clock,
        "generator": trajectory.generator,
    }


# --- Writing and judging -------------------------------------------------------------------------------


def _llm(model: str | None = None) -> LLMClient | None:
    config = dict(getattr(settings, "KOPA_SYNTH", {}) or {})
    if model:
        config["llm_model"] = model
    return client_from_settings(config)


class _Voices:
    """Who writes requests and who judges them in this run."""

    def __init__(self, params: Mapping[str, Any]):
        self.writer = _llm() if params["generator"] in ("auto", "llm") else None
        judge_model = (getattr(settings, "KOPA_SYNTH", {}) or {}).get("judge_model") or None
        self.judge = _llm(judge_model) if params["judge"] in ("auto", "llm") else None

    def write(self, plan: Plan, execution: Execution, tools, counters: Counter) -> phrasing.Text:
        if self.writer is not None:
            try:
                return phrasing.llm_write(self.writer, plan, execution, tools)
            except LLMError as exc:
                counters["llm_errors"] += 1
                text = phrasing.compose(plan, execution, tools)
                text.note = f"the LLM writer failed ({exc}); templates wrote it"[:500]
                return text
        return phrasing.compose(plan, execution, tools)

    def filters(self, item: Mapping[str, Any], counters: Counter) -> dict[str, dict]:
        if self.judge is None:
            return run_filters(item)
        client = self.judge

        def judge(current: Mapping[str, Any]) -> tuple[bool, str]:
            return phrasing.llm_judge(client, current)

        try:
            return run_filters(item, judge=judge, judge_name=f"llm:{client.model}")
        except LLMError as exc:
            counters["llm_errors"] += 1
            results = run_filters(item)
            results["semantic"]["by"] = f"rules (the judge failed: {exc})"[:200]
            return results


# --- Storing -------------------------------------------------------------------------------------------


def _tags(values: Iterable[str]) -> str:
    values = list(values)
    return f",{','.join(values)}," if values else ""


@dataclass
class _Unsaved:
    """A trajectory with its steps, calls and the ids of the edges it travelled, not yet stored."""

    trajectory: Trajectory
    steps: list[TrajectoryStep]
    calls: list[TrajectoryCall]
    edge_ids: set[int]


def _unsaved(
    run: SynthesisRun | None,
    snapshot: GraphSnapshot | None,
    attempt: int,
    plan: Plan,
    execution: Execution,
    text: phrasing.Text,
    item: Mapping[str, Any],
    results: Mapping[str, Any],
    key: str,
    rows: Mapping[int, Tool],
    mode: str,
) -> _Unsaved:
    ok = passed(results)
    trajectory = Trajectory(
        run=run,
        snapshot=snapshot,
        attempt=attempt,
        request=text.request,
        answer=text.answer,
        short_answer=text.short[:500],
        status=Trajectory.Status.PENDING_REVIEW if ok else Trajectory.Status.FILTERED,
        template_id=plan.template_id,
        template=plan.template,
        junctions=item["junctions"],
        junction_tags=_tags(dict.fromkeys(item["junctions"])),
        length=item["length"],
        tool_names=item["tools"],
        tool_tags=_tags(item["tools"]),
        providers=item["providers"],
        provider_tags=_tags(item["providers"]),
        plan=plan.to_dict(),
        facts=item["facts"],
        named=item["named"],
        units=item["units"],
        schemas=item["schemas"],
        aliases=item["aliases"],
        clock=item["clock"],
        mode=mode,
        generator=text.generator,
        generator_model=text.model,
        generator_note=text.note,
        filters=dict(results),
        failed_stage=first_failure(results) or "",
        dedupe_key=key,
    )
    steps = {}
    for step in plan.steps:
        run_state = execution.steps[step.index]
        steps[step.index] = TrajectoryStep(
            trajectory=trajectory,
            index=step.index,
            parent=step.parent,
            tool_id=step.tool if step.tool in rows else None,
            tool_name=step.name,
            junction=step.junction,
            branch=step.branch,
            executed=run_state.executed,
            links=[
                {"fields": list(k.fields), "params": list(k.params), "transform": k.transform, "edge_id": k.edge_id}
                for k in step.links
            ],
            picks=run_state.picks,
            condition=run_state.condition,
            comparison=run_state.comparison,
            answer=run_state.answer,
        )
    calls = [
        TrajectoryCall(
            trajectory=trajectory,
            step=steps[call.step],
            seq=call.seq,
            round=call.round,
            page=call.page,
            branch=call.branch,
            tool_name=call.name,
            arguments=call.arguments,
            bindings=call.bindings,
            observation=call.observation(),
            ok=call.ok,
            latency_ms=call.latency_ms,
            api_call_id=call.api_call_id,
        )
        for call in execution.calls
    ]
    edge_ids = {
        k.edge_id for s in plan.steps if execution.steps[s.index].executed for k in s.links if k.edge_id is not None
    }
    return _Unsaved(trajectory, list(steps.values()), calls, edge_ids)


@transaction.atomic
def _store(pending: Sequence[_Unsaved]) -> None:
    """Store a batch's trajectories with their steps, calls and edges (edges deleted since are left out): one insert
    per table for the whole batch, not one per trajectory and table."""
    if not pending:
        return
    Trajectory.objects.bulk_create([p.trajectory for p in pending])
    TrajectoryStep.objects.bulk_create([step for p in pending for step in p.steps])  # each now knows its trajectory
    TrajectoryCall.objects.bulk_create([call for p in pending for call in p.calls])
    wanted = set().union(*(p.edge_ids for p in pending))
    stored = set(CandidateEdge.objects.filter(pk__in=wanted).values_list("pk", flat=True)) if wanted else set()
    through = Trajectory.edges.through
    through.objects.bulk_create(
        through(trajectory_id=p.trajectory.pk, candidateedge_id=pk)
        for p in pending
        for pk in sorted(p.edge_ids & stored)
    )


class _Keeper:
    """Filters a run's written items, counts them kept or filtered, and stores them a batch at a time."""

    def __init__(self, run: SynthesisRun, params, tools, rows, voices: _Voices, counters, discarded, failed, samples):
        self.run, self.params, self.tools, self.rows, self.voices = run, params, tools, rows, voices
        self.counters, self.discarded, self.failed, self.samples = counters, discarded, failed, samples
        self.pending: list[_Unsaved] = []

    def wanted(self, execution: Execution, label: str) -> bool:
        """Count an execution; False when it failed (a discard, by reason) or the run already keeps enough."""
        self.counters["calls"] += len(execution.calls)
        if not execution.ok:
            _note_discard(self.discarded, self.samples, execution.reason, f"{label} {execution.detail}")
            return False
        self.counters["executed"] += 1
        return self.counters["kept"] < self.params["count"]

    def judge(self, attempt: int, plan: Plan, execution: Execution, text: phrasing.Text, key: str) -> bool:
        """Filter the item and queue it for storing; True when it passed every gating stage."""
        mode = self.params["mode"]
        item = execution_item(plan, execution, text, self.tools, self.rows, mode=mode)
        results = self.voices.filters(item, self.counters)
        run = self.run
        self.pending.append(
            _unsaved(run, run.snapshot, attempt, plan, execution, text, item, results, key, self.rows, mode)
        )
        self.counters[f"gen:{text.generator}"] += 1
        if passed(results):
            self.counters["kept"] += 1
            return True
        self.counters["filtered"] += 1
        self.failed[first_failure(results)] += 1
        return False

    @contextlib.contextmanager
    def batch(self):
        """Store the items judged inside at once when the batch is done (or fails: those judged before are kept)."""
        try:
            yield
        finally:
            pending, self.pending = self.pending, []
            _store(pending)


# --- The run -------------------------------------------------------------------------------------------


def dataset_usage(graph) -> Usage:
    """How often the stored trajectories (those not filtered) use each tool, edge and junction of the graph, so
    a coverage-driven run favours what the dataset still lacks."""
    usage = Usage()
    rows = Trajectory.objects.exclude(status=Trajectory.Status.FILTERED).values_list("plan", "junctions")
    for plan, junctions in rows.iterator(chunk_size=500):
        usage.junctions.update(junctions or ())
        steps = (plan or {}).get("steps") or []
        for step in steps:
            if step.get("tool") not in graph:
                continue
            usage.tools[step["tool"]] += 1
            parent = step.get("parent")
            if parent is not None and parent < len(steps):
                usage.edges[(steps[parent]["tool"], step["tool"])] += 1
    return usage


def _counters_dict(counters: Counter, discarded: Counter, failed: Counter, samples: dict, seconds: float) -> dict:
    return {
        **{k: counters[k] for k in ("attempts", "planned", "executed", "kept", "filtered", "duplicates", "calls")},
        "strategy": "coverage (fallback: no need of the catalog runs over this graph)"
        if counters.get("fallback:coverage")
        else "",
        "llm_errors": counters["llm_errors"],
        **({"cap_per_need": counters["cap_per_need"]} if counters.get("cap_per_need") else {}),
        "generators": {k.removeprefix("gen:"): v for k, v in counters.items() if k.startswith("gen:")},
        "discarded": dict(discarded.most_common()),
        "failed_filters": dict(failed.most_common()),
        "samples": samples,
        "seconds": round(seconds, 2),
    }


def synthesis_run_execute(*, run: SynthesisRun, reporter: Reporter | None = None) -> dict[str, Any]:
    """Walk, execute, phrase, filter and store until `count` trajectories pass or attempts run out."""
    reporter = reporter or QuietReporter()
    params = run.params
    if run.snapshot is None:
        raise SynthesisError(f"run #{run.pk} has no graph snapshot")
    if not run_mark_running(run=run, only_from=(SynthesisRun.Status.PENDING,)):
        raise SynthesisError(f"run #{run.pk} is not pending")
    started = time.monotonic()
    counters: Counter = Counter()
    discarded: Counter = Counter()
    failed: Counter = Counter()
    samples: dict[str, list[str]] = {}
    try:
        graph, rows, tools = _graph_and_tools(run.snapshot)
        strategy = params["strategy"]
        if strategy == "needs":
            planner = _need_planner(run, params, graph, rows, tools)
            if planner.needs:
                _run_needs(run, params, planner, rows, tools, reporter, counters, discarded, failed, samples, started)
                return _finish(run, graph, counters, discarded, failed, samples, started, reporter)
            # A graph none of whose needs can run (a small test world, another catalog): walk it instead, and say so.
            strategy = "coverage"
            counters["fallback:coverage"] = 1
            reporter.log(
                f"run #{run.pk}: no need of the catalog runs over graph v{run.snapshot.version} "
                f"(lengths {params['min_length']}-{params['max_length']}); coverage walks instead"
            )
        config = WalkConfig(
            min_length=params["min_length"],
            max_length=params["max_length"],
            strategy=strategy,
            junctions=tuple(params["junctions"]),
        )
        try:
            walker = Walker(graph, tools, config, seed=params["seed"], usage=dataset_usage(graph))
        except WalkError as exc:
            raise SynthesisError(str(exc)) from None
        voices = _Voices(params)
        keeper = _Keeper(run, params, tools, rows, voices, counters, discarded, failed, samples)
        deduper = Deduper(Trajectory.objects.values_list("dedupe_key", flat=True))
        count, budget = params["count"], params["max_attempts"]
        reporter.log(
            f"run #{run.pk}: graph v{run.snapshot.version} ({graph.number_of_nodes()} tools, "
            f"{graph.number_of_edges()} links), {count} trajectories wanted, at most {budget} walks"
        )
        while counters["kept"] < count and counters["attempts"] < budget:
            reporter.check_cancelled()
            batch = []
            # Enough walks to keep every slot busy, but not many more than the trajectories still wanted.
            wanted = max(params["concurrency"], 2 * (count - counters["kept"]))
            for _ in range(min(2 * params["concurrency"], wanted, budget - counters["attempts"])):
                counters["attempts"] += 1
                plan = walker.next_plan()
                if plan is None:
                    discarded["walk.no_plan"] += 1
                    continue
                batch.append((counters["attempts"], plan))
            counters["planned"] += len(batch)
            with _call_log() as log:
                executions = async_to_sync(_execute_batch)(run, batch, tools, rows, params, log) if batch else []
            _with_call_ids(executions)
            with keeper.batch():
                for (attempt, plan), execution in zip(batch, executions, strict=True):
                    if not keeper.wanted(execution, f"#{attempt}"):
                        continue
                    key = dedupe_key(plan.template_id, [c.to_dict() for c in execution.calls])
                    if not deduper.is_new(key):
                        counters["duplicates"] += 1
                        continue
                    keeper.judge(attempt, plan, execution, voices.write(plan, execution, tools, counters), key)
            counts = _counters_dict(counters, discarded, failed, samples, time.monotonic() - started)
            SynthesisRun.objects.filter(pk=run.pk).update(counters=counts)
            reporter.progress(
                counters["kept"],
                count,
                f"{counters['attempts']} walks, {counters['kept']} kept, {counters['filtered']} filtered, "
                f"{sum(discarded.values())} discarded",
            )
        return _finish(run, graph, counters, discarded, failed, samples, started, reporter)
    except BaseException as exc:
        counts = _counters_dict(counters, discarded, failed, samples, time.monotonic() - started)
        if isinstance(exc, JobCancelled):
            run_mark_stopped(run=run, counters=counts, finished_at=timezone.now())
        else:
            run_mark_failed(run=run, error=f"{type(exc).__name__}: {exc}", counters=counts)
        raise


def _finish(run, graph, counters, discarded, failed, samples, started, reporter) -> dict[str, Any]:
    kept = Trajectory.objects.filter(run=run, status=Trajectory.Status.PENDING_REVIEW)
    report = diversity_report(
        (_diversity_row(t) for t in _diversity_rows(kept)),
        graph_tools=graph.number_of_nodes(),
        graph_edges=graph.number_of_edges(),
    )
    counts = _counters_dict(counters, discarded, failed, samples, time.monotonic() - started)
    run_mark_finished(run=run, counters=counts, diversity=report)
    reporter.log(
        f"run #{run.pk} finished: {counters['kept']} kept, {counters['filtered']} filtered, "
        f"{counters['duplicates']} duplicate(s), {sum(discarded.values())} discarded, {counters['calls']} calls; "
        f"per domain {report.get('domains')}, items per template at most "
        f"{max((t['items'] for t in report.get('top_templates') or []), default=0)}"
    )
    return counts


async def _realise_batch(
    run: SynthesisRun, batch, verified: Verified, rows, params, clock: str, log: CallLog, usage=None, memo=None
):
    gate = asyncio.Semaphore(params["concurrency"])

    async def one(attempt: int, need):
        async with gate:
            return await realise(
                need,
                verified,
                _executor(run, attempt, rows, params, log),
                seed=f"{params['seed']}:{attempt}",
                clock=clock,
                usage=usage,
                memo=memo,
            )

    return list(await asyncio.gather(*(one(attempt, need) for attempt, need in batch)))


def _need_planner(run, params, graph, rows, tools) -> NeedPlanner:
    """The planner over the snapshot's verified edges; tools that needs call first without an edge into them
    (a holiday list, a pharmacy list) come from the catalog when the graph has no edge at them."""
    from datasets.engine.needs import NEEDS

    names = {name for need in NEEDS for name in need.tools} - {meta.name for meta in tools.values()}
    extra = {
        t.pk: t
        for t in Tool.objects.filter(function_name__in=names, is_active=True)
        .select_related("service__provider")
        .defer("service__spec_document")
    }
    rows.update(extra)
    entry_tools = tool_metas(extra.values())
    tools.update(entry_tools)
    return NeedPlanner(
        Verified(graph, tools, entry_tools),
        count=params["count"],
        seed=params["seed"],
        min_length=params["min_length"],
        max_length=params["max_length"],
    )


def _llm_reworded(client, done, text, plan, execution, tools, rows, params):
    def check(request: str) -> list[str]:
        item = execution_item(plan, execution, replace(text, request=request), tools, rows, mode=params["mode"])
        results = run_filters(item)
        return [p for stage in ("semantic", "natural") for p in results[stage]["problems"]]

    return llm_rewrite(client, done, text, check)


def _run_needs(run, params, planner, rows, tools, reporter, counters, discarded, failed, samples, started) -> None:
    """Need-first synthesis: choose needs (balanced by domain, capped per template), realise, write, filter, store."""
    verified = planner.verified
    count, budget = params["count"], params["max_attempts"]
    voices = _Voices(params)
    keeper = _Keeper(run, params, tools, rows, voices, counters, discarded, failed, samples)
    deduper = Deduper(Trajectory.objects.values_list("dedupe_key", flat=True))
    clock = _clock(params["mode"])
    book = Phrasebook()
    counters["cap_per_need"] = planner.cap
    reporter.log(
        f"run #{run.pk}: graph v{run.snapshot.version}, {len(planner.needs)} needs available "
        f"({len(planner.unavailable)} not: {', '.join(planner.unavailable) or '-'}), {count} trajectories wanted, "
        f"at most {planner.cap} per need"
    )
    while counters["kept"] < count and counters["attempts"] < budget:
        reporter.check_cancelled()
        batch = []
        wanted = max(params["concurrency"], 2 * (count - counters["kept"]))
        for _ in range(min(2 * params["concurrency"], wanted, budget - counters["attempts"])):
            need = planner.next_need()
            if need is None:
                break
            counters["attempts"] += 1
            batch.append((counters["attempts"], need))
        if not batch:
            discarded["need.catalog_exhausted"] += 1
            break
        counters["planned"] += len(batch)
        with _call_log() as log:
            realised = async_to_sync(_realise_batch)(
                run, batch, verified, rows, params, clock, log, planner.usage, planner.memo
            )
        _with_call_ids(done.execution for done in realised)
        with keeper.batch():
            for (attempt, need), done in zip(batch, realised, strict=True):
                planner.done(need.id)
                execution, plan = done.execution, done.plan
                if not keeper.wanted(execution, f"#{attempt} {need.id}:"):
                    continue
                text = write(done, seed=f"{params['seed']}:{attempt}", book=book)
                if voices.writer is not None:  # the optional LLM rewords the request under the same checks
                    text = _llm_reworded(voices.writer, done, text, plan, execution, tools, rows, params)
                key = dedupe_key(plan.template_id, [c.to_dict() for c in execution.calls])
                if not deduper.is_new(key):
                    counters["duplicates"] += 1
                    planner.repeated(need.id)
                    book.drop(done)
                    continue
                if keeper.judge(attempt, plan, execution, text, key):
                    planner.keep(need.id)
                else:
                    book.drop(done)
        counts = _counters_dict(counters, discarded, failed, samples, time.monotonic() - started)
        SynthesisRun.objects.filter(pk=run.pk).update(counters=counts)
        reporter.progress(
            counters["kept"],
            count,
            f"{counters['attempts']} needs tried, {counters['kept']} kept, {counters['filtered']} filtered, "
            f"{sum(discarded.values())} discarded",
        )


def _diversity_row(trajectory: Trajectory) -> dict[str, Any]:
    steps = trajectory.plan.get("steps") or []
    return {
        "tools": trajectory.tool_names,
        "providers": trajectory.providers,
        "junctions": trajectory.junctions,
        "length": trajectory.length,
        "template_id": trajectory.template_id,
        "generator": trajectory.generator,
        "domain": (trajectory.facts or {}).get("domain") or "",
        "need": (trajectory.facts or {}).get("need") or "",
        "register": (trajectory.facts or {}).get("register") or "",
        # The wording the writer filled (need items), else the request with the values it names blanked.
        "request_template": (trajectory.facts or {}).get("request_template")
        or (blank(trajectory.request, trajectory.named or []) if (trajectory.facts or {}).get("need") else ""),
        "calls": trajectory.call_count,
        "edges": [f"{steps[s['parent']]['name']}>{s['name']}" for s in steps if s.get("parent") is not None],
    }


def _diversity_rows(trajectories: QuerySet[Trajectory]) -> QuerySet[Trajectory]:
    """The trajectories with what _diversity_row reads: their calls counted, not loaded (observations are large). A
    subquery counts them: a GROUP BY would drop the model's ordering, which ties in the report's top lists follow."""
    calls = TrajectoryCall.objects.filter(trajectory=OuterRef("pk")).order_by().values("trajectory")
    count = Subquery(calls.annotate(n=Count("pk")).values("n"))
    return trajectories.annotate(call_count=Coalesce(count, 0)).defer("schemas", "filters")


def diversity_of(trajectories: QuerySet[Trajectory]) -> dict[str, Any]:
    return diversity_report(_diversity_row(t) for t in _diversity_rows(trajectories))


# --- Re-filtering and exports --------------------------------------------------------------------------


def trajectory_refilter(*, trajectory: Trajectory, use_judge: bool = False) -> Trajectory:
    """Run the filters again on the stored trajectory (after an edit) and move it between pending and filtered."""
    voices = _Voices({"generator": "template", "judge": "auto" if use_judge else "rules"})
    results = voices.filters(trajectory_item(trajectory), Counter())
    trajectory.filters = results
    trajectory.failed_stage = first_failure(results) or ""
    fields = ["filters", "failed_stage", "updated_at"]
    if trajectory.status in (Trajectory.Status.PENDING_REVIEW, Trajectory.Status.FILTERED):
        trajectory.status = Trajectory.Status.PENDING_REVIEW if passed(results) else Trajectory.Status.FILTERED
        fields.append("status")
    trajectory.save(update_fields=fields)
    return trajectory


def trajectories_export(
    *,
    trajectories: QuerySet[Trajectory],
    folder: Path | str,
    validation: float = 0.1,
    seed: object = 0,
    name: str = "KOPA EDGE trajectories",
) -> export_engine.ExportReport:
    """Write the trajectories (filtered ones never) as OpenAI JSONL and a Hugging Face folder."""
    chosen = trajectories.exclude(status=Trajectory.Status.FILTERED).prefetch_related("calls__step").order_by("id")
    items = [trajectory_item(t) for t in chosen]
    if not items:
        raise SynthesisError("nothing to export: no trajectory matched (filtered ones are never exported)")
    info = {
        "trajectories": len(items),
        "runs": sorted({t.run_id for t in chosen if t.run_id}),
        "snapshots": sorted({t.snapshot_id for t in chosen if t.snapshot_id}),
        "statuses": dict(Counter(t.status for t in chosen)),
        "exported_at": timezone.now().isoformat(timespec="seconds"),
        "diversity": diversity_of(chosen),
    }
    try:
        return export_engine.write_export(items, folder, validation=validation, seed=seed, name=name, info=info)
    except (OSError, ValueError) as exc:
        raise SynthesisError(f"export failed: {exc}") from None


def _note_discard(discarded, samples: dict[str, list[str]], reason: str, example: str) -> None:
    """Count a discarded walk or need by reason and keep the first few examples of each."""
    discarded[reason] += 1
    bucket = samples.setdefault(reason, [])
    if len(bucket) < SAMPLES_PER_REASON:
        bucket.append(example[:300])
