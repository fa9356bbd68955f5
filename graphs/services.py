"""Writes of the EDGE graph: propose candidates, run verification trials, take snapshots.

Services load rows, hand plain data to the engines (graphs/engine/) and store what comes back. Every trial's
calls go through the catalog's executor service (apis.services.tool_execute_many), so each one leaves an
ApiCall with source_kind "edge_trial". A verification run is resumable: each round's plan is stored before it
runs, each trial has a deterministic attempt key (run, edge, seq), and a trial's row and its edge's posterior
change are written in one transaction, so a killed worker loses no finished trial and a restart counts
nothing twice.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import logging
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, F, Max
from django.utils import timezone

from apis.models import ApiCall, Tool
from apis.selectors import call_result
from apis.services import (
    MODES,
    Execution,
    PendingExecution,
    ToolExecutionError,
    tool_execute,
    tool_execute_many,
    tool_execute_submit,
)
from graphs.engine import domains as value_domains
from graphs.engine import graph as graph_engine
from graphs.engine import posterior, transforms
from graphs.engine import trials as trial_engine
from graphs.engine.candidates import Candidate, FieldInfo, MatchConfig, ParamInfo, ToolInfo, generate_candidates
from graphs.engine.names import is_control_param
from graphs.engine.sampling import Arm, rng_for, thompson_pick
from graphs.models import CandidateEdge, EdgeTrial, GraphSnapshot, VerificationRun
from kopa_site.errors import DomainError
from kopa_site.models import Job
from kopa_site.progress import QuietReporter, Reporter
from kopa_site.runs import run_mark_finished, run_mark_running, run_mark_stopped, run_start

logger = logging.getLogger(__name__)

TRIAL_SOURCE_KIND = "edge_trial"
PROBE_SOURCE_KIND = "edge_probe"
OBSERVED_CALLS = 20  # recent successful calls per tool that feed observed values
RECORDED_INPUTS = 20  # recorded inputs per source tool offered to trials
UNDECIDED = (CandidateEdge.Status.PROPOSED, CandidateEdge.Status.VERIFYING)
ENV_RETRIES = 2  # a trial spoiled by a transient fault is run again this many times in its round
SEQ_STRIDE = 3  # a round's attempt keys: main 3r, specificity control 3r + 1, confusion control 3r + 2

RUN_DEFAULTS: dict[str, Any] = {
    "rounds": 40,  # Thompson-sampling rounds at most; a run ends sooner once no undecided edge is left to try
    "batch_size": 256,  # edges tried per round
    "seed": None,  # None: the run's id
    "mode": "sandbox",  # executor mode: sandbox, live, record, replay
    "sandbox_origin": "",  # empty: settings.KOPA_SANDBOX_ORIGIN
    "edge_ids": [],  # empty: every undecided edge
    "concurrency": 8,  # calls in flight at once
    "n_max": 16,  # main trials per edge in one run (environmental ones are repeated and not counted)
    "controls": 2,  # control trials per edge at most (over all runs)
    "policy": {},  # PosteriorPolicy overrides: w_s, w_e, theta_verify, theta_prune, confidence, n_min
}


class EdgeError(DomainError):
    """A graph request that cannot be carried out; the message says why, for the person who asked."""


# --- Tools as the engines see them -----------------------------------------------------------------------


def _field_path(field_row: dict) -> str:
    return str(field_row.get("path") or field_row.get("name") or "")


def _observed(tools: Sequence[Tool]) -> tuple[dict[int, dict[str, list[str]]], dict[int, dict[str, list[str]]]]:
    """Values of record fields and of parameters in each tool's recent successful calls."""
    fields: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    params: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for tool in tools:
        calls = ApiCall.objects.filter(tool=tool, ok=True, record_count__gt=0).order_by("-id")[:OBSERVED_CALLS]
        paths = [_field_path(f) for f in tool.record_fields]
        for call in calls:
            for name, value in (call.params or {}).items():
                if value not in (None, "") and not isinstance(value, dict | list):
                    params[tool.pk][name].append(str(value))
            result = call_result(call)
            if result is None:
                continue
            for record in result.records[:50]:
                for path in paths:
                    value = trial_engine.record_value(record, path)
                    if value not in (None, "") and not isinstance(value, dict | list):
                        fields[tool.pk][path].append(str(value))
    return fields, params


def tool_infos(tools: Sequence[Tool]) -> list[ToolInfo]:
    """The catalog's tools as plain ToolInfo, with values observed in recorded calls."""
    observed_fields, observed_params = _observed(tools)
    infos = []
    for tool in tools:
        params = tuple(
            ParamInfo(
                name=p.name,
                required=p.required,
                description=p.description,
                examples=p.examples,
                observed=tuple(dict.fromkeys(observed_params[tool.pk].get(p.name, ()))),
            )
            for p in trial_engine.param_infos(tool.parameters)
        )
        fields = []
        for row in tool.record_fields:
            path = _field_path(row)
            if not path:
                continue
            example = row.get("example")
            fields.append(
                FieldInfo(
                    path=path,
                    description=str(row.get("description") or ""),
                    examples=(str(example),) if example not in (None, "") else (),
                    observed=tuple(dict.fromkeys(observed_fields[tool.pk].get(path, ()))),
                )
            )
        infos.append(
            ToolInfo(
                id=tool.pk,
                name=tool.function_name,
                provider=tool.service.provider.code,
                title=f"{tool.name_ko} {tool.description_en}".strip(),
                params=params,
                fields=tuple(fields),
            )
        )
    return infos


def _active_tools(tool_ids: Iterable[int] | None = None) -> list[Tool]:
    tools = Tool.objects.filter(is_active=True).select_related("service__provider").defer("service__spec_document")
    if tool_ids is not None:
        tools = tools.filter(pk__in=list(tool_ids))
    return list(tools.order_by("pk"))


def tools_probe(
    *, tools: Sequence[Tool], mode: str = "sandbox", sandbox_origin: str | None = None, concurrency: int = 8
) -> int:
    """Execute each tool once with its example inputs, so proposals can learn from real values.

    Returns how many calls returned records. Calls are logged with source_kind "edge_probe".
    """
    calls = []
    for tool in tools:
        params = trial_engine.example_params(tool.parameters, required_only=False)
        if params is not None:
            calls.append((tool, params))
    executions = _execute(
        calls, mode=mode, sandbox_origin=sandbox_origin, concurrency=concurrency, source=PROBE_SOURCE_KIND, source_id=""
    )
    return sum(1 for e in executions if isinstance(e, Execution) and e.result.ok and e.result.records)


# --- Proposals ---------------------------------------------------------------------------------------


@dataclass
class ProposeReport:
    tools: int = 0
    candidates: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    probed: int = 0
    llm_scored: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)

    def summary(self) -> str:
        return (
            f"{self.candidates} candidate(s) over {self.tools} tool(s): {self.created} new, {self.updated} updated, "
            f"{self.unchanged} unchanged"
        )


def _retriever():
    """The embedding retriever when one is configured (settings.KOPA_EDGE), else None (TF-IDF)."""
    from graphs.engine.llm import embedding_retriever_from_settings

    return embedding_retriever_from_settings(getattr(settings, "KOPA_EDGE", {}))


def edges_propose(
    *,
    tool_ids: Iterable[int] | None = None,
    probe: bool = False,
    mode: str = "sandbox",
    sandbox_origin: str | None = None,
    use_llm: bool | None = None,
    config: MatchConfig | None = None,
    reporter: Reporter | None = None,
) -> ProposeReport:
    """Score candidate links across the active catalog and store them (re-runs update scores in place).

    probe=True first executes every tool with its examples so value shapes and overlaps come from real
    values. An edge that already has trials keeps its posterior; only its signals are refreshed.
    """
    reporter = reporter or QuietReporter()
    tools = _active_tools(tool_ids)
    report = ProposeReport(tools=len(tools))
    if len(tools) < 2:
        raise EdgeError("proposals need at least two active tools; import the catalog first (catalog_import --bundled)")
    if probe:
        reporter.log(f"probing {len(tools)} tool(s) with their examples")
        report.probed = tools_probe(tools=tools, mode=mode, sandbox_origin=sandbox_origin)
    infos = tool_infos(tools)
    total = len(infos)
    candidates = generate_candidates(
        infos,
        config=config or MatchConfig(),
        retriever=_retriever(),
        progress=lambda done, _total: reporter.progress(done, total + 1, "scoring pairs"),
    )
    scorer = _llm_client() if use_llm is not False else None
    if use_llm and scorer is None:
        raise EdgeError("use_llm needs KOPA_EDGE_LLM_URL and KOPA_EDGE_LLM_MODEL")
    if scorer is not None:
        candidates, report.llm_scored = _llm_refine(scorer, candidates, infos, config or MatchConfig(), reporter)
    report.candidates = len(candidates)
    _store_candidates(candidates, report)
    reporter.progress(total + 1, total + 1, report.summary())
    reporter.log(report.summary())
    return report


