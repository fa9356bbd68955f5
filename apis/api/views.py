"""Catalog API: providers, services, tools (with their function schemas) and calls; spec import and execution."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from apis.api.serializers import (
    ApiCallDetailSerializer,
    ApiCallSerializer,
    ApiServiceSerializer,
    ApiServiceUpdateSerializer,
    CredentialStatusSerializer,
    CredentialWriteSerializer,
    DriftResultSerializer,
    DriftSerializer,
    ExecuteSerializer,
    NormalizedResultSerializer,
    ProviderSerializer,
    SpecImportResultSerializer,
    SpecImportSerializer,
    ToolSerializer,
)
from apis.filtersets import ApiCallFilterSet, ApiServiceFilterSet, ProviderFilterSet, ToolFilterSet
from apis.selectors import call_list, credential_status, provider_list, service_list, tool_function_schema, tool_list
from apis.services import (
    CallOptions,
    catalog_import,
    credential_clear,
    credential_set,
    drift_check,
    service_set_base_url,
    tool_execute,
    tool_params_check,
)
from kopa_site.roles import ADMIN, ANNOTATOR, REVIEWER


@extend_schema_view(list=extend_schema(summary="List providers"), retrieve=extend_schema(summary="One provider"))
class ProviderViewSet(viewsets.ReadOnlyModelViewSet):
    """Organisations that issue service keys. Whether a key is set is shown; the key never is."""

    queryset = provider_list()
    serializer_class = ProviderSerializer
    filterset_class = ProviderFilterSet
    search_fields = ["code", "name"]
    ordering_fields = ["code", "name", "id"]
    ordering = ["code"]
    read_role = ANNOTATOR
    action_roles = {"credential": ADMIN}

    @extend_schema(
        summary="Set (POST) or remove (DELETE) the provider's service key",
        request=CredentialWriteSerializer,
        responses={200: CredentialStatusSerializer, 400: OpenApiResponse(description="Key too short")},
    )
    @action(detail=True, methods=["post", "delete"], serializer_class=CredentialWriteSerializer)
    def credential(self, request, pk=None):
        provider = self.get_object()
        if request.method == "DELETE":
            credential_clear(provider=provider, user=request.user)
        else:
            body = CredentialWriteSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            credential_set(provider=provider, service_key=body.validated_data["service_key"], user=request.user)
        provider.refresh_from_db()
        return Response(CredentialStatusSerializer(credential_status(provider=provider)).data)


@extend_schema_view(
    list=extend_schema(summary="List API services"),
    retrieve=extend_schema(summary="One API service"),
    partial_update=extend_schema(
        summary="Change a service's live base URL (admins)",
        request=ApiServiceUpdateSerializer,
        responses=ApiServiceSerializer,
    ),
)
class ApiServiceViewSet(mixins.UpdateModelMixin, viewsets.ReadOnlyModelViewSet):
    """API services, one per imported spec. Admins may point a service at another live base URL."""

    queryset = service_list()
    serializer_class = ApiServiceSerializer
    filterset_class = ApiServiceFilterSet
    search_fields = ["title", "description", "base_url"]
    ordering_fields = ["title", "family", "id", "updated_at"]
    ordering = ["provider__code", "title", "id"]
    http_method_names = ["get", "patch", "head", "options"]
    read_role = ANNOTATOR
    write_role = ADMIN

    def partial_update(self, request, *args, **kwargs):
        service = self.get_object()
        body = ApiServiceUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        service_set_base_url(service=service, base_url=body.validated_data["base_url"], user=request.user)
        return Response(ApiServiceSerializer(self.get_queryset().get(pk=service.pk), context={"request": request}).data)


@extend_schema_view(
    list=extend_schema(summary="List tools with their function schemas"),
    retrieve=extend_schema(summary="One tool: parameters, record fields, function schema"),
)
class ToolViewSet(viewsets.ReadOnlyModelViewSet):
    """Tools (one operation each) with their JSON Schema parameters and their OpenAI/Hermes function schema."""

    queryset = tool_list()
    serializer_class = ToolSerializer
    filterset_class = ToolFilterSet
    search_fields = ["function_name", "name_ko", "description_ko", "path"]
    ordering_fields = ["function_name", "path", "id", "updated_at"]
    ordering = ["service__title", "path", "method"]
    read_role = ANNOTATOR
    action_roles = {"execute": REVIEWER, "functions": ANNOTATOR}

    @extend_schema(
        summary="Every (filtered) tool as a function schema, ready for an LLM's tools list",
        responses={200: OpenApiResponse(description='[{"type": "function", "function": {...}}, ...]')},
    )
    @action(detail=False, methods=["get"], pagination_class=None)
    def functions(self, request):
        tools = self.filter_queryset(self.get_queryset())
        return Response([tool_function_schema(tool) for tool in tools])

    @extend_schema(
        summary="Execute the tool and return the normalized result",
        description=(
            "mode: sandbox (default; the offline emulation), live (the provider's stored key or service_key), "
            "record (call live or the sandbox and keep the body for replay) or replay (recorded answers only; "
            "a miss is error_class replay.miss). API failures are results with ok=false and an error class; "
            "every call leaves an ApiCall row (its id is `call`)."
        ),
        request=ExecuteSerializer,
        responses={
            200: NormalizedResultSerializer,
            400: OpenApiResponse(description="Bad parameters, unknown mode, or no service key for live mode"),
            502: OpenApiResponse(description="The executor itself failed; the call is logged"),
        },
    )
    @action(detail=True, methods=["post"], serializer_class=ExecuteSerializer)
    def execute(self, request, pk=None):
        tool = self.get_object()
        body = ExecuteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        tool_params_check(tool=tool, params=data["params"])
        options = CallOptions(
            mode=data["mode"],
            service_key=data.get("service_key") or None,
            record_target=data.get("record_target"),
            expect_records=data["expect_records"],
            user=request.user,
            source_kind="api",
        )
        execution = tool_execute(tool=tool, params=data["params"], options=options)
        result = execution.result.to_dict()
        return Response({"call": execution.call.pk, **result})


@extend_schema_view(
    list=extend_schema(summary="The call log, newest first"),
    retrieve=extend_schema(summary="One call with its request, parameters and body"),
)
class ApiCallViewSet(viewsets.ReadOnlyModelViewSet):
    """Every execution of a tool. Requests, parameters and bodies are stored with the service key redacted."""

    queryset = call_list()
    filterset_class = ApiCallFilterSet
    ordering_fields = ["created_at", "latency_ms", "id"]
    ordering = ["-created_at", "-id"]
    search_fields = ["tool__function_name", "result_msg", "error_class"]
    read_role = ANNOTATOR
    action_roles = {"drift": REVIEWER}

    def get_queryset(self):
        if self.action == "list":
            return call_list()
        return call_list().defer(None).select_related("tool__service__provider", "created_by")

    def get_serializer_class(self):
        return ApiCallSerializer if self.action == "list" else ApiCallDetailSerializer

    @extend_schema(
        summary="Re-run the call and report what changed (drift check)",
        request=DriftSerializer,
        responses={200: DriftResultSerializer, 400: OpenApiResponse(description="No body or no tool to re-run")},
    )
    @action(detail=True, methods=["post"], serializer_class=DriftSerializer)
    def drift(self, request, pk=None):
        call = self.get_object()
        body = DriftSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        outcome = drift_check(call=call, mode=body.validated_data.get("mode"), user=request.user)
        return Response(outcome.to_dict())


class SpecImportView(APIView):
    """Import a Swagger/OpenAPI spec as a service and its tools; a re-import updates them in place."""

    read_role = REVIEWER
    write_role = REVIEWER
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "jobs"

    @extend_schema(
        summary="Import a spec (text, JSON object or URL)",
        description=(
            'Send {"spec": "<JSON or YAML text>"} or {"spec": {...}} or {"url": "https://..."}, optionally with '
            '"base_url" to override the live base URL. Returns the services and the tools it created or changed, '
            "each tool with its required and optional parameter names. A spec with errors is refused as a whole: "
            "400 with every problem and its JSON pointer, and nothing imported."
        ),
        request=SpecImportSerializer,
        responses={
            200: SpecImportResultSerializer,
            400: OpenApiResponse(description="Every problem of the spec, each with its JSON pointer"),
            429: OpenApiResponse(description="Too many imports"),
        },
        tags=["specs"],
    )
    def post(self, request):
        body = SpecImportSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        report = catalog_import(
            spec=data.get("spec"), url=data.get("url"), base_url=data.get("base_url"), user=request.user
        )
        return Response(report.to_dict())
