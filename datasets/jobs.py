"""Job kinds of the trajectories app: a synthesis run over a graph snapshot."""

from __future__ import annotations

from datasets.models import SynthesisRun
from datasets.services import synthesis_run_execute
from kopa_site.jobs import JobContext, JobError, job_kind


@job_kind("edge.synthesize", title="Synthesize trajectories")
def synthesize(ctx: JobContext, run_id: int) -> dict:
    """Walk the run's graph snapshot, execute each walk, phrase it in Korean, filter and store it."""
    run = SynthesisRun.objects.select_related("snapshot").filter(pk=run_id).first()
    if run is None:
        raise JobError(f"synthesis run #{run_id} does not exist")
    SynthesisRun.objects.filter(pk=run.pk).update(job_id=ctx.job_id)
    counters = synthesis_run_execute(run=run, reporter=ctx)
    return {"run": run.pk, **{k: counters[k] for k in ("attempts", "kept", "filtered", "duplicates", "calls")}}
