"""Pages of KOPA-Bench: the tasks with their facets and suite figures, a task's gold trajectory, models, runs
(start, resume, report), an episode beside its gold, and the leaderboard."""

from __future__ import annotations

import csv

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from benchmarks.engine.bfcl import DEFAULT_CATEGORIES
from benchmarks.engine.runner import RunConfig, initial_messages
from benchmarks.filtersets import EvalRunFilterSet, TaskFilterSet, TaskResultFilterSet
from benchmarks.forms import ModelEntryForm
from benchmarks.models import EvalRun, LeaderboardSettings, ModelEntry, TaskResult
from benchmarks.selectors import (
    EXPORT_COLUMNS,
    BoardQuery,
    bfcl_result_view,
    cross_pairs,
    export_rows,
    leaderboard,
    leaderboard_figures,
    model_list,
    result_list,
    result_view,
    run_list,
    run_report,
    suite_figures,
    task_facets,
    task_gold_view,
    task_list,
)
from benchmarks.services import (
    RUN_DEFAULTS,
    BenchConflict,
    BenchError,
    bfcl_run_create,
    eval_run_create,
    eval_run_resumable,
    eval_run_resume,
    eval_run_start,
    model_entry_create,
    model_entry_update,
)
from kopa_site.errors import parsed, refused_with, refuses_to, run_resume_view
from kopa_site.page_helpers import query_without_page, require_role, run_started
from kopa_site.roles import REVIEWER, has_role

PAGE_SIZE = 50
BOARD_PAGE_SIZE = 50  # rows (and models in the per-model charts) per leaderboard page; exports hold every row
RESULTS_PAGE_SIZE = 100


@login_required
@require_GET
def index(request):
    require_role(request)
    params = request.GET.copy()
    params.setdefault("active", "true")
    filterset = TaskFilterSet(params, queryset=task_list())
    tasks = filterset.qs.order_by("code")
    page = Paginator(tasks, PAGE_SIZE).get_page(request.GET.get("page"))
    active = list(task_list().filter(is_active=True))
    return render(
        request,
        "benchmarks/index.html",
        {
            "page": page,
            "matching": page.paginator.count,
            "facets": task_facets(active),
            "suite": suite_figures(active),
            "active_count": len(active),
            "values": params,
            "selected_difficulties": params.getlist("difficulty"),
            "query": query_without_page(request),
            "runs": run_list()[:5],
        },
    )


@login_required
@require_GET
def task_detail(request, code: str):
    require_role(request)
    task = get_object_or_404(task_list(), code=code)
    results = result_list().filter(task=task).order_by("-run__created_at", "seed")[:50]
    return render(
        request,
        "benchmarks/task_detail.html",
        {"task": task, "gold": task_gold_view(task), "results": results},
    )


@login_required
@require_GET
def model_list_page(request):
    require_role(request)
    return render(
        request,
        "benchmarks/model_list.html",
        {"models": model_list().order_by("name"), "can_edit": has_role(request.user, REVIEWER)},
    )


def _model_form(request, pk: int | None) -> tuple[ModelEntry | None, ModelEntryForm]:
    entry = get_object_or_404(ModelEntry, pk=pk) if pk is not None else None
    return entry, ModelEntryForm(request.POST or None, instance=entry)


def _model_page(request, entry: ModelEntry | None, form: ModelEntryForm, stored_now: list | None = None):
    return render(
        request,
        "benchmarks/model_form.html",
        {"form": form, "entry": entry, "stored_now": stored_now},
        status=409 if stored_now is not None else 200,
    )


def _model_refused(request, exc: Exception, pk: int | None = None):
    """A save the service refused: the form again, as typed, with the reason above it; over a change made since
    the form was read (409) also each field as it is stored now."""
    entry, form = _model_form(request, pk)
    form.is_valid()
    form.add_error(None, str(exc))
    stored_now = form.differences_from(ModelEntry.objects.get(pk=pk)) if isinstance(exc, BenchConflict) else None
    return _model_page(request, entry, form, stored_now)


