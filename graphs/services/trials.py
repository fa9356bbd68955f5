"""A trial while its round runs (_Trial: the calls, values and checks of one attempt) and how a settled trial is
stored: its EdgeTrial rows and its edge's posterior change in one transaction, once per attempt key."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import F

from apis.services import Execution
from graphs.engine import posterior
from graphs.engine import trials as trial_engine
from graphs.models import CandidateEdge, EdgeTrial, VerificationRun

SEQ_STRIDE = 3  # a round's attempt keys: main 3r, specificity control 3r + 1, confusion control 3r + 2


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