def _llm_refine(scorer, candidates, infos, config: MatchConfig, reporter: Reporter) -> tuple[list[Candidate], int]:
    """Mix the model's feasibility into the rules' candidates, then ask it for sources of required parameters
    the rules left without any, among each target tool's nearest tools."""
    from graphs.engine.llm import LLMError, propose, rescore
    from graphs.engine.retriever import TfidfRetriever

    by_id = {info.id: info for info in infos}
    try:
        candidates, scored = rescore(scorer, candidates, by_id, min_score=config.min_score)
        covered = {(c.target_tool, c.target_param) for c in candidates}
        docs = [f"{i.name} {i.title} " + " ".join(f"{f.path} {f.description}" for f in i.fields) for i in infos]
        near = TfidfRetriever()
        near.fit(docs, docs)
        for index, info in enumerate(infos):
            for param in info.params:
                if not param.required or is_control_param(param.name) or (info.id, param.name) in covered:
                    continue
                sources = [infos[j] for j, _ in near.neighbours(index, 9) if j != index][:8]
                candidates.extend(propose(scorer, info, param.name, sources, min_score=config.min_score))
    except LLMError as exc:
        raise EdgeError(f"the LLM proposer failed: {exc}") from None
    reporter.log(f"LLM scored {scored} candidate(s)")
    return candidates, scored


def _llm_client():
    from graphs.engine.llm import client_from_settings

    return client_from_settings(getattr(settings, "KOPA_EDGE", {}))


def _signal_domains(signals: dict) -> dict[str, list[str]]:
    source, target = (signals or {}).get("domains") or ([], [])
    return {"source": list(source), "target": list(target)}


@transaction.atomic
def _store_candidates(candidates: Sequence[Candidate], report: ProposeReport) -> None:
    existing = {
        (e.source_tool_id, e.source_field, e.target_tool_id, e.target_param, e.transform): e
        for e in CandidateEdge.objects.all()
    }
    fresh = []
    for candidate in candidates:
        edge = existing.get(candidate.key)
        if edge is None:
            alpha, beta = posterior.prior(candidate.score)
            fresh.append(
                CandidateEdge(
                    source_tool_id=candidate.source_tool,
                    source_field=candidate.source_field,
                    target_tool_id=candidate.target_tool,
                    target_param=candidate.target_param,
                    transform=candidate.transform,
                    signals=candidate.signals,
                    score=candidate.score,
                    proposer=candidate.proposer,
                    prior_alpha=alpha,
                    prior_beta=beta,
                    alpha=alpha,
                    beta=beta,
                    posterior_mean=posterior.mean(alpha, beta),
                    domains=_signal_domains(candidate.signals),
                )
            )
            continue
        if edge.signals == candidate.signals and edge.score == candidate.score:
            report.unchanged += 1
            continue
        edge.signals, edge.score = candidate.signals, candidate.score
        edge.domains = _signal_domains(candidate.signals)
        fields = ["signals", "score", "domains", "updated_at"]
        if edge.trials_main == 0 and edge.controls_passed + edge.controls_failed == 0:
            edge.prior_alpha, edge.prior_beta = posterior.prior(candidate.score)
            edge.alpha, edge.beta = edge.prior_alpha, edge.prior_beta
            edge.posterior_mean = posterior.mean(edge.alpha, edge.beta)
            fields += ["prior_alpha", "prior_beta", "alpha", "beta", "posterior_mean"]
        edge.save(update_fields=fields)
        report.updated += 1
    CandidateEdge.objects.bulk_create(fresh, batch_size=500)
    report.created = len(fresh)


def edge_create(
    *,
    source_tool: Tool,
    source_field: str,
    target_tool: Tool,
    target_param: str,
    transform: str = "identity",
    score: float = 0.5,
    proposer: str = CandidateEdge.Proposer.MANUAL,
    note: str = "",
) -> CandidateEdge:
    """Add one candidate by hand (a reviewer's idea, or a planted false one for a test); checked first."""
    fields = [f.strip() for f in source_field.split(",") if f.strip()]
    params = [p.strip() for p in target_param.split(",") if p.strip()]
    if source_tool.pk == target_tool.pk:
        raise EdgeError("an edge links two different tools")
    try:
        arity = transforms.arity(transform)
    except transforms.TransformError as exc:
        raise EdgeError(str(exc)) from None
    if len(fields) != arity or len(params) != arity:
        raise EdgeError(f"transform {transform} binds {arity} field(s) to {arity} parameter(s)")
    known_fields = {_field_path(f) for f in source_tool.record_fields}
    unknown = [f for f in fields if f not in known_fields]
    if unknown:
        raise EdgeError(f"{source_tool.function_name} records have no field {', '.join(unknown)}")
    known_params = set((target_tool.parameters.get("properties") or {}).keys())
    unknown = [p for p in params if p not in known_params]
    if unknown:
        raise EdgeError(f"{target_tool.function_name} has no parameter {', '.join(unknown)}")
    if not 0.0 <= score <= 1.0:
        raise EdgeError("score must lie in [0, 1]")
    alpha, beta = posterior.prior(score)
    domains = {
        "source": [_tool_domain(source_tool, name, "field") for name in fields],
        "target": [_tool_domain(target_tool, name, "param") for name in params],
    }
    try:
        with transaction.atomic():
            return CandidateEdge.objects.create(
                domains=domains,
                source_tool=source_tool,
                source_field=",".join(fields),
                target_tool=target_tool,
                target_param=",".join(params),
                transform=transform,
                score=score,
                signals={"total": score},
                proposer=proposer,
                prior_alpha=alpha,
                prior_beta=beta,
                alpha=alpha,
                beta=beta,
                posterior_mean=posterior.mean(alpha, beta),
                note=note,
            )
    except IntegrityError:
        raise EdgeError("this candidate already exists") from None


def _tool_domain(tool: Tool, name: str, side: str) -> str:
    return value_domains.infer(name, provider=tool.service.provider.code, side=side, tool=tool.function_name)


def edge_reset(*, edge: CandidateEdge) -> CandidateEdge:
    """Back to proposed with its prior; its trials stay on record but no longer count."""
    edge.status = CandidateEdge.Status.PROPOSED
    edge.alpha, edge.beta = edge.prior_alpha, edge.prior_beta
    edge.posterior_mean = posterior.mean(edge.alpha, edge.beta)
    edge.trials_success = edge.trials_structural = edge.trials_environmental = edge.trials_skipped = 0
    edge.controls_passed = edge.controls_failed = 0
    edge.confusions_held = edge.confusions_failed = 0
    edge.reason = ""
    edge.decided_at = None
    edge.save()
    return edge


# --- Verification runs ---------------------------------------------------------------------------------


def _check_run_params(params: dict[str, Any] | None) -> dict[str, Any]:
    given = dict(params or {})
    unknown = sorted(set(given) - set(RUN_DEFAULTS))
    if unknown:
        raise EdgeError(f"unknown run parameter(s) {', '.join(unknown)}; known: {', '.join(RUN_DEFAULTS)}")
    merged = {**RUN_DEFAULTS, **given}
    for name in ("rounds", "batch_size", "concurrency", "n_max"):
        value = merged[name]
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 10_000:
            raise EdgeError(f"{name} must be a whole number from 1 to 10000; got {value!r}")
    if not isinstance(merged["controls"], int) or not 0 <= merged["controls"] <= 100:
        raise EdgeError(f"controls must be a whole number from 0 to 100; got {merged['controls']!r}")
    if merged["mode"] not in MODES:
        raise EdgeError(f"mode must be one of {', '.join(MODES)}; got {merged['mode']!r}")
    if not isinstance(merged["edge_ids"], list) or not all(isinstance(i, int) for i in merged["edge_ids"]):
        raise EdgeError("edge_ids must be a list of edge ids")
    if merged["sandbox_origin"] and not str(merged["sandbox_origin"]).startswith(("http://", "https://")):
        raise EdgeError("sandbox_origin must be an http(s) URL")
    try:
        posterior.PosteriorPolicy(**merged["policy"])
    except (TypeError, ValueError) as exc:
        raise EdgeError(f"policy: {exc}") from None
    if merged["seed"] is not None and not isinstance(merged["seed"], int | str):
        raise EdgeError("seed must be a number or a text")
    return merged


