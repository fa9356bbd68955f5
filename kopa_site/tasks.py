"""django-q entry points: thin wrappers that take ids and call the job services."""

from kopa_site.jobs import job_run, jobs_sweep_stale


def run_job(job_id: int) -> str:
    return job_run(job_id=job_id)


def sweep_stale_jobs() -> str:
    swept = jobs_sweep_stale()
    return f"marked {len(swept)} stale job(s) failed: {swept}" if swept else "no stale jobs"
