"""Verification runs: create one with checked parameters, start or resume it as a job, and execute its rounds.

A run is resumable: each round's plan (its Thompson-sampled edges) is stored before any trial runs, and each
trial has a deterministic attempt key (run, edge, seq), so a restart repeats the same round and skips what is
stored. After each round the stop rules (graphs/engine/posterior.py) decide edges; the rounds themselves run in
graphs/services/rounds.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Count, F
from django.utils import timezone

from apis.services import MODES
from graphs.engine import posterior
from graphs.engine.sampling import Arm, thompson_pick
from graphs.models import CandidateEdge, EdgeTrial, VerificationRun
from graphs.selectors import run_counters
from graphs.services.domains import DomainCache
from graphs.services.errors import EdgeError
from graphs.services.rounds import _RoundWorker
from kopa_site.models import Job
from kopa_site.progress import QuietReporter, Reporter
from kopa_site.runs import run_mark_finished, run_mark_running, run_mark_stopped, run_start

UNDECIDED = (CandidateEdge.Status.PROPOSED, CandidateEdge.Status.VERIFYING)

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


def verification_run_resume(*, run: VerificationRun, user=None) -> Job:
    """Continue a stopped run in a new job; its stored trials are kept and skipped."""
    if run.status == VerificationRun.Status.FINISHED:
        raise EdgeError(f"run #{run.pk} has finished; there is nothing to resume")
    return verification_run_start(run=run, user=user)


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
    mismatched = _prune_domain_mismatches(run, worker.domains)
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
            decided = _decide([edge_id for edge_id, _ in plan], worker.policy)
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


def _prune_domain_mismatches(run: VerificationRun, cache: DomainCache) -> int:
    """Undecided edges whose domains cannot join (a planted 시군구 -> areaCode) are pruned with the reason
    before any call is made; every undecided edge in scope gets its domains recorded."""
    edges = CandidateEdge.objects.filter(status__in=UNDECIDED).select_related(
        "source_tool__service__provider", "target_tool__service__provider"
    )
    if run.params["edge_ids"]:
        edges = edges.filter(pk__in=run.params["edge_ids"])
    pruned = 0
    for edge in edges:
        src, dst = cache.edge_domains(edge)
        domains = {"source": src, "target": dst}
        reason = cache.domain_mismatch(edge)
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
