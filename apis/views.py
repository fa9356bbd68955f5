"""Pages of the API catalog: browse providers, services and tools; try a tool; read the call log; check drift."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from apis.engine.raw_body import pretty_body
from apis.filtersets import ApiCallFilterSet, ToolFilterSet
from apis.forms import BaseUrlForm, CredentialForm, TryItForm, ordered_parameters
from apis.models import ApiCall, ApiService, Tool
from apis.sandbox_hosts import tool_sandbox_check, tool_sandbox_emulated, tool_sandbox_host
from apis.selectors import (
    call_list,
    call_result,
    credential_status,
    families,
    provider_list,
    service_with_tools,
    tool_function_schema,
    tool_list,
    tool_recent_calls,
)
from apis.services import (
    CallOptions,
    credential_clear,
    credential_set,
    drift_check,
    error_class_label,
    service_set_base_url,
    tool_execute,
    tool_params_check,
)
from kopa_site.errors import refused_with, refuses_to
from kopa_site.jobs import job_start
from kopa_site.page_helpers import query_without_page, require_role
from kopa_site.roles import ADMIN, REVIEWER, has_role

PAGE_SIZE = 50
RECORD_ROWS = 50
RECORD_COLUMNS = 40


def _pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def records_table(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Columns (the union of keys, first-seen order) and rows for the first RECORD_ROWS records."""
    shown = records[:RECORD_ROWS]
    columns: list[str] = []
    for record in shown:
        columns += [key for key in record if key not in columns]
    columns = columns[:RECORD_COLUMNS]
    return {
        "columns": columns,
        "rows": [["" if record.get(c) is None else record.get(c) for c in columns] for record in shown],
        "hidden_rows": max(0, len(records) - len(shown)),
    }


# --- Catalog ------------------------------------------------------------------------------------------


@login_required
@require_GET
def index(request):
    require_role(request)
    data = request.GET.copy()
    data.setdefault("is_active", "true")
    filterset = ToolFilterSet(data, queryset=tool_list())
    tools = filterset.qs if filterset.is_valid() else Tool.objects.none()
    page = Paginator(tools, PAGE_SIZE).get_page(request.GET.get("page"))
    providers = list(provider_list())
    return render(
        request,
        "apis/index.html",
        {
            "page": page,
            "filterset": filterset,
            "providers": providers,
            "families": families(),
            "q": request.GET.get("q", ""),
            "selected_provider": request.GET.get("provider", ""),
            "selected_family": request.GET.get("family", ""),
            "show_inactive": data.get("is_active") == "false",
            "query": query_without_page(request),
            "can_import": has_role(request.user, REVIEWER),
            "tool_total": sum(p.tool_count for p in providers),
        },
    )


@login_required
@require_POST
@refuses_to("apis:index")
def import_bundled(request):
    require_role(request, REVIEWER)
    job = job_start(kind="catalog.import_bundled", user=request.user)
    messages.success(request, gettext("Importing the bundled catalog as job #%(job)s.") % {"job": job.pk})
    return redirect("jobs:detail", pk=job.pk)


@login_required
@require_GET
def service_detail(request, pk: int):
    require_role(request)
    try:
        service = service_with_tools(pk=pk)
    except ApiService.DoesNotExist:
        raise Http404("No such service.") from None
    is_admin = has_role(request.user, ADMIN)
    return render(
        request,
        "apis/service_detail.html",
        {
            "service": service,
            "tools": list(service.tools.all()),
            "credential": credential_status(provider=service.provider),
            "is_admin": is_admin,
            "credential_form": CredentialForm() if is_admin else None,
            "base_url_form": BaseUrlForm(initial={"base_url": service.base_url}) if is_admin else None,
            "key_slot": service.key_slot or {},
        },
    )


@login_required
@require_POST
@refuses_to("apis:service")
def service_credential(request, pk: int):
    """Set or clear the provider's service key (admins). The key is never sent back."""
    require_role(request, ADMIN)
    service = get_object_or_404(ApiService.objects.select_related("provider"), pk=pk)
    if request.POST.get("action") == "clear":
        removed = credential_clear(provider=service.provider, user=request.user)
        messages.success(request, "Service key removed." if removed else "No service key was set.")
        return redirect("apis:service", pk=pk)
    form = CredentialForm(request.POST)
    if form.is_valid():
        credential_set(provider=service.provider, service_key=form.cleaned_data["service_key"], user=request.user)
        messages.success(
            request, gettext("Service key for %(display_name)s set.") % {"display_name": service.provider.display_name}
        )
    else:
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
    return redirect("apis:service", pk=pk)


@login_required
@require_POST
@refuses_to("apis:service")
def service_base_url(request, pk: int):
    require_role(request, ADMIN)
    service = get_object_or_404(ApiService, pk=pk)
    form = BaseUrlForm(request.POST)
    if form.is_valid():
        service_set_base_url(service=service, base_url=form.cleaned_data["base_url"], user=request.user)
        messages.success(request, gettext("Live base URL set to %(base_url)s.") % {"base_url": service.base_url})
    else:
        messages.error(request, gettext("Enter a valid http(s) URL."))
    return redirect("apis:service", pk=pk)


