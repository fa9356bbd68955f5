"""Proposals: candidate links scored across the active catalog and stored as CandidateEdge rows, a candidate
added by hand, an edge reset to its prior, and the probe that gives proposals real values to learn from."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from apis.models import Tool
from apis.services import CallOptions, Execution, ToolExecutionError, tool_execute, tool_execute_many
from graphs.engine import posterior, transforms
from graphs.engine import trials as trial_engine
from graphs.engine.candidates import Candidate, MatchConfig, generate_candidates
from graphs.engine.names import is_control_param
from graphs.models import CandidateEdge
from graphs.selectors import active_tools, tool_infos
from graphs.services.domains import signal_domains, tool_domain
from graphs.services.errors import EdgeError
from kopa_site.progress import QuietReporter, Reporter

PROBE_SOURCE_KIND = "edge_probe"


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
    options = CallOptions(
        mode=mode,
        source_kind=source,
        source_id=source_id,
        expect_records=expect_records,
        sandbox_origin=sandbox_origin or None,
    )
    try:
        # One transaction for the batch's ApiCall rows: they are written after the calls return, and one
        # commit instead of one per row keeps SQLite from becoming the bottleneck.
        with transaction.atomic():
            return list(tool_execute_many(calls=list(calls), concurrency=concurrency, options=options))
    except ToolExecutionError:
        # One unusable call (e.g. a provider without a key) must not sink the batch: go one by one.
        out: list[Execution | ToolExecutionError] = []
        for tool, params in calls:
            try:
                out.append(tool_execute(tool=tool, params=params, options=options))
            except ToolExecutionError as exc:
                out.append(exc)
        return out


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
    tools = active_tools(tool_ids)
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
                    domains=signal_domains(candidate.signals),
                )
            )
            continue
        if edge.signals == candidate.signals and edge.score == candidate.score:
            report.unchanged += 1
            continue
        edge.signals, edge.score = candidate.signals, candidate.score
        edge.domains = signal_domains(candidate.signals)
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
    known_fields = {trial_engine.field_path(f) for f in source_tool.record_fields}
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
        "source": [tool_domain(source_tool, name, "field") for name in fields],
        "target": [tool_domain(target_tool, name, "param") for name in params],
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
