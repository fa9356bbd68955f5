"""The scheduler of a verification round: _RoundWorker holds a round's trial steps (inputs for the source, the
binding, the target's request, the specificity and confusion controls), _Pipeline keeps up to `concurrency`
calls in flight, shares identical calls, and stores each trial as soon as it settles (graphs/services/trials.py)."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import json
import logging
from collections import defaultdict, deque
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import Count

from apis.models import ApiCall, Tool
from apis.services import CallOptions, Execution, PendingExecution, ToolExecutionError, tool_execute_submit
from graphs.engine import domains as value_domains
from graphs.engine import posterior, transforms
from graphs.engine import trials as trial_engine
from graphs.engine.names import is_control_param
from graphs.engine.sampling import rng_for
from graphs.models import CandidateEdge, EdgeTrial, VerificationRun
from graphs.selectors import TRIAL_SOURCE_KIND
from graphs.services.domains import DomainCache
from graphs.services.trials import SEQ_STRIDE, _store_trial, _Trial
from kopa_site.progress import Reporter

logger = logging.getLogger(__name__)

RECORDED_INPUTS = 20  # recorded inputs per source tool offered to trials
ENV_RETRIES = 2  # a trial spoiled by a transient fault is run again this many times in its round


def _policy(params: dict[str, Any]) -> posterior.PosteriorPolicy:
    return posterior.PosteriorPolicy(**params.get("policy", {}))


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
        self.domains = DomainCache()

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
            _, domains = self.domains.tool_domains(tool)
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
        _, dst = self.domains.edge_domains(edge)
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
        src, dst = self.domains.edge_domains(edge)
        provider = edge.source_tool.service.provider.code
        effective = [
            value_domains.request_domain(name, domain, provider=provider, request=trial.source_params)
            for name, domain in zip(edge.source_fields, src, strict=True)
        ]
        trial.values["domains"] = {"source": effective, "target": dst}
        if effective != src and self.domains.domain_mismatch(edge, effective):
            # areaCode2's code is a 시군구 code when the request named an area: not this link's kind of value.
            trial.outcome = (posterior.SKIPPED, trial_engine.DOMAIN_BY_REQUEST)
            return None
        trial.values["echo"] = trial_engine.is_echo(
            binding.source_values, trial.source_params, edge.transform, binding.bound
        )
        siblings = self._sibling_values(edge, records[binding.record_index], set(binding.bound))
        trial.values.update(source_values=binding.source_values, bound=binding.bound, siblings=siblings)
        _, target_domains = self.domains.tool_domains(edge.target_tool)
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
        source_fields, _ = self.domains.tool_domains(edge.source_tool)
        target_fields, target_params = self.domains.tool_domains(edge.target_tool)
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
        _, dst = self.domains.edge_domains(trial.edge)
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
        _, dst = self.domains.edge_domains(trial.edge)
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
        _, dst = self.domains.edge_domains(edge)
        companions = {c for name in dst for c in value_domains.domain(name).companions}
        values: dict[str, str] = {}
        for sibling in self._siblings[key]:
            params = sibling.target_params
            if sibling.pk == edge.pk or set(params) & (bound | set(values)):
                continue
            if any(is_control_param(p) for p in params):
                continue
            name_score = (sibling.signals or {}).get("name", 0)
            companion = bool(companions) and set(self.domains.edge_domains(sibling)[1]) <= companions
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
        # Every call of the round is made the same way; only a source call expects no records.
        self.source_options = CallOptions(
            mode=self.params["mode"],
            sandbox_origin=self.params["sandbox_origin"] or None,
            source_kind=TRIAL_SOURCE_KIND,
            source_id=str(worker.run.pk),
        )
        self.step_options = dataclasses.replace(self.source_options, expect_records=True)

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
            options = self.source_options if stage == _SOURCE else self.step_options
            pending = tool_execute_submit(tool=tool, params=params, options=options)
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
