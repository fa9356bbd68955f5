"""Job kinds of KOPA-Bench: evaluate a model (an EvalRun) on the default cluster, or on the gpu cluster when it
needs a local checkpoint; either way a restarted job skips the episodes already stored."""

from __future__ import annotations

from benchmarks.models import EvalRun
from benchmarks.services import eval_run_job
from kopa_site.jobs import JobContext, JobError, job_kind


def _evaluate(ctx: JobContext, run_id: int) -> dict:
    run = EvalRun.objects.filter(pk=run_id).first()
    if run is None:
        raise JobError(f"evaluation run #{run_id} does not exist")
    return eval_run_job(run=run, reporter=ctx)


@job_kind("bench.evaluate", title="Evaluate a model on KOPA-Bench")
def evaluate(ctx: JobContext, run_id: int) -> dict:
    """Run an evaluation's missing episodes (OpenAI-compatible endpoint or oracle) and aggregate its scores."""
    return _evaluate(ctx, run_id)


@job_kind("bench.evaluate.gpu", cluster="gpu", title="Evaluate a local checkpoint on KOPA-Bench")
def evaluate_gpu(ctx: JobContext, run_id: int) -> dict:
    """The same on the one-worker gpu cluster: transformers in a fresh process, or vLLM started for the run."""
    return _evaluate(ctx, run_id)