@login_required
@require_http_methods(["GET", "POST"])
@refused_with(_model_refused)
def model_edit(request, pk: int | None = None):
    """Add (pk None) or change a model entry; reviewers and admins only."""
    require_role(request, REVIEWER)
    entry, form = _model_form(request, pk)
    if request.method != "POST" or not form.is_valid():
        return _model_page(request, entry, form)
    if entry is None:
        entry = model_entry_create(name=form.cleaned_data["name"], user=request.user, **form.fields_for_service())
        messages.success(request, gettext("Model %(name)s added.") % {"name": entry.name})
    else:
        fields = {"name": form.cleaned_data["name"], **form.fields_for_service()}
        entry = model_entry_update(
            entry=ModelEntry.objects.get(pk=entry.pk), expected_version=form.cleaned_data["version"], **fields
        )
        messages.success(
            request,
            gettext("Model %(name)s saved; runs made before keep the identity they had.") % {"name": entry.name},
        )
    return redirect("benchmarks:models")


@login_required
@require_GET
def run_list_page(request):
    require_role(request)
    filterset = EvalRunFilterSet(request.GET, queryset=run_list())
    page = Paginator(filterset.qs, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "benchmarks/run_list.html",
        {
            "page": page,
            "query": query_without_page(request),
            "can_review": has_role(request.user, REVIEWER),
            "models": ModelEntry.objects.order_by("name"),
            "defaults": RUN_DEFAULTS,
            "tool_modes": EvalRun.ToolMode.choices,
            "bfcl_default": DEFAULT_CATEGORIES,
        },
    )


@login_required
@require_GET
def run_detail(request, pk: int):
    require_role(request)
    run = get_object_or_404(run_list(), pk=pk)
    filterset = TaskResultFilterSet(request.GET, queryset=result_list().filter(run=run))
    results = filterset.qs.order_by("task__code", "seed")
    page = Paginator(results, RESULTS_PAGE_SIZE).get_page(request.GET.get("page"))
    report = run_report(run)
    return render(
        request,
        "benchmarks/run_detail.html",
        {
            "run": run,
            "report": report,
            "page": page,
            "query": query_without_page(request),
            "values": request.GET,
            "stored": TaskResult.objects.filter(run=run).count(),
            "can_resume": has_role(request.user, REVIEWER) and eval_run_resumable(run),
            "categories": [row["name"] for row in report["categories"]] if report else [],
        },
    )


def _int_list(text: str) -> list[int]:
    return [int(part) for part in text.replace(",", " ").split()]


@login_required
@require_POST
@refuses_to("benchmarks:runs")
def run_start(request):
    require_role(request, REVIEWER)
    form = request.POST
    model = ModelEntry.objects.filter(pk=form.get("model") or None).first()
    if model is None:
        messages.error(request, gettext("Choose a model; nothing was started."))
        return redirect("benchmarks:runs")
    numbers = gettext("Seeds, concurrency and max steps are whole numbers; nothing was started.")
    options = {
        "seeds": parsed(_int_list, form.get("seeds", "0"), refusal=numbers),
        "concurrency": parsed(int, form.get("concurrency") or str(RUN_DEFAULTS["concurrency"]), refusal=numbers),
        "max_steps": parsed(int, form.get("max_steps") or str(RUN_DEFAULTS["max_steps"]), refusal=numbers),
        "tool_mode": form.get("tool_mode") or RUN_DEFAULTS["tool_mode"],
    }
    codes = form.get("tasks", "").split()
    if form.get("benchmark") == "bfcl":
        limit = form.get("limit") or None
        if limit is not None and not limit.isdigit():
            raise BenchError("BFCL entries per category is a whole number; nothing was started.")
        run = bfcl_run_create(
            model=model,
            categories=form.get("categories", "").split() or DEFAULT_CATEGORIES,
            limit=int(limit) if limit else None,
            user=request.user,
            seeds=options["seeds"],
            concurrency=options["concurrency"],
        )
    else:
        run = eval_run_create(model=model, task_codes=codes or None, user=request.user, **options)
    job = eval_run_start(run=run, user=request.user)
    message = gettext("Run #%(run)s of %(name)s started as job #%(job)s.")
    return run_started(request, run=run, job=job, message=message, name=model.name)


