"""Pages of the trajectories app: synthesis runs (start, follow, discards and diversity) and a read-only
trajectory list and detail. Reviewing and editing trajectories is the review console's."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import Truncator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST

from datasets.engine.filters import STAGES
from datasets.filtersets import TrajectoryFilterSet
from datasets.models import SynthesisRun, Trajectory
from datasets.selectors import run_list, status_counts, trajectory_detail, trajectory_list
from datasets.services import RUN_DEFAULTS, synthesis_run_create, synthesis_run_start
from graphs.engine.walk import JUNCTIONS, STRATEGIES
from graphs.models import GraphSnapshot
from kopa_site.errors import posted_whole_numbers, refuses_to
from kopa_site.page_helpers import require_role, run_started
from kopa_site.roles import REVIEWER, has_role

PAGE_SIZE = 50
DISCARD_EXAMPLE_CHARS = 240
_NUMBERS = ("count", "max_attempts", "min_length", "max_length", "concurrency")


def _snapshots():
    return GraphSnapshot.objects.defer("node_link").order_by("-version")[:50]


@login_required
@require_GET
def index(request):
    require_role(request)
    counts = status_counts()
    return render(
        request,
        "datasets/index.html",
        {
            "counts": counts,
            "status_rows": [(status, Trajectory.Status(status).label, n) for status, n in counts.items()],
            "total": sum(counts.values()),
            "runs": run_list()[:5],
            "recent": trajectory_list().exclude(status=Trajectory.Status.FILTERED)[:10],
            "can_review": has_role(request.user, REVIEWER),
            "defaults": RUN_DEFAULTS,
            "junctions": JUNCTIONS,
            "strategies": STRATEGIES,
            "snapshots": _snapshots(),
        },
    )


@login_required
@require_POST
@refuses_to("datasets:index")
def run_start(request):
    require_role(request, REVIEWER)
    params: dict = posted_whole_numbers(request, _NUMBERS)
    for name in ("strategy", "generator", "seed"):
        value = request.POST.get(name, "").strip()
        if value:
            params[name] = value
    junctions = request.POST.getlist("junctions")
    if junctions:
        params["junctions"] = junctions
    snapshot = None
    if request.POST.get("snapshot"):
        snapshot = GraphSnapshot.objects.defer("node_link").filter(pk=request.POST["snapshot"]).first()
        if snapshot is None:
            messages.error(request, gettext("That graph snapshot does not exist; nothing was started."))
            return redirect("datasets:index")
    run = synthesis_run_create(params=params, snapshot=snapshot, user=request.user)
    job = synthesis_run_start(run=run, user=request.user)
    return run_started(request, run=run, job=job, message=gettext("Synthesis run #%(run)s started as job #%(job)s."))


@login_required
@require_GET
def run_list_page(request):
    require_role(request)
    page = Paginator(run_list(), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "datasets/run_list.html", {"page": page})


def _table(counts: dict | None) -> list[tuple[str, int]]:
    return sorted(((str(k), int(v)) for k, v in (counts or {}).items()), key=lambda kv: (-kv[1], kv[0]))


def _discard_rows(counters: dict) -> list[tuple[str, int, str]]:
    """(reason, walks, examples): the examples joined and cut as plain text, so the page escapes them once.
    Cutting after escaping split entities apart and showed `&#x27…` (issue 18)."""
    samples = counters.get("samples") or {}
    return [
        (reason, n, Truncator(" · ".join(map(str, samples.get(reason) or ()))).chars(DISCARD_EXAMPLE_CHARS))
        for reason, n in _table(counters.get("discarded"))
    ]


@login_required
@require_GET
def run_detail(request, pk: int):
    require_role(request)
    run = get_object_or_404(run_list(), pk=pk)
    counters = run.counters or {}
    diversity = run.diversity or {}
    context = {
        "run": run,
        "counters": counters,
        "discarded": _discard_rows(counters),
        "failed_filters": _table(counters.get("failed_filters")),
        "diversity": diversity,
        "diversity_tables": [
            (title, _table(diversity.get(key)))
            for title, key in (
                (_("Junction types"), "junctions"),
                (_("Providers"), "providers"),
                (_("Tools"), "tools"),
                (_("Generators"), "generators"),
            )
        ],
        "lengths": sorted(((int(k), v) for k, v in (diversity.get("lengths") or {}).items())),
        "live": run.status in (SynthesisRun.Status.PENDING, SynthesisRun.Status.RUNNING),
    }
    template = "datasets/_run_live.html" if request.headers.get("HX-Request") else "datasets/run_detail.html"
    return render(request, template, context)


@login_required
@require_GET
def trajectory_list_page(request):
    require_role(request)
    filterset = TrajectoryFilterSet(request.GET, queryset=trajectory_list())
    page = Paginator(filterset.qs, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "filterset": filterset,
        "page": page,
        "query": query.urlencode(),
        "values": request.GET,
        "selected_statuses": request.GET.getlist("status"),
        "status_choices": Trajectory.Status.choices,
        "junctions": JUNCTIONS,
    }
    template = (
        "datasets/_trajectory_table.html" if request.headers.get("HX-Request") else "datasets/trajectory_list.html"
    )
    return render(request, template, context)


@login_required
@require_GET
def trajectory_detail_page(request, pk: int):
    require_role(request)
    trajectory = get_object_or_404(trajectory_detail(), pk=pk)
    calls = list(trajectory.calls.all())
    steps = []
    for step in trajectory.steps.all():
        steps.append({"step": step, "calls": [c for c in calls if c.step_id == step.pk]})
    facts = trajectory.facts or {}
    return render(
        request,
        "datasets/trajectory_detail.html",
        {
            "t": trajectory,
            "steps": steps,
            "calls": calls,
            "facts": facts,
            "filters": [
                (stage, trajectory.filters.get(stage) or {}) for stage in STAGES if stage in trajectory.filters
            ],
        },
    )
