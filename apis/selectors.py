"""Reads of the API catalog: lists for pages and the API, tools as LLM function schemas and back, stored results.

Function names come from Tool.function_name (unique, kept across re-imports), so a schema exported today maps
back to the same Tool tomorrow; parameter aliases (for names a function-calling API rejects) come from the
engine (apis/engine/function_schema.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import BooleanField, Count, ExpressionWrapper, Prefetch, Q, QuerySet

from apis.engine.function_schema import FunctionToolset, function_schema
from apis.engine.normalize import NormalizedResult, normalize
from apis.models import ApiCall, ApiService, Credential, Provider, Tool


def provider_list() -> QuerySet[Provider]:
    return Provider.objects.annotate(
        service_count=Count("services", distinct=True),
        tool_count=Count("services__tools", filter=Q(services__tools__is_active=True), distinct=True),
    ).select_related("credential__updated_by")


def service_list() -> QuerySet[ApiService]:
    return (
        ApiService.objects.select_related("provider")
        .defer("spec_document")
        .annotate(tool_count=Count("tools", filter=Q(tools__is_active=True)))
    )


def tool_list() -> QuerySet[Tool]:
    return Tool.objects.select_related("service__provider").defer("service__spec_document")


def call_list() -> QuerySet[ApiCall]:
    # The body and the request stay out of lists (a call's page reads them); stored_body says if there is one.
    return (
        ApiCall.objects.select_related("tool__service__provider", "created_by")
        .defer("body_gz", "request", "tool__service__spec_document")
        .annotate(stored_body=ExpressionWrapper(Q(body_gz__isnull=False), output_field=BooleanField()))
    )


def tool_recent_calls(*, tool: Tool, limit: int = 10) -> list[ApiCall]:
    return list(ApiCall.objects.filter(tool=tool).select_related("created_by").defer("body_gz", "request")[:limit])


def service_with_tools(*, pk: int) -> ApiService:
    return (
        ApiService.objects.select_related("provider", "provider__credential")
        .prefetch_related(Prefetch("tools", queryset=Tool.objects.order_by("-is_active", "path", "method")))
        .get(pk=pk)
    )


def credential_status(*, provider: Provider) -> dict[str, Any]:
    """Whether a key is set and when; never any part of the key itself."""
    try:
        credential = provider.credential
    except Credential.DoesNotExist:
        return {"set": False, "updated_at": None, "updated_by": None}
    return {
        "set": True,
        "updated_at": credential.updated_at,
        "updated_by": credential.updated_by.get_username() if credential.updated_by_id else None,
    }


def families() -> list[str]:
    return list(ApiService.objects.order_by("family").values_list("family", flat=True).distinct())


# --- Tools for LLMs ----------------------------------------------------------------------------------


def tool_function_schema(tool: Tool) -> dict[str, Any]:
    """The tool as an OpenAI/Hermes function: {"type": "function", "function": {name, description, parameters}}."""
    schema, _ = function_schema(tool.to_spec(), tool.function_name)
    return schema


def catalog_toolset(tools: Iterable[Tool]) -> tuple[FunctionToolset, dict[str, Tool]]:
    """The engine's toolset for these tools under their catalog names, and each name's Tool row."""
    schemas, specs, aliases, rows = [], {}, {}, {}
    for tool in tools:
        schema, alias = function_schema(tool.to_spec(), tool.function_name)
        schemas.append(schema)
        specs[tool.function_name] = tool.to_spec()
        rows[tool.function_name] = tool
        if alias:
            aliases[tool.function_name] = alias
    return FunctionToolset(schemas=schemas, tools=specs, param_aliases=aliases), rows


def tool_for_function_call(
    name: str, arguments: Mapping[str, Any] | str | None, *, toolset: FunctionToolset, rows: Mapping[str, Tool]
) -> tuple[Tool, dict[str, Any]]:
    """A model's function call as (Tool, parameters under their original names). Raises UnknownFunction."""
    _, params = toolset.to_call(name, arguments)
    return rows[name], params


def tools_by_names(names: Iterable[str]) -> list[Tool]:
    """Active tools by function name (or numeric id), in the order given; unknown names raise LookupError."""
    wanted = [str(n).strip() for n in names if str(n).strip()]
    ids = [int(n) for n in wanted if n.isdigit()]
    found = tool_list().filter(Q(function_name__in=wanted) | Q(pk__in=ids))
    by_key = {t.function_name: t for t in found} | {str(t.pk): t for t in found}
    missing = [n for n in wanted if n not in by_key]
    if missing:
        raise LookupError(f"no tool named {', '.join(missing)} in the catalog")
    return list({by_key[n].pk: by_key[n] for n in wanted}.values())


# --- Stored results ------------------------------------------------------------------------------------


def call_result(call: ApiCall) -> NormalizedResult | None:
    """The stored body normalized again (records as a table on the call page); None without a body."""
    body = call.body_text
    if body is None:
        return None
    return normalize(body, http_status=call.http_status, content_type=call.content_type or None)
