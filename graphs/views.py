"""Pages of the EDGE graph: the network, the edge list and each edge's trials, runs and snapshots."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_GET, require_POST

from graphs.engine import transforms
from graphs.filtersets import CandidateEdgeFilterSet
from graphs.models import CandidateEdge, GraphSnapshot, VerificationRun
from graphs.selectors import (
    EDGE_ORDERINGS,
    STATUS_COLOURS,
    domain_rows,
    edge_domains,
    edge_list,
    edge_posterior,
    edge_trials,
    network_edges,
    network_figure,
    posterior_figure,
    providers,
    refinement_figure,
    refinement_summary,
    run_list,
    snapshot_export,
    snapshot_list,
    status_counts,
    trial_outcome_text,
)
from graphs.services import (
    RUN_DEFAULTS,
    graph_snapshot_create,
    verification_run_create,
    verification_run_resume,
    verification_run_start,
)
from kopa_site.errors import posted_whole_numbers, refuses_to, run_resume_view
from kopa_site.jobs import job_start
from kopa_site.page_helpers import query_without_page, require_role, run_started
from kopa_site.roles import REVIEWER, has_role

PAGE_SIZE = 50
NETWORK_LIMIT = 1500  # edges drawn at most; the list page shows the rest


@login_required
@require_GET
def index(request):
    require_role(request)
    statuses = [s for s in request.GET.getlist("status") if s in CandidateEdge.Status.values] or [
        CandidateEdge.Status.VERIFIED,
        CandidateEdge.Status.VERIFYING,
    ]
    provider = request.GET.get("provider", "")
    domain = request.GET.get("domain", "")
    edges = network_edges(statuses=statuses, provider=provider, domain=domain).order_by("-posterior_mean", "id")
    shown = list(edges[:NETWORK_LIMIT])
    counts = status_counts()
    latest = snapshot_list().first()
    refinement = latest.refinement if latest else refinement_summary()
    return render(
        request,
        "graphs/index.html",
        {
            "figure": network_figure(shown) if shown else None,
            "shown": len(shown),
            "total_shown": edges.count(),
            "counts": counts,
            "total": sum(counts.values()),
            "statuses": statuses,
            "status_choices": [(s, label, STATUS_COLOURS[s]) for s, label in CandidateEdge.Status.choices],
            "providers": providers(),
            "provider": provider,
            "domain": domain,
            "domains": edge_domains(),
            "latest": latest,
            "refinement": refinement,
            "refinement_figure": refinement_figure(refinement),
            "runs": run_list()[:5],
            "can_review": has_role(request.user, REVIEWER),
            "run_defaults": RUN_DEFAULTS,
        },
    )


@login_required
@require_GET
def edge_list_page(request):
    require_role(request)
    filterset = CandidateEdgeFilterSet(request.GET, queryset=edge_list())
    order = request.GET.get("order", "posterior")
    queryset = filterset.qs.order_by(*EDGE_ORDERINGS.get(order, EDGE_ORDERINGS["posterior"]))
    page = Paginator(queryset, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "filterset": filterset,
        "page": page,
        "query": query_without_page(request),
        "order": order,
        "orders": list(EDGE_ORDERINGS),
        "providers": providers(),
        "domains": edge_domains(),
        "values": request.GET,
        "selected_statuses": request.GET.getlist("status"),
        "status_choices": CandidateEdge.Status.choices,
    }
    template = "graphs/_edge_table.html" if request.headers.get("HX-Request") else "graphs/edge_list.html"
    return render(request, template, context)


@login_required
@require_GET
def edge_detail(request, pk: int):
    require_role(request)
    edge = get_object_or_404(edge_list(), pk=pk)
    trials = list(edge_trials(edge=edge)[:500])
    for trial in trials:
        trial.outcome_text = trial_outcome_text(trial)
    try:
        transform_text = transforms.describe(edge.transform)
    except transforms.TransformError:
        transform_text = ""
    return render(
        request,
        "graphs/edge_detail.html",
        {
            "edge": edge,
            "trials": trials,
            "posterior": edge_posterior(edge),
            "posterior_figure": posterior_figure(edge),
            "transform_text": transform_text,
            "signals": [
                (k, v) for k, v in (edge.signals or {}).items() if k not in ("total", "domains", "domain_factor")
            ],
            "domain_rows": domain_rows(edge),
        },
    )


@login_required
@require_GET
def run_list_page(request):
    require_role(request)
    page = Paginator(run_list(), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "graphs/run_list.html", {"page": page, "can_review": has_role(request.user, REVIEWER)})


def _run_context(request, pk: int) -> dict:
    run = get_object_or_404(run_list(), pk=pk)
    decided = run.counters.get("edges", {}) if run.counters else {}
    job_working = bool(run.job_id) and not run.job.is_finished
    return {
        "run": run,
        "decided": decided,
        "can_review": has_role(request.user, REVIEWER),
        # Live while its job works (or a run is pending its job); Resume only once no job works on it.
        "running": job_working or run.status == VerificationRun.Status.RUNNING and not run.job_id,
        "resumable": run.status != VerificationRun.Status.FINISHED and not job_working,
    }


@login_required
@require_GET
def run_detail(request, pk: int):
    require_role(request)
    return render(request, "graphs/run_detail.html", _run_context(request, pk))


@login_required
@require_GET
def run_live(request, pk: int):
    """The changing part of a run's page, fetched every 2 s by htmx while the run's job works."""
    require_role(request)
    return render(request, "graphs/_run_live.html", _run_context(request, pk))


@login_required
@require_POST
@refuses_to("graphs:index")
def run_start(request):
    require_role(request, REVIEWER)
    params = posted_whole_numbers(request, ("rounds", "batch_size", "n_max"))
    run = verification_run_create(params=params, user=request.user)
    job = verification_run_start(run=run, user=request.user)
    return run_started(request, run=run, job=job, message=gettext("Verification run #%(run)s started as job #%(job)s."))


run_resume = run_resume_view(
    model=VerificationRun,
    resume=verification_run_resume,
    message=gettext_noop("Run #%(run)s continues as job #%(job)s; its stored trials are kept."),
)


@login_required
@require_POST
@refuses_to("graphs:index")
def propose_start(request):
    require_role(request, REVIEWER)
    job = job_start(kind="edge.propose", params={"probe": request.POST.get("probe") == "on"}, user=request.user)
    messages.success(request, gettext("Proposal job #%(job)s started.") % {"job": job.pk})
    return redirect("jobs:detail", pk=job.pk)


@login_required
@require_GET
def snapshot_list_page(request):
    require_role(request)
    page = Paginator(snapshot_list(), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "graphs/snapshot_list.html", {"page": page, "can_review": has_role(request.user, REVIEWER)})


@login_required
@require_POST
def snapshot_take(request):
    require_role(request, REVIEWER)
    snap = graph_snapshot_create(user=request.user, note=request.POST.get("note", ""))
    messages.success(request, gettext("Snapshot version %(version)s taken.") % {"version": snap.version})
    return redirect("graphs:snapshot", pk=snap.pk)


@login_required
@require_GET
def snapshot_detail(request, pk: int):
    require_role(request)
    snap = get_object_or_404(snapshot_list(), pk=pk)
    chains = sorted(((int(k), v) for k, v in snap.stats.get("chain_lengths", {}).items()))
    return render(
        request,
        "graphs/snapshot_detail.html",
        {
            "snap": snap,
            "chains": chains,
            "refinement_figure": refinement_figure(snap.refinement),
            "refinement_rows": [
                (name, snap.refinement.get(name, {})) for name in ("before", "after", "verified", "pruned")
            ],
        },
    )


@login_required
@require_GET
def snapshot_download(request, pk: int, fmt: str):
    require_role(request)
    snap = get_object_or_404(GraphSnapshot, pk=pk)
    try:
        body, content_type, filename = snapshot_export(snap, fmt)
    except ValueError as exc:
        raise Http404(str(exc)) from None
    response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