# --- Tools --------------------------------------------------------------------------------------------


def _tool_context(request, tool: Tool, form: TryItForm) -> dict[str, Any]:
    return {
        "tool": tool,
        "service": tool.service,
        "parameters": ordered_parameters(tool),
        "function_schema_json": _pretty_json(tool_function_schema(tool)),
        "recent_calls": tool_recent_calls(tool=tool),
        "form": form,
        "sandbox_emulated": tool_sandbox_emulated(tool),
        "sandbox_host": tool_sandbox_host(tool),
    }


@login_required
@require_GET
def tool_detail(request, pk: int):
    require_role(request)
    tool = get_object_or_404(tool_list(), pk=pk)
    return render(
        request, "apis/tool_detail.html", _tool_context(request, tool, TryItForm(tool=tool, user=request.user))
    )


def _result_context(execution=None, error: str = "") -> dict[str, Any]:
    if execution is None:
        return {"error": error}
    result = execution.result
    return {
        "call": execution.call,
        "result": result,
        "records": records_table(result.records),
        "raw": pretty_body(result.raw),
        "error_label": error_class_label(result.error_class or ""),
    }


def _try_form(request, pk: int) -> tuple[Tool, TryItForm]:
    tool = get_object_or_404(tool_list(), pk=pk)
    return tool, TryItForm(request.POST, tool=tool, user=request.user)


def _tried(request, tool: Tool, form: TryItForm, context: dict[str, Any]):
    """The outcome of a try: htmx swaps in the result, a plain POST gets the whole page."""
    if request.headers.get("HX-Request"):
        # The call just made joins "Recent calls" in the same swap (out of band), not on the next reload.
        context.update(tool=tool, recent_calls=tool_recent_calls(tool=tool), recent_calls_oob=True)
        return render(request, "apis/_try_result.html", context)
    return render(request, "apis/tool_detail.html", {**_tool_context(request, tool, form), **context, "tried": True})


def _try_refused(request, exc: Exception, pk: int):
    """A call refused before or while it was made: the reason where its result would have been."""
    tool, form = _try_form(request, pk)
    form.is_valid()
    return _tried(request, tool, form, _result_context(error=str(exc)))


@login_required
@require_POST
@refused_with(_try_refused)
def tool_try(request, pk: int):
    """Execute the tool with the form's parameters and show the result."""
    require_role(request)
    tool, form = _try_form(request, pk)
    if not form.is_valid():
        return _tried(request, tool, form, {"form_errors": form.errors})
    tool_params_check(tool=tool, params=form.params())
    if form.cleaned_data["mode"] == ApiCall.Mode.SANDBOX:
        tool_sandbox_check(tool=tool)
    options = CallOptions(
        mode=form.cleaned_data["mode"],
        service_key=form.cleaned_data.get("service_key") or None,
        user=request.user,
        source_kind="page",
    )
    execution = tool_execute(tool=tool, params=form.params(), options=options)
    return _tried(request, tool, form, _result_context(execution))


# --- Calls --------------------------------------------------------------------------------------------


@login_required
@require_GET
def call_log(request):
    require_role(request)
    filterset = ApiCallFilterSet(request.GET, queryset=call_list())
    calls = filterset.qs if filterset.is_valid() else ApiCall.objects.none()
    page = Paginator(calls, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "apis/call_list.html",
        {
            "page": page,
            "filterset": filterset,
            "modes": ApiCall.Mode.choices,
            "selected_modes": request.GET.getlist("mode"),
            "values": request.GET,
            "query": query_without_page(request),
        },
    )


@login_required
@require_GET
def call_detail(request, pk: int):
    require_role(request)
    call = get_object_or_404(ApiCall.objects.select_related("tool__service__provider", "created_by"), pk=pk)
    result = call_result(call)
    return render(
        request,
        "apis/call_detail.html",
        {
            "call": call,
            "result": result,
            "records": records_table(result.records) if result else None,
            "raw": pretty_body(call.body_text),
            "request_json": _pretty_json(call.request),
            "params_json": _pretty_json(call.params),
            "error_label": error_class_label(call.error_class),
            "can_drift": has_role(request.user, REVIEWER) and call.tool_id is not None and call.has_body,
        },
    )


def _drift_refused(request, exc: Exception, pk: int):
    """A drift check that could not run: the reason in the fragment (htmx), or as a message on the call's page."""
    if request.headers.get("HX-Request"):
        return render(request, "apis/_drift.html", {"drift_error": str(exc)})
    messages.error(request, str(exc))
    return redirect("apis:call", pk=pk)


@login_required
@require_POST
@refused_with(_drift_refused)
def call_drift(request, pk: int):
    require_role(request, REVIEWER)
    call = get_object_or_404(ApiCall.objects.select_related("tool__service__provider"), pk=pk)
    drift = drift_check(call=call, mode=request.POST.get("mode") or None, user=request.user).to_dict()
    if request.headers.get("HX-Request"):
        return render(request, "apis/_drift.html", {"drift": drift})
    messages.info(request, gettext("Drift check: %(summary)s") % {"summary": drift["summary"]})
    return redirect("apis:call", pk=pk)