def verification_run_create(*, params: dict[str, Any] | None = None, user=None) -> VerificationRun:
    """A pending run with checked parameters (defaults filled in); no trial runs until it is started."""
    merged = _check_run_params(params)
    if merged["edge_ids"]:
        found = CandidateEdge.objects.filter(pk__in=merged["edge_ids"]).count()
        if found != len(set(merged["edge_ids"])):
            raise EdgeError("edge_ids names edges that do not exist")
    run = VerificationRun.objects.create(
        params=merged, created_by=user if getattr(user, "is_authenticated", False) else None
    )
    if merged["seed"] is None:
        run.params = {**merged, "seed": run.pk}
        run.save(update_fields=["params"])
    return run


def verification_run_start(*, run: VerificationRun, user=None) -> Job:
    """Queue the run (or its continuation) as an edge.verify job; refused while a job of it still runs."""
    return run_start(run=run, kind="edge.verify", error=EdgeError, user=user)


def _policy(params: dict[str, Any]) -> posterior.PosteriorPolicy:
    return posterior.PosteriorPolicy(**params.get("policy", {}))


def verification_run_execute(*, run: VerificationRun, reporter: Reporter | None = None) -> dict[str, Any]:
    """Run (or continue) the run's rounds in this process; returns its counters.

    Each round draws its edges by Thompson sampling and stores that plan before any trial, so a restart
    repeats the same round and skips the attempts already stored.
    """
    reporter = reporter or QuietReporter()
    params = run.params
    rounds = params["rounds"]
    now = timezone.now()
    state = dict(run.state or {})
    state.setdefault("since", now.isoformat())  # recorded inputs from before the first start only
    state.setdefault("round", 0)
    run_mark_running(run=run, state=state)
    run.refresh_from_db()
    worker = _RoundWorker(run, reporter)
    mismatched = worker.prune_domain_mismatches()
    if mismatched:
        reporter.log(f"{mismatched} edge(s) pruned before any trial: their domains do not join")
    try:
        while state["round"] < rounds:
            reporter.check_cancelled()
            number = state["round"]
            if state.get("plan_round") != number:
                state.update(plan_round=number, plan=_plan_round(run, number))
                VerificationRun.objects.filter(pk=run.pk).update(state=state)
            plan = state["plan"]
            if not plan:
                reporter.log(f"round {number + 1}: no undecided edge left")
                break
            reporter.progress(number, rounds, f"round {number + 1} of {rounds}: {len(plan)} edge(s)")
            worker.run_round(number, plan)
            decided = _decide([edge_id for edge_id, _ in plan], _policy(params))
            state.update(round=number + 1, plan_round=None, plan=[])
            counters = run_counters(run)
            VerificationRun.objects.filter(pk=run.pk).update(state=state, counters=counters)
            reporter.log(
                f"round {number + 1}: {len(plan)} edge(s) tried; verified {decided['verified']}, "
                f"pruned {decided['pruned']}; {counters['trials']} trial(s) so far"
            )
            reporter.progress(number + 1, rounds, f"round {number + 1} of {rounds} done")
    except BaseException:
        run_mark_stopped(run=run, counters=run_counters(run))
        raise
    untestable = _mark_untestable(run)
    if untestable:
        reporter.log(f"{untestable} edge(s) untestable: every trial was skipped")
    counters = run_counters(run)
    run_mark_finished(run=run, counters=counters, state=state)
    run.refresh_from_db()
    return counters


def _plan_round(run: VerificationRun, number: int) -> list[list[int]]:
    """[edge id, 1 when a control follows a successful main trial] for the round's Thompson-sampled edges."""
    params = run.params
    edges = CandidateEdge.objects.filter(status__in=UNDECIDED)
    if params["edge_ids"]:
        edges = edges.filter(pk__in=params["edge_ids"])
    # n_max bounds the attempts that said something (or were skipped); environmental ones are repeated.
    tried = dict(
        EdgeTrial.objects.filter(run=run, kind=EdgeTrial.Kind.MAIN)
        .exclude(outcome=posterior.ENVIRONMENTAL)
        .values_list("edge_id")
        .annotate(n=Count("id"))
        .values_list("edge_id", "n")
    )
    arms = [
        Arm(e.pk, e.alpha, e.beta) for e in edges.only("pk", "alpha", "beta") if tried.get(e.pk, 0) < params["n_max"]
    ]
    picked = thompson_pick(arms, params["batch_size"], seed=params["seed"], round_number=number)
    controls = dict(
        CandidateEdge.objects.filter(pk__in=picked)
        .values_list("pk")
        .annotate(n=F("controls_passed") + F("controls_failed"))
    )
    CandidateEdge.objects.filter(pk__in=picked, status=CandidateEdge.Status.PROPOSED).update(
        status=CandidateEdge.Status.VERIFYING
    )
    return [[edge_id, int(controls.get(edge_id, 0) < params["controls"])] for edge_id in picked]


def _decide(edge_ids: Sequence[int], policy: posterior.PosteriorPolicy) -> dict[str, int]:
    decided = {"verified": 0, "pruned": 0}
    for edge in CandidateEdge.objects.filter(pk__in=edge_ids, status__in=UNDECIDED):
        verdict = posterior.decide(
            edge.alpha,
            edge.beta,
            informative=edge.informative_trials,
            controls_passed=edge.controls_passed,
            controls_failed=edge.controls_failed,
            confusions_held=edge.confusions_held,
            confusions_failed=edge.confusions_failed,
            policy=policy,
        )
        if verdict is None:
            continue
        reason = _verdict_reason(edge, verdict)
        status = verdict
        if verdict == posterior.VERIFIED and _all_echoes(edge):
            status = CandidateEdge.Status.ECHO
            reason = "every successful trial bound the source call's own input (an echo): it proves no link"
        CandidateEdge.objects.filter(pk=edge.pk, status__in=UNDECIDED).update(
            status=status, decided_at=timezone.now(), reason=reason[:300]
        )
        decided[verdict] += 1
    return decided


def _verdict_reason(edge: CandidateEdge, verdict: str) -> str:
    if verdict == posterior.VERIFIED:
        return ""
    if edge.confusions_failed and not edge.confusions_held:
        return f"B accepted values of a confusable domain in {edge.confusions_failed} confusion control(s)"
    if edge.controls_failed and not edge.controls_passed:
        return f"B ignored the value in {edge.controls_failed} specificity control(s)"
    top = _top_failure(edge, posterior.STRUCTURAL)
    return f"structural failures, mostly {top[0]} ({top[1]})" if top else "structural failures"


def _top_failure(edge: CandidateEdge, outcome: str) -> tuple[str, int] | None:
    """The most common failure class among the edge's main trials of an outcome, with its count."""
    return (
        EdgeTrial.objects.filter(edge=edge, kind=EdgeTrial.Kind.MAIN, outcome=outcome)
        .values_list("failure_class")
        .annotate(n=Count("id"))
        .order_by("-n")
        .first()
    )


def _all_echoes(edge: CandidateEdge) -> bool:
    flags = [
        bool((values or {}).get("echo"))
        for values in EdgeTrial.objects.filter(
            edge=edge, kind=EdgeTrial.Kind.MAIN, outcome=posterior.SUCCESS
        ).values_list("values", flat=True)
    ]
    return bool(flags) and all(flags)


def _mark_untestable(run: VerificationRun) -> int:
    """Undecided edges of the run whose every trial was skipped get an honest state, with the reason."""
    marked = 0
    tried = EdgeTrial.objects.filter(run=run).values("edge_id")
    for edge in CandidateEdge.objects.filter(pk__in=tried, status__in=UNDECIDED):
        if edge.informative_trials or not edge.trials_skipped:
            continue
        top = _top_failure(edge, posterior.SKIPPED)
        reason = f"all {edge.trials_skipped} trial(s) skipped, mostly {top[0]}" if top else "all trials skipped"
        CandidateEdge.objects.filter(pk=edge.pk, status__in=UNDECIDED).update(
            status=CandidateEdge.Status.UNTESTABLE, reason=reason[:300], decided_at=timezone.now()
        )
        marked += 1
    return marked


