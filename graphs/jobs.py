"""Job kinds of the EDGE graph: propose candidates, verify them in a resumable run, take a snapshot."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from graphs.models import VerificationRun
from graphs.services import edges_propose, graph_snapshot_create, verification_run_execute
from kopa_site.jobs import JobContext, JobError, job_kind
from kopa_site.models import Job
from kopa_site.roles import REVIEWER


def _user(ctx: JobContext):
    user_id = Job.objects.filter(pk=ctx.job_id).values_list("created_by_id", flat=True).first()
    return get_user_model().objects.filter(pk=user_id).first() if user_id else None


@job_kind("edge.propose", title="Propose candidate edges", startable_by=REVIEWER)
def propose(
    ctx: JobContext, probe: bool = False, tool_ids: list[int] | None = None, use_llm: bool | None = None
) -> dict:
    """Score output-field x input-parameter pairs across the catalog and store the candidates."""
    report = edges_propose(tool_ids=tool_ids, probe=probe, use_llm=use_llm, reporter=ctx)
    return report.to_dict()


@job_kind("edge.verify", title="Verify candidate edges")
def verify(ctx: JobContext, run_id: int) -> dict:
    """Run (or continue) a verification run's trial rounds; a restarted job skips the trials already stored."""
    run = VerificationRun.objects.filter(pk=run_id).first()
    if run is None:
        raise JobError(f"verification run #{run_id} does not exist")
    VerificationRun.objects.filter(pk=run.pk).update(job_id=ctx.job_id)
    counters = verification_run_execute(run=run, reporter=ctx)
    return {"run": run.pk, **counters}


@job_kind("graph.snapshot", title="Snapshot the verified graph", startable_by=REVIEWER)
def snapshot(ctx: JobContext, run_id: int | None = None, note: str = "") -> dict:
    """Freeze the verified edges as a new graph version with its statistics."""
    run = VerificationRun.objects.filter(pk=run_id).first() if run_id else None
    ctx.progress(0, 1, "building the graph")
    snap = graph_snapshot_create(run=run, user=_user(ctx), note=note)
    ctx.progress(1, 1, f"version {snap.version}: {snap.stats['nodes']} nodes, {snap.stats['edges']} edges")
    return {"snapshot": snap.pk, "version": snap.version, "stats": snap.stats}
