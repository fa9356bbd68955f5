"""Job kind of training: a TrainingRun's training process, on the one-worker gpu cluster."""

from __future__ import annotations

from kopa_site.jobs import JobContext, JobError, job_kind
from training.models import TrainingRun
from training.services import JOB_KIND, training_run_execute


@job_kind(JOB_KIND, cluster="gpu", title="Train a model (SFT warm start, then GRPO)")
def train(ctx: JobContext, run_id: int) -> dict:
    """Run (or resume) a training run's process; its metrics stream into the run, a failure keeps its log tail."""
    run = TrainingRun.objects.filter(pk=run_id).first()
    if run is None:
        raise JobError(f"training run #{run_id} does not exist")
    return training_run_execute(run=run, reporter=ctx)