def run_counters(run: VerificationRun) -> dict[str, Any]:
    rows = EdgeTrial.objects.filter(run=run).values("kind", "outcome").annotate(n=Count("id"))
    counters: dict[str, Any] = {"trials": 0, "main": {}, "control": {}, "confusion": {}}
    for row in rows:
        counters.setdefault(row["kind"], {})[row["outcome"]] = row["n"]
        counters["trials"] += row["n"]
    counters["calls"] = ApiCall.objects.filter(source_kind=TRIAL_SOURCE_KIND, source_id=str(run.pk)).count()
    tried = EdgeTrial.objects.filter(run=run).values("edge_id")
    counters["edges"] = dict(
        CandidateEdge.objects.filter(pk__in=tried).order_by().values_list("status").annotate(n=Count("id"))
    )
    return counters


def verification_run_resume(*, run: VerificationRun, user=None) -> Job:
    """Continue a stopped run in a new job; its stored trials are kept and skipped."""
    if run.status == VerificationRun.Status.FINISHED:
        raise EdgeError(f"run #{run.pk} has finished; there is nothing to resume")
    return verification_run_start(run=run, user=user)


# --- One round of trials -------------------------------------------------------------------------------


@dataclass
class _Trial:
    edge: CandidateEdge
    number: int  # the round: the attempt key is (run, edge, SEQ_STRIDE * number)
    with_control: bool
    # Which informative attempt of the edge in this run this is (earlier main trials that were not
    # environmental): values are drawn by it, so a trial that a transient fault spoiled is repeated with the
    # same draws in a later round, and a run with faults meets the same evidence as one without.
    attempt: int = 0
    retries: int = 0  # reruns after a transient fault (see _Pipeline._settle)
    source_params: dict[str, str] | None = None
    source: Execution | None = None
    binding: trial_engine.Binding | None = None
    values: dict[str, Any] = field(default_factory=dict)
    target_params: dict[str, str] | None = None
    target: Execution | None = None
    outcome: tuple[str, str] | None = None  # (outcome, failure class) once settled
    control_bound: dict[str, Any] = field(default_factory=dict)
    control_params: dict[str, str] | None = None
    control: Execution | None = None
    control_outcome: tuple[str, str] | None = None
    confusion_bound: dict[str, Any] = field(default_factory=dict)
    confusion_params: dict[str, str] | None = None
    confusion: Execution | None = None
    confusion_outcome: tuple[str, str] | None = None
    checks: dict[str, Any] = field(default_factory=dict)  # what decided the trial and its controls


def _execute(
    calls: Sequence[tuple[Tool, dict[str, Any]]],
    *,
    mode: str,
    sandbox_origin: str | None,
    concurrency: int,
    source: str,
    source_id: str,
    expect_records: bool = False,
) -> list[Execution | ToolExecutionError]:
    """Execute calls concurrently; a call that cannot be made (no key for live mode) is returned as its error."""
    if not calls:
        return []
    options = {
        "mode": mode,
        "source_kind": source,
        "source_id": source_id,
        "expect_records": expect_records,
        "sandbox_origin": sandbox_origin or None,
    }
    try:
        # One transaction for the batch's ApiCall rows: they are written after the calls return, and one
        # commit instead of one per row keeps SQLite from becoming the bottleneck.
        with transaction.atomic():
            return list(tool_execute_many(calls=list(calls), concurrency=concurrency, **options))
    except ToolExecutionError:
        # One unusable call (e.g. a provider without a key) must not sink the batch: go one by one.
        out: list[Execution | ToolExecutionError] = []
        for tool, params in calls:
            try:
                out.append(tool_execute(tool=tool, params=params, **options))
            except ToolExecutionError as exc:
                out.append(exc)
        return out


