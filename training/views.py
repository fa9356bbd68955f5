"""Pages of the training app: runs (list, detail with curves, config, log and checkpoints), start, cancel, resume."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_GET, require_POST

from datasets.selectors import version_list
from kopa_site.errors import parsed, refused_with, refuses_to, run_resume_view
from kopa_site.page_helpers import require_role, run_started
from kopa_site.roles import REVIEWER, has_role
from training.engine.presets import PRESETS
from training.models import TrainingRun
from training.selectors import comparison, run_charts, run_checkpoints, run_list, run_log
from training.services import (
    TrainingError,
    training_run_cancel,
    training_run_create,
    training_run_resumable,
    training_run_resume,
    training_run_start,
)

PAGE_SIZE = 50


def _index(request, *, form=None, status: int = 200):
    """The runs and the start form (`form`: what was posted, shown again when the start was refused)."""
    page = Paginator(run_list(), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "training/index.html",
        {
            "page": page,
            "can_start": has_role(request.user, REVIEWER),
            "presets": PRESETS,
            "tool_modes": TrainingRun.ToolMode.choices,
            "versions": version_list(),
            "form": form if form is not None else {},
        },
        status=status,
    )


@login_required
@require_GET
def index(request):
    require_role(request)
    return _index(request)


@login_required
@require_GET
def run_detail(request, pk: int):
    require_role(request)
    run = get_object_or_404(run_list(), pk=pk)
    can_review = has_role(request.user, REVIEWER)
    return render(
        request,
        "training/run_detail.html",
        {
            "run": run,
            "charts": run_charts(run),
            "checkpoints": run_checkpoints(run),
            "log": run_log(run),
            "config": json.dumps(run.config, ensure_ascii=False, indent=2),
            "comparison": comparison(run),
            "can_resume": can_review and run.status != TrainingRun.Status.PENDING and training_run_resumable(run),
            "can_cancel": can_review and run.job is not None and not run.job.is_finished,
        },
    )


def _overrides(text: str) -> dict:
    if not text.strip():
        return {}
    value = parsed(json.loads, text, refusal="overrides are a JSON object (%(error)s)")
    if not isinstance(value, dict):
        raise TrainingError('overrides are a JSON object, e.g. {"grpo.steps": 50}')
    return value


def _version(value: str):
    version = version_list().filter(pk=int(value)).first() if value.strip().isdigit() else None
    if version is None:
        raise TrainingError("pick a frozen dataset version (freeze one on the review console's Versions page)")
    return version


def _start_refused(request, exc: Exception):
    """A start refused: the list again with the reason, and the form as it was filled in (400)."""
    messages.error(request, gettext("Nothing was started: %(exc)s") % {"exc": exc})
    return _index(request, form=request.POST, status=400)


@login_required
@require_POST
@refused_with(_start_refused)
def run_start(request):
    require_role(request, REVIEWER)
    form = request.POST
    run = training_run_create(
        preset=form.get("preset", ""),
        dataset_version=_version(form.get("dataset_version", "")),
        base_model_path=form.get("base_model_path", ""),
        overrides=_overrides(form.get("overrides", "")),
        tool_mode=form.get("tool_mode") or TrainingRun.ToolMode.SANDBOX,
        name=form.get("name", "").strip(),
        user=request.user,
    )
    job = training_run_start(run=run, user=request.user)
    message = gettext("Training run #%(run)s queued as job #%(job)s on the gpu queue.")
    return run_started(request, run=run, job=job, message=message)


@login_required
@require_POST
@refuses_to("training:run", also=(PermissionDenied,))
def run_cancel(request, pk: int):
    require_role(request, REVIEWER)
    run = get_object_or_404(TrainingRun, pk=pk)
    training_run_cancel(run=run, user=request.user)
    messages.success(
        request,
        gettext("Cancel requested: run #%(run)s stops at its next check; resume continues it.") % {"run": run.pk},
    )
    return redirect("training:run", pk=run.pk)


run_resume = run_resume_view(
    model=TrainingRun,
    resume=training_run_resume,
    message=gettext_noop("Run #%(run)s continues from its last checkpoint as job #%(job)s."),
)
