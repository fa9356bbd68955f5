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


@job_kind("dataset.export", title="Export a dataset version")
def export_dataset_version(ctx: JobContext, version_id: int) -> dict:
    """Write a frozen dataset version as OpenAI JSONL and a Hugging Face folder, where training reads it."""
    from datasets.models import DatasetVersion
    from datasets.review import ReviewError, dataset_version_write_export

    version = DatasetVersion.objects.filter(pk=version_id).first()
    if version is None:
        raise JobError(f"dataset version #{version_id} does not exist")
    try:
        report = dataset_version_write_export(version=version)
    except ReviewError as exc:
        raise JobError(str(exc)) from None
    ctx.log(f"wrote {len(report.files)} files to {version.export_path}")
    return {"version": version.name, "folder": version.export_path, **report.counts}