class _RoundWorker:
    """Runs a round's planned trials as a pipeline: up to `concurrency` calls in flight at all times, each
    trial moving on (source, target, control) as soon as its own call returns, and finished trials stored
    as they finish, so no trial waits for the slowest call of a batch."""

    def __init__(self, run: VerificationRun, reporter: Reporter):
        self.run = run
        self.reporter = reporter
        self.params = run.params
        self.policy = _policy(run.params)
        self.seed = run.params["seed"]
        self.since = run.state.get("since")
        self._pools: dict[tuple[int, int], list[dict[str, str]]] = {}
        self._barren: dict[tuple[int, int], list[dict]] = {}  # inputs that gave a tool no records, by round
        self._spent: dict[tuple[int, int], list[dict]] = {}
        self._siblings: dict[tuple[int, int], list[CandidateEdge]] = {}
        self._domains: dict[int, tuple[dict[str, str], dict[str, str]]] = {}

    # --- domains

    def tool_domains(self, tool: Tool) -> tuple[dict[str, str], dict[str, str]]:
        """({field path: domain}, {parameter: domain}) of a tool (graphs/engine/domains.py)."""
        if tool.pk not in self._domains:
            provider = tool.service.provider.code
            fields = {
                _field_path(row): value_domains.infer(
                    _field_path(row), provider=provider, side="field", tool=tool.function_name
                )
                for row in tool.record_fields
                if _field_path(row)
            }
            params = {
                info.name: value_domains.infer(info.name, provider=provider, side="param", tool=tool.function_name)
                for info in trial_engine.param_infos(tool.parameters)
            }
            self._domains[tool.pk] = (fields, params)
        return self._domains[tool.pk]

    def edge_domains(self, edge: CandidateEdge) -> tuple[list[str], list[str]]:
        fields, _ = self.tool_domains(edge.source_tool)
        _, params = self.tool_domains(edge.target_tool)
        return [fields.get(f, value_domains.UNKNOWN) for f in edge.source_fields], [
            params.get(p, value_domains.UNKNOWN) for p in edge.target_params
        ]

    def domain_mismatch(self, edge: CandidateEdge, source: Sequence[str] | None = None) -> str | None:
        """Why a value of the edge's source cannot fill its target (None when the domains join)."""
        src, dst = self.edge_domains(edge)
        src = list(source) if source is not None else src
        if len(src) == 2:
            axes = [value_domains.axis(d) for d in src]
            if "" not in axes and axes != ["x", "y"]:
                return f"the source pair is ({src[0]}, {src[1]}): its axes would be swapped"
            groups = [value_domains.domain(d).group for d in (*src, *dst)]
            if edge.transform == "pair" and len(set(groups)) > 1 and "" not in groups:
                return f"a {groups[0]} pair is not a {groups[2]} pair"
            if edge.transform.startswith("project:"):
                _, frame_from, frame_to = edge.transform.split(":")
                if (groups[0] and groups[0] != frame_from) or (groups[2] and groups[2] != frame_to):
                    return f"{edge.transform} does not join a {groups[0]} pair to a {groups[2]} pair"
            return None
        joined = value_domains.match(src[0], dst[0])
        if joined is None:
            return value_domains.mismatch_reason(src[0], dst[0])
        if joined.transforms is not None and edge.transform not in joined.transforms:
            return f"{src[0]} -> {dst[0]} goes through {', '.join(joined.transforms)}, not {edge.transform}"
        return None

    def prune_domain_mismatches(self) -> int:
        """Undecided edges whose domains cannot join (a planted 시군구 -> areaCode) are pruned with the reason
        before any call is made; every undecided edge in scope gets its domains recorded."""
        edges = CandidateEdge.objects.filter(status__in=UNDECIDED).select_related(
            "source_tool__service__provider", "target_tool__service__provider"
        )
        if self.params["edge_ids"]:
            edges = edges.filter(pk__in=self.params["edge_ids"])
        pruned = 0
        for edge in edges:
            src, dst = self.edge_domains(edge)
            domains = {"source": src, "target": dst}
            reason = self.domain_mismatch(edge)
            if reason is None:
                if edge.domains != domains:
                    CandidateEdge.objects.filter(pk=edge.pk).update(domains=domains)
                continue
            CandidateEdge.objects.filter(pk=edge.pk, status__in=UNDECIDED).update(
                status=CandidateEdge.Status.PRUNED,
                domains=domains,
                reason=f"domain mismatch: {reason}"[:300],
                decided_at=timezone.now(),
            )
            pruned += 1
        return pruned

    def run_round(self, number: int, plan: Sequence[Sequence[int]]) -> None:
        edges = CandidateEdge.objects.select_related(
            "source_tool__service__provider", "target_tool__service__provider"
        ).in_bulk([edge_id for edge_id, _ in plan])
        done = set(EdgeTrial.objects.filter(run=self.run, seq=SEQ_STRIDE * number).values_list("edge_id", "seq"))
        attempts = dict(
            EdgeTrial.objects.filter(run=self.run, kind=EdgeTrial.Kind.MAIN, round__lt=number)
            .exclude(outcome=posterior.ENVIRONMENTAL)
            .values_list("edge_id")
            .annotate(n=Count("id"))
            .values_list("edge_id", "n")
        )
        trials = []
        for edge_id, with_control in plan:
            edge = edges.get(edge_id)
            if edge is None:
                continue  # deleted meanwhile
            # A main trial and its control are stored together, so a stored main means the attempt is done.
            if (edge_id, SEQ_STRIDE * number) in done:
                continue
            trials.append(_Trial(edge, number, bool(with_control), attempt=attempts.get(edge_id, 0)))
        _Pipeline(self, trials).run()

    # --- the steps of one trial; each returns the next call to make, or None when the trial is settled

    def begin(self, trial: _Trial) -> tuple[Tool, dict[str, str]] | None:
        tool = trial.edge.source_tool
        pool = self._pool(tool, trial.number)
        # Inputs with which this edge's field was absent, of another kind or never valid are not offered to
        # this edge again (they stay in the tool's pool: other fields of the same records may be fine).
        spent = self._spent_inputs(trial.edge.pk, trial.number)
        pool = [inputs for inputs in pool if inputs not in spent] or pool
        if trial.attempt % 2 == 1:
            # Every other attempt calls A so that it lists (parent-level codes, no filter, ALL): a value its
            # input already determines is an echo, and an edge is one only if even these hand back the input.
            _, domains = self.tool_domains(tool)
            barren = self._barren.get((tool.pk, trial.number), [])
            listing: list[dict] = []
            for inputs in pool:
                widened = trial_engine.listing_input(inputs, tool.parameters, domains, trial.edge.transform)
                if widened is not None and widened not in listing and widened not in spent + barren:
                    listing.append(widened)
            pool = listing or pool
        if not pool:
            trial.outcome = (posterior.SKIPPED, "source.no_inputs")
            return None
        trial.source_params = min(pool, key=lambda inputs: _input_rank(self.seed, trial.edge.pk, trial.attempt, inputs))
        return tool, trial.source_params

    def after_source(self, trial: _Trial, execution: Execution) -> tuple[Tool, dict[str, str]] | None:
        trial.source = execution
        settled = trial_engine.source_outcome(
            execution.result.ok, execution.result.error_class, execution.result.records
        )
        if settled is not None:
            trial.outcome = settled
            return None
        edge = trial.edge
        records = execution.result.records
        rng = rng_for(self.seed, "value", edge.pk, trial.attempt)
        _, dst = self.edge_domains(edge)
        binding = trial_engine.bind(records, edge.source_fields, edge.target_params, edge.transform, rng, dst)
        if binding == trial_engine.NO_VALID_VALUE:
            # With this input every record is a level above the target's kind (시도 rows for a 동 code).
            trial.outcome = (posterior.SKIPPED, trial_engine.NO_VALID_VALUE)
            return None
        if binding == trial_engine.MISSING_FIELD:
            # With this input A's records lack F (KOSIS getMeta lists items only with type=ITM): the input says
            # nothing about the link, as when A gives no records at all.
            trial.outcome = (posterior.SKIPPED, trial_engine.FIELD_ABSENT)
            return None
        if isinstance(binding, str):
            trial.outcome = (posterior.STRUCTURAL, binding)
            return None
        trial.binding = binding
        src, dst = self.edge_domains(edge)
        provider = edge.source_tool.service.provider.code
        effective = [
            value_domains.request_domain(name, domain, provider=provider, request=trial.source_params)
            for name, domain in zip(edge.source_fields, src, strict=True)
        ]
        trial.values["domains"] = {"source": effective, "target": dst}
        if effective != src and self.domain_mismatch(edge, effective):
            # areaCode2's code is a 시군구 code when the request named an area: not this link's kind of value.
            trial.outcome = (posterior.SKIPPED, trial_engine.DOMAIN_BY_REQUEST)
            return None
        trial.values["echo"] = trial_engine.is_echo(
            binding.source_values, trial.source_params, edge.transform, binding.bound
        )
        siblings = self._sibling_values(edge, records[binding.record_index], set(binding.bound))
        trial.values.update(source_values=binding.source_values, bound=binding.bound, siblings=siblings)
        _, target_domains = self.tool_domains(edge.target_tool)
        invalid = sorted(
            p
            for p, v in siblings.items()
            if not value_domains.valid_value(target_domains.get(p, value_domains.UNKNOWN), v)
        )
        if invalid:
            # A 시군구 row gives a LAWD_CD but its 동 part 00000 names no bjdongCd: the record cannot fill B.
            trial.values["siblings_invalid"] = invalid
            trial.outcome = (posterior.SKIPPED, trial_engine.NO_VALID_VALUE)
            return None
        missing = value_domains.missing_companions(
            dst, (target_domains.get(name, value_domains.UNKNOWN) for name in siblings), target_domains.values()
        )
        if missing:
            # udrtYn=0 with the road code and building number of an example: the flag found nothing of A's.
            trial.values["companions_missing"] = missing
            trial.outcome = (posterior.SKIPPED, trial_engine.COMPANIONS_MISSING)
            return None
        # Companions go with every call of the trial, optional or not (lDongRegnCd beside lDongSignguCd).
        companions = {c for name in dst for c in value_domains.domain(name).companions}
        trial.values["send"] = sorted(name for name in siblings if target_domains.get(name) in companions)
        params = self._target_params(trial, binding.bound)
        if isinstance(params, str):
            trial.outcome = (posterior.SKIPPED, params)
            return None
        trial.target_params = params
        return edge.target_tool, params

    @staticmethod
    def _target_params(trial: _Trial, bound: dict[str, Any]) -> dict[str, Any] | str:
        """B's request for a trial's main call or a control: the bound values, the siblings from A's record (the
        optional ones the bound values need as companions included), the rest from examples."""
        return trial_engine.target_params(
            trial.edge.target_tool.parameters,
            bound,
            trial.values.get("siblings") or {},
            provider=trial.edge.target_tool.service.provider.code,
            send=trial.values.get("send") or (),
        )

    def _check(self, trial: _Trial, bound: dict[str, Any], result, request: dict | None) -> trial_engine.Check:
        edge = trial.edge
        source_fields, _ = self.tool_domains(edge.source_tool)
        target_fields, target_params = self.tool_domains(edge.target_tool)
        # A field whose kind depends on the request is read as what it holds for these two calls (areaCode2
        # asked with an areaCode lists 시군구 codes, not areas).
        source_fields = self._as_requested(edge.source_tool, source_fields, trial.source_params)
        target_fields = self._as_requested(edge.target_tool, target_fields, request)
        record = trial.source.result.records[trial.binding.record_index]
        bound_domains = {name: target_params.get(name, value_domains.UNKNOWN) for name in bound}
        records = result.records
        complete = result.total_count is None or result.total_count <= len(records)
        return trial_engine.consistency(
            bound, bound_domains, record, source_fields, records, target_fields, complete=complete
        )

    @staticmethod
    def _as_requested(tool: Tool, fields: dict[str, str], request: dict | None) -> dict[str, str]:
        provider = tool.service.provider.code
        return {
            name: value_domains.request_domain(name, domain, provider=provider, request=request)
            for name, domain in fields.items()
        }

    def after_target(self, trial: _Trial, execution: Execution) -> tuple[Tool, dict[str, str]] | None:
        trial.target = execution
        result = execution.result
        trial.outcome = trial_engine.target_outcome(result.ok, result.error_class, result.records)
        if trial.outcome[0] == posterior.SUCCESS:
            check = self._check(trial, trial.binding.bound, result, trial.target_params)
            trial.checks["consistency"] = check.to_dict()
            if check.verdict == trial_engine.INCONSISTENT_CHECK:
                trial.outcome = (posterior.STRUCTURAL, trial_engine.INCONSISTENT)
        elif trial.outcome[1] == trial_engine.NEGATIVE_ANSWER:
            trial.checks["consistency"] = {"verdict": "negative", "detail": "B answered with a record that says no"}
            from_examples = self._required_from_examples(trial)
            if from_examples:
                # NTS validate compares the owner's start date and name: taken from examples, a 02 says nothing
                # about the bound value. The trial is skipped; such an edge ends untestable, not verified.
                trial.checks["consistency"]["detail"] += f"; {', '.join(from_examples)} came from examples"
                trial.outcome = (posterior.SKIPPED, trial_engine.NEGATIVE_WITH_EXAMPLES)
        if not trial.with_control or trial.outcome[0] != posterior.SUCCESS:
            return None
        # Specificity: another valid value of the same domain must change what B returns.
        rng = rng_for(self.seed, "control", trial.edge.pk, trial.attempt)
        schema = trial.edge.target_tool.parameters
        _, dst = self.edge_domains(trial.edge)
        params = trial.edge.target_params
        picked = trial_engine.specificity_value(
            trial.source.result.records, trial.edge.source_fields, trial.edge.transform, trial.binding.bound, dst, rng
        )
        if picked is not None:
            values, origin = picked
            trial.control_bound = dict(zip(params, values, strict=True))
        else:
            origin = "no other valid value known: a mismatched value of the same shape"
            trial.control_bound = {
                name: trial_engine.perturb(value, rng, trial_engine.param_enum(schema, name))
                for name, value in trial.binding.bound.items()
            }
        trial.checks["specificity"] = {"value": trial.control_bound, "origin": origin}
        # The same request with the other value(s) in place of the bound ones.
        control = self._target_params(trial, trial.control_bound)
        if isinstance(control, str):
            return self._confusion(trial)
        trial.control_params = control
        return trial.edge.target_tool, trial.control_params

    def after_control(self, trial: _Trial, execution: Execution) -> tuple[Tool, dict[str, str]] | None:
        trial.control = execution
        trial.control_outcome = trial_engine.control_outcome(
            trial_engine.fingerprint(trial.target.result.records),
            execution.result.ok,
            execution.result.error_class,
            execution.result.records,
        )
        return self._confusion(trial)

    def _required_from_examples(self, trial: _Trial) -> list[str]:
        """Required target parameters that neither the binding nor a sibling filled (they are examples)."""
        given = set(trial.binding.bound) | set(trial.values.get("siblings") or {})
        return sorted(trial_engine.required_names(trial.edge.target_tool.parameters) - given)

    def _confusion(self, trial: _Trial) -> tuple[Tool, dict[str, str]] | None:
        """Confusion: a valid value of the most confusable other domain must fail or be inconsistent."""
        _, dst = self.edge_domains(trial.edge)
        rng = rng_for(self.seed, "confusion", trial.edge.pk, trial.attempt)
        picked = trial_engine.confusion_value(dst, rng)
        if picked is None:
            trial.checks["confusion"] = {"origin": "no confusable domain with reference values; not run"}
            return None
        values, origin = picked
        trial.confusion_bound = dict(zip(trial.edge.target_params, values, strict=True))
        trial.checks["confusion"] = {"value": trial.confusion_bound, "origin": origin}
        params = self._target_params(trial, trial.confusion_bound)
        if isinstance(params, str):
            return None
        trial.confusion_params = params
        return trial.edge.target_tool, params

    def after_confusion(self, trial: _Trial, execution: Execution) -> None:
        trial.confusion = execution
        result = execution.result
        check = (
            self._check(trial, trial.confusion_bound, result, trial.confusion_params)
            if result.ok and result.records
            else None
        )
        if check is not None:
            trial.checks["confusion"]["consistency"] = check.to_dict()
        trial.confusion_outcome = trial_engine.confusion_outcome(result.ok, result.error_class, result.records, check)

    # --- inputs and siblings

    def _spent_inputs(self, edge_id: int, number: int) -> list[dict]:
        key = (edge_id, number)
        if key not in self._spent:
            self._spent[key] = [
                values.get("source_params")
                for values in EdgeTrial.objects.filter(
                    run=self.run,
                    round__lt=number,
                    edge_id=edge_id,
                    kind=EdgeTrial.Kind.MAIN,
                    failure_class__in=(
                        trial_engine.FIELD_ABSENT,
                        trial_engine.DOMAIN_BY_REQUEST,
                        trial_engine.NO_VALID_VALUE,
                    ),
                ).values_list("values", flat=True)
            ]
        return self._spent[key]

    def _pool(self, tool: Tool, number: int) -> list[dict[str, str]]:
        """Inputs for a source tool: examples, recorded calls from before the run, and the inputs that
        this run's verified-so-far links fed into it in earlier rounds (the upstream edges)."""
        key = (tool.pk, number)
        if key not in self._pools:
            upstream = EdgeTrial.objects.filter(
                run=self.run,
                round__lt=number,
                kind=EdgeTrial.Kind.MAIN,
                outcome=posterior.SUCCESS,
                edge__target_tool=tool,
            ).values("target_call")
            calls = ApiCall.objects.filter(tool=tool, ok=True, record_count__gt=0)
            before = calls.filter(created_at__lt=self.since).order_by("id").values_list("params", flat=True)
            recorded = [params for params in before[:RECORDED_INPUTS] if isinstance(params, dict)]
            # This run's calls are logged in the order they finish, which varies: they are taken in the order
            # of a hash of their inputs instead, so a repeated run offers the same inputs.
            fed = {
                json.dumps(params, sort_keys=True, ensure_ascii=False): params
                for params in calls.filter(pk__in=upstream).values_list("params", flat=True)
                if isinstance(params, dict)
            }
            ranked = sorted(fed, key=lambda text: hashlib.sha256(text.encode()).hexdigest())
            recorded += [fed[text] for text in ranked[:RECORDED_INPUTS]]
            pool = trial_engine.source_inputs(tool.parameters, recorded)
            # Inputs that gave this tool no records in an earlier round are not offered again.
            barren = [
                values.get("source_params")
                for values in EdgeTrial.objects.filter(
                    run=self.run,
                    round__lt=number,
                    kind=EdgeTrial.Kind.MAIN,
                    outcome=posterior.SKIPPED,
                    failure_class__startswith="source",
                    edge__source_tool=tool,
                )
                # A field absent or of another kind with this input is about that edge's field, not the input.
                .exclude(
                    failure_class__in=(
                        trial_engine.FIELD_ABSENT,
                        trial_engine.DOMAIN_BY_REQUEST,
                        trial_engine.NO_VALID_VALUE,
                    )
                )
                .values_list("values", flat=True)
            ]
            self._barren[key] = barren
            self._pools[key] = [inputs for inputs in pool if inputs not in barren] or pool
        return self._pools[key]

    def _sibling_values(self, edge: CandidateEdge, record: dict, bound: set[str]) -> dict[str, str]:
        """Other parameters of the target filled from the same source record, so co-bound codes (cityCode with
        nodeId, areaCode with sigunguCode) come from one place. A sibling is a candidate from the same source
        tool into the same target that is verified or whose names match (same name or a known alias); a
        weak sibling would fail the trial for a reason that is not this edge's. Optional parameters are only
        filled by verified or same-name siblings, or by any sibling that binds a companion the edge's values need
        (the 본번 beside a 부번, the road code beside a 지하여부)."""
        key = (edge.source_tool_id, edge.target_tool_id)
        if key not in self._siblings:
            self._siblings[key] = list(
                CandidateEdge.objects.filter(source_tool_id=key[0], target_tool_id=key[1])
                .exclude(status=CandidateEdge.Status.PRUNED)
                .order_by("-posterior_mean", "-score", "id")
            )
        required = trial_engine.required_names(edge.target_tool.parameters)
        _, dst = self.edge_domains(edge)
        companions = {c for name in dst for c in value_domains.domain(name).companions}
        values: dict[str, str] = {}
        for sibling in self._siblings[key]:
            params = sibling.target_params
            if sibling.pk == edge.pk or set(params) & (bound | set(values)):
                continue
            if any(is_control_param(p) for p in params):
                continue
            name_score = (sibling.signals or {}).get("name", 0)
            companion = bool(companions) and set(self.edge_domains(sibling)[1]) <= companions
            if not (sibling.status == CandidateEdge.Status.VERIFIED or name_score >= 0.9 or companion):
                continue
            strong = sibling.status == CandidateEdge.Status.VERIFIED or name_score >= 1.0 or companion
            if not set(params) <= required and not strong:
                continue
            tuples = trial_engine.field_tuples([record], sibling.source_fields)
            if not tuples:
                continue
            try:
                out = transforms.apply(sibling.transform, list(tuples[0][1]))
            except transforms.TransformError:
                continue
            values.update(zip(params, out, strict=True))
        return values