run_resume = run_resume_view(
    model=EvalRun,
    resume=eval_run_resume,
    message=gettext_noop("Run #%(run)s continues as job #%(job)s; its stored episodes are kept."),
)


@login_required
@require_GET
def result_detail(request, pk: int):
    require_role(request)
    result = get_object_or_404(TaskResult.objects.select_related("task", "run__model"), pk=pk)
    siblings = list(
        TaskResult.objects.filter(run=result.run_id).order_by("task__code", "seed").values_list("pk", flat=True)
    )
    index = siblings.index(result.pk)
    if result.run.benchmark == "bfcl":
        return render(
            request,
            "benchmarks/bfcl_result_detail.html",
            {
                "result": result,
                "view": bfcl_result_view(result),
                "previous": siblings[index - 1] if index > 0 else None,
                "next": siblings[index + 1] if index + 1 < len(siblings) else None,
            },
        )
    return render(
        request,
        "benchmarks/result_detail.html",
        {
            "result": result,
            "view": result_view(result),
            # Runs use the engine's default system prompt, so this is what the model was sent first.
            "prompt": initial_messages(result.task.to_engine(), RunConfig()),
            "previous": siblings[index - 1] if index > 0 else None,
            "next": siblings[index + 1] if index + 1 < len(siblings) else None,
        },
    )


@require_GET
def leaderboard_page(request):
    """The leaderboard, its CSV and JSON export (?format=csv|json, same filters). Signed-in users with a role
    read it; anyone does when an admin made it public (LeaderboardSettings)."""
    public = LeaderboardSettings.current().public
    if not request.user.is_authenticated and not public:
        return redirect_to_login(request.get_full_path())
    if request.user.is_authenticated and not public:
        require_role(request)
    query = BoardQuery.from_params(request.GET)
    export = request.GET.get("format")
    board = leaderboard(query, charts=False, cross=False)
    if export == "json":
        return JsonResponse(
            {
                "board": board["set"],
                "query": query.__dict__,
                "categories": board["categories"],
                "rows": export_rows(board),
            },
            json_dumps_params={"ensure_ascii": False},
        )
    if export == "csv":
        return _csv_response(board)
    params = request.GET.copy()
    for name in ("sort", "dir", "format", "page"):
        params.pop(name, None)
    page = Paginator(board["rows"], BOARD_PAGE_SIZE).get_page(request.GET.get("page"))
    if board["rows"]:
        # The charts and their tables follow the page: the models on it, their pairs, their KOPA-vs-BFCL points.
        on_page = {row["model_id"] for row in page.object_list}
        board["pairs"] = [pair for pair in board["pairs"] if pair["tuned"]["model_id"] in on_page]
        board["cross"] = cross_pairs(
            board["set"], board["other"], list(page.object_list), query.pick, stamp=board["stamp"]
        )
        board["figures"] = leaderboard_figures(board, list(page.object_list))
    return render(
        request,
        "benchmarks/leaderboard.html",
        {
            "board": board,
            "page": page,
            "page_rows": list(page.object_list),
            "query": query_without_page(request),
            "full": request.GET.get("cols") == "all",
            "query_string": params.urlencode(),
            "signed_in": request.user.is_authenticated,
            "sort_columns": SORT_COLUMNS,
        },
    )


SORT_COLUMNS = {"rank", "model", "params", "success", "pass1", "pass4", "calls", "tokens", "latency", "cost", "date"}


def _csv_response(board) -> HttpResponse:
    rows = export_rows(board)
    columns = [*EXPORT_COLUMNS, *(f"cat:{c}" for c in board["categories"])]
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    short = board["set"]["short"] if board["set"] else "empty"
    response["Content-Disposition"] = f'attachment; filename="leaderboard-{short}.csv"'
    writer = csv.DictWriter(response, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return response