def _input_rank(seed: Any, edge_id: int, attempt: int, inputs: dict) -> str:
    """The rank of one input for one (edge, attempt): the input of lowest rank is drawn. A rank depends on the
    input alone, not on its place in the pool, so an input that another trial fed in a round later (a transient
    fault delayed it) changes the draw only where it would itself have won."""
    text = json.dumps(inputs, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(f"{seed}:{edge_id}:{attempt}:{text}".encode()).hexdigest()


_SOURCE, _TARGET, _CONTROL, _CONFUSION = "source", "target", "control", "confusion"


class _Pipeline:
    """The scheduler of one round. Calls go to the executor's event loop (tool_execute_submit); this thread
    waits for whichever finishes first, logs it, moves its trial(s) on and tops the calls in flight back up.
    Identical source or target calls of the round are made once and shared. Trials that settled are stored in
    the same transaction as the ApiCall rows that settled them; a kill loses only the trials in flight."""

    def __init__(self, worker: _RoundWorker, trials: list[_Trial]):
        self.worker = worker
        self.params = worker.params
        self.queue = deque(trials)
        self.cap = self.params["concurrency"]
        self.ready: deque[tuple[str, tuple[int, str], Tool, dict[str, str]]] = deque()  # calls over the cap
        self.inflight: dict[concurrent.futures.Future, tuple[str, tuple[int, str], PendingExecution]] = {}
        self.waiters: dict[tuple[str, tuple[int, str]], list[_Trial]] = defaultdict(list)
        self.finished: dict[tuple[str, tuple[int, str]], Execution] = {}  # shared results of the round
        self.settled: list[_Trial] = []

    def run(self) -> None:
        try:
            while self.queue or self.ready or self.inflight:
                self.worker.reporter.check_cancelled()
                self._fill()
                done: set = set()
                if self.inflight:
                    # Waiting holds no transaction: SQLite's write lock stays free for heartbeats and pages.
                    done, _ = concurrent.futures.wait(
                        list(self.inflight), timeout=5.0, return_when=concurrent.futures.FIRST_COMPLETED
                    )
                with transaction.atomic():
                    for future in done:
                        stage, key, pending = self.inflight.pop(future)
                        self._deliver(stage, key, pending.result())
                    self._store()
        finally:
            # Cancelled or failed: what is in flight still finishes and is logged, as every call must be.
            for _stage, key, pending in list(self.inflight.values()):
                try:
                    pending.result()
                except Exception:  # the error that stopped the round is the one that propagates
                    logger.exception("edge trial call %s failed while the round stopped", key)
            self.inflight.clear()

    def _fill(self) -> None:
        """Top the calls in flight up to the cap: later steps of started trials first, then new trials."""
        while len(self.inflight) < self.cap and (self.ready or self.queue):
            if self.ready:
                stage, key, tool, params = self.ready.popleft()
                self._submit(stage, key, tool, params)
                continue
            trial = self.queue.popleft()
            self._advance(trial, _SOURCE, self.worker.begin(trial))

    def _advance(self, trial: _Trial, stage: str, call: tuple[Tool, dict[str, str]] | None) -> None:
        """Ask for the trial's next call (stage), sharing one already made or in flight; or settle it."""
        if call is None:
            self._settle(trial)
            return
        tool, params = call
        key = _call_key(tool, params)
        if stage in (_CONTROL, _CONFUSION):
            key = (key[0], f"{key[1]}#{stage}#{trial.edge.pk}")  # a control is the trial's own call
        shared = (stage, key)
        if shared in self.finished:
            self._step(trial, stage, self.finished[shared])
            return
        first = shared not in self.waiters
        self.waiters[shared].append(trial)
        if not first:
            return
        if len(self.inflight) < self.cap:
            self._submit(stage, key, tool, params)
        else:
            self.ready.append((stage, key, tool, params))

    def _submit(self, stage: str, key: tuple[int, str], tool: Tool, params: dict[str, str]) -> None:
        try:
            pending = tool_execute_submit(
                tool=tool,
                params=params,
                mode=self.params["mode"],
                sandbox_origin=self.params["sandbox_origin"] or None,
                source_kind=TRIAL_SOURCE_KIND,
                source_id=str(self.worker.run.pk),
                expect_records=stage != _SOURCE,
            )
        except ToolExecutionError as exc:
            # The call cannot be made as asked (e.g. live mode without a key): the trials waiting are skipped.
            for trial in self.waiters.pop((stage, key)):
                trial.values["error"] = str(exc)
                if stage == _CONTROL:
                    trial.control_outcome = (posterior.SKIPPED, "executor.refused")
                elif stage == _CONFUSION:
                    trial.confusion_outcome = (posterior.SKIPPED, "executor.refused")
                else:
                    trial.outcome = (posterior.SKIPPED, "executor.refused")
                self.settled.append(trial)
            return
        self.inflight[pending.future] = (stage, key, pending)

    def _deliver(self, stage: str, key: tuple[int, str], execution: Execution) -> None:
        if not (execution.result.error_class or "").startswith("env."):
            self.finished[(stage, key)] = execution  # a transient failure is not shared: it is asked again
        for trial in self.waiters.pop((stage, key)):
            self._step(trial, stage, execution)

    def _step(self, trial: _Trial, stage: str, execution: Execution) -> None:
        if stage == _SOURCE:
            self._advance(trial, _TARGET, self.worker.after_source(trial, execution))
        elif stage == _TARGET:
            self._advance(trial, _CONTROL, self.worker.after_target(trial, execution))
        elif stage == _CONTROL:
            self._advance(trial, _CONFUSION, self.worker.after_control(trial, execution))
        else:
            self.worker.after_confusion(trial, execution)
            self._settle(trial)

    def _settle(self, trial: _Trial) -> None:
        """A trial that a transient fault spoiled (after the executor's own retries) is run again whole, with
        the same draws, up to ENV_RETRIES times; only then does it count as environmental. So faults leave
        the round, and with it the run, as it would have been without them."""
        spoiled = posterior.ENVIRONMENTAL in (
            (trial.outcome or ("",))[0],
            (trial.control_outcome or ("",))[0],
            (trial.confusion_outcome or ("",))[0],
        )
        if spoiled and trial.retries < ENV_RETRIES:
            self.queue.append(_Trial(trial.edge, trial.number, trial.with_control, trial.attempt, trial.retries + 1))
            return
        self.settled.append(trial)

    def _store(self) -> None:
        for trial in self.settled:
            _store_trial(self.worker.run, trial, self.worker.policy)
        self.settled.clear()


def _call_key(tool: Tool, params: dict[str, str]) -> tuple[int, str]:
    return tool.pk, repr(sorted(params.items()))


_KIND_OFFSET = {EdgeTrial.Kind.MAIN: 0, EdgeTrial.Kind.CONTROL: 1, EdgeTrial.Kind.CONFUSION: 2}


def _trial_row(run: VerificationRun, trial: _Trial, kind: str, outcome: tuple[str, str], policy) -> EdgeTrial:
    target = {EdgeTrial.Kind.MAIN: trial.target, EdgeTrial.Kind.CONTROL: trial.control}.get(kind, trial.confusion)
    values = dict(trial.values)
    values["source_params"] = trial.source_params
    values["checks"] = dict(trial.checks)
    if kind == EdgeTrial.Kind.MAIN:
        values["target_params"] = trial.target_params
    elif kind == EdgeTrial.Kind.CONTROL:
        values["target_params"] = trial.control_params
        values["bound"] = trial.control_bound
    else:
        values["target_params"] = trial.confusion_params
        values["bound"] = trial.confusion_bound
    da, db = _deltas(kind, outcome[0], policy)
    return EdgeTrial(
        edge=trial.edge,
        run=run,
        seq=SEQ_STRIDE * trial.number + _KIND_OFFSET[kind],
        round=trial.number,
        kind=kind,
        source_call=trial.source.call if trial.source else None,
        target_call=target.call if target else None,
        values=values,
        outcome=outcome[0],
        failure_class=outcome[1][:80],
        detail=(target.result.result_msg or "")[:500] if target and not target.result.ok else "",
        alpha_delta=da,
        beta_delta=db,
    )


def _deltas(kind: str, outcome: str, policy: posterior.PosteriorPolicy) -> tuple[float, float]:
    if kind == EdgeTrial.Kind.MAIN:
        return posterior.deltas(outcome, policy)
    # A control only ever counts against an edge: the target ignored the value it was given.
    if outcome == posterior.STRUCTURAL:
        return 0.0, policy.w_s
    if outcome == posterior.ENVIRONMENTAL:
        return 0.0, policy.w_e
    return 0.0, 0.0


_MAIN_COUNTER = {
    posterior.SUCCESS: "trials_success",
    posterior.STRUCTURAL: "trials_structural",
    posterior.ENVIRONMENTAL: "trials_environmental",
    posterior.SKIPPED: "trials_skipped",
}


def _store_trial(run: VerificationRun, trial: _Trial, policy: posterior.PosteriorPolicy) -> None:
    """Write the trial (and its control) and move the edge's posterior, once per attempt key."""
    rows = [_trial_row(run, trial, EdgeTrial.Kind.MAIN, trial.outcome, policy)]
    if trial.control_outcome is not None:
        rows.append(_trial_row(run, trial, EdgeTrial.Kind.CONTROL, trial.control_outcome, policy))
    if trial.confusion_outcome is not None:
        rows.append(_trial_row(run, trial, EdgeTrial.Kind.CONFUSION, trial.confusion_outcome, policy))
    with transaction.atomic():
        for row in rows:
            _, created = EdgeTrial.objects.get_or_create(
                run=run,
                edge=trial.edge,
                seq=row.seq,
                defaults={
                    f.name: getattr(row, f.name)
                    for f in EdgeTrial._meta.concrete_fields
                    if f.name not in ("id", "created_at")
                },
            )
            if not created:
                continue  # stored by an earlier attempt of this run: never counted twice
            updates: dict[str, Any] = {
                "alpha": F("alpha") + row.alpha_delta,
                "beta": F("beta") + row.beta_delta,
            }
            if row.kind == EdgeTrial.Kind.MAIN:
                counter = _MAIN_COUNTER[row.outcome]
                updates[counter] = F(counter) + 1
            elif row.kind == EdgeTrial.Kind.CONFUSION:
                if row.outcome == posterior.SUCCESS:
                    updates["confusions_held"] = F("confusions_held") + 1
                elif row.outcome == posterior.STRUCTURAL:
                    updates["confusions_failed"] = F("confusions_failed") + 1
            elif row.outcome == posterior.SUCCESS:
                updates["controls_passed"] = F("controls_passed") + 1
            elif row.outcome == posterior.STRUCTURAL:
                updates["controls_failed"] = F("controls_failed") + 1
            CandidateEdge.objects.filter(pk=trial.edge.pk).update(**updates)
        edge = CandidateEdge.objects.only("alpha", "beta").get(pk=trial.edge.pk)
        CandidateEdge.objects.filter(pk=edge.pk).update(posterior_mean=posterior.mean(edge.alpha, edge.beta))


# --- Snapshots -------------------------------------------------------------------------------------------


def _graph_rows(statuses: Iterable[str]) -> tuple[list[dict], list[dict]]:
    edges = CandidateEdge.objects.filter(status__in=list(statuses)).select_related(
        "source_tool__service__provider", "target_tool__service__provider"
    )
    nodes: dict[int, dict[str, Any]] = {}
    rows = []
    for edge in edges:
        for tool in (edge.source_tool, edge.target_tool):
            nodes.setdefault(
                tool.pk,
                {
                    "id": tool.pk,
                    "name": tool.function_name,
                    "label": tool.name_ko or tool.function_name,
                    "provider": tool.service.provider.code,
                    "provider_name": tool.service.provider.display_name,
                },
            )
        rows.append(
            {
                "source": edge.source_tool_id,
                "target": edge.target_tool_id,
                "edge_id": edge.pk,
                "field": edge.source_field,
                "param": edge.target_param,
                "transform": edge.transform,
                "domains": edge.domains,
                # The field holds a value for B only when A's call had none of these (areaCode2's code), or
                # not with these values (select_stdg's stdgCd is no 동 code with lv 1 or 2).
                **_request_conditions(edge),
                # Parameters of B bound beside it from the same record, and values it never binds (a 동 part 00000).
                **_binding_conditions(edge),
                "status": edge.status,
                "alpha": round(edge.alpha, 4),
                "beta": round(edge.beta, 4),
                "mean": round(edge.posterior_mean, 4),
                "successes": edge.trials_success,
                "structural": edge.trials_structural,
                "environmental": edge.trials_environmental,
            }
        )
    return list(nodes.values()), rows


def _binding_conditions(edge: CandidateEdge) -> dict[str, Any]:
    """The edge's companions (B's parameters bound beside it from the same record) and invalid patterns. Where
    a candidate from the same source fills a companion and held in trials (verified, or an echo: a value the
    source's input already said is still the right one beside a new one), "companion_links" says how to read it
    (select_stdg's stdgCd through slice:0:5 as sigunguCd beside its slice:5:10 as bjdongCd)."""
    tool = edge.target_tool
    provider = tool.service.provider.code
    params = {
        info.name: value_domains.infer(info.name, provider=provider, side="param", tool=tool.function_name)
        for info in trial_engine.param_infos(tool.parameters)
    }
    targets = (edge.domains or {}).get("target") or [params.get(p, value_domains.UNKNOWN) for p in edge.target_params]
    own = set(edge.target_params)
    conditions = value_domains.binding_conditions(targets, {p: d for p, d in params.items() if p not in own})
    links = []
    held = (CandidateEdge.Status.VERIFIED, CandidateEdge.Status.ECHO)
    for param in conditions["companions"]:
        sibling = (
            CandidateEdge.objects.filter(
                source_tool_id=edge.source_tool_id, target_tool_id=edge.target_tool_id, target_param=param
            )
            .filter(status__in=held)
            .order_by("-posterior_mean", "id")
            .first()
        )
        if sibling is not None:
            invalid = value_domains.domain(params.get(param, value_domains.UNKNOWN)).invalid
            links.append(
                {"param": param, "field": sibling.source_field, "transform": sibling.transform, "invalid": invalid}
            )
    return {**conditions, "companion_links": links}


def _request_conditions(edge: CandidateEdge) -> dict[str, Any]:
    """A binding's conditions on the source call: "without" (parameters it must not have) and "unless"
    (parameter -> values it must not have)."""
    provider = edge.source_tool.service.provider.code
    targets = (edge.domains or {}).get("target") or [None] * len(edge.source_fields)
    without: list[str] = []
    unless: dict[str, list[str]] = {}
    for name, target in zip(edge.source_fields, targets, strict=False):
        for param, values in value_domains.request_condition(name, provider=provider, target=target).items():
            if values:
                unless[param] = values
            elif param not in without:
                without.append(param)
    return {"without": without, "unless": unless}


def refinement_summary() -> dict[str, Any]:
    rows = CandidateEdge.objects.values("status", "trials_success", "trials_structural")
    return graph_engine.refinement_stats(
        {"status": r["status"], "success": r["trials_success"], "structural": r["trials_structural"]} for r in rows
    )


@transaction.atomic
def graph_snapshot_create(*, run: VerificationRun | None = None, user=None, note: str = "") -> GraphSnapshot:
    """Freeze the verified edges as a new version: node-link JSON, graph statistics, refinement figures."""
    nodes, rows = _graph_rows([CandidateEdge.Status.VERIFIED])
    graph = graph_engine.build_graph(nodes, rows)
    stats = graph_engine.graph_stats(graph)
    stats["candidates"] = dict(CandidateEdge.objects.values_list("status").annotate(n=Count("id")))
    version = (GraphSnapshot.objects.select_for_update().aggregate(v=Max("version"))["v"] or 0) + 1
    return GraphSnapshot.objects.create(
        version=version,
        run=run,
        node_link=graph_engine.to_node_link(graph),
        stats=stats,
        refinement=refinement_summary(),
        note=note[:300],
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )


def snapshot_graph(snapshot: GraphSnapshot):
    return graph_engine.from_node_link(snapshot.node_link)
