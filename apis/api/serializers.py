"""Serializers of the catalog API. Service keys are write-only: no serializer here ever reads one back."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apis.models import ApiCall, ApiService, Provider, Tool
from apis.selectors import credential_status, tool_function_schema
from apis.services import MIN_KEY_LENGTH


class CredentialStatusSerializer(serializers.Serializer):
    set = serializers.BooleanField(help_text="Whether a service key is stored; the key itself is never returned.")
    updated_at = serializers.DateTimeField(allow_null=True)
    updated_by = serializers.CharField(allow_null=True)


class ProviderSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="provider-detail")
    service_count = serializers.IntegerField(read_only=True)
    tool_count = serializers.IntegerField(read_only=True, help_text="Active tools.")
    credential = serializers.SerializerMethodField()

    class Meta:
        model = Provider
        fields = [
            "id",
            "url",
            "code",
            "name",
            "rate_limit_per_s",
            "max_concurrency",
            "service_count",
            "tool_count",
            "credential",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    @extend_schema_field(CredentialStatusSerializer)
    def get_credential(self, provider: Provider) -> dict:
        return credential_status(provider=provider)


class CredentialWriteSerializer(serializers.Serializer):
    service_key = serializers.CharField(
        write_only=True,
        min_length=MIN_KEY_LENGTH,
        trim_whitespace=True,
        style={"input_type": "password"},
        help_text="The provider's service key (Encoding or Decoding form). Stored encrypted, never returned.",
    )


class ApiServiceSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="apiservice-detail")
    provider = serializers.SlugRelatedField(slug_field="code", read_only=True)
    provider_name = serializers.CharField(source="provider.name", read_only=True)
    tool_count = serializers.IntegerField(read_only=True, help_text="Active tools.")

    class Meta:
        model = ApiService
        fields = [
            "id",
            "url",
            "provider",
            "provider_name",
            "title",
            "description",
            "base_url",
            "spec_base_url",
            "family",
            "json_switch",
            "success_codes",
            "key_slot",
            "version",
            "spec_format",
            "source",
            "spec_sha256",
            "tool_count",
            "created_at",
            "updated_at",
        ]
        read_only_fields = [f for f in fields if f != "base_url"]


class ApiServiceUpdateSerializer(serializers.Serializer):
    base_url = serializers.URLField(max_length=500, help_text="The live base URL the executor calls.")


class ToolSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="tool-detail")
    service_title = serializers.CharField(source="service.title", read_only=True)
    provider = serializers.CharField(source="service.provider.code", read_only=True)
    family = serializers.CharField(source="service.family", read_only=True)
    live_url = serializers.SerializerMethodField()
    required = serializers.ListField(source="required_params", child=serializers.CharField(), read_only=True)
    optional = serializers.ListField(source="optional_params", child=serializers.CharField(), read_only=True)
    function_schema = serializers.SerializerMethodField()

    class Meta:
        model = Tool
        fields = [
            "id",
            "url",
            "function_name",
            "service",
            "service_title",
            "provider",
            "family",
            "method",
            "path",
            "live_url",
            "operation_id",
            "name_ko",
            "description_ko",
            "description_en",
            "parameters",
            "required",
            "optional",
            "param_locations",
            "record_fields",
            "record_path",
            "response_formats",
            "deprecated",
            "is_active",
            "function_schema",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_live_url(self, tool: Tool) -> str:
        return tool.service.base_url.rstrip("/") + tool.path

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_function_schema(self, tool: Tool) -> dict:
        """{"type": "function", "function": {name, description, parameters}} as OpenAI and Hermes expect."""
        return tool_function_schema(tool)


class ApiCallSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="apicall-detail")
    function_name = serializers.CharField(source="tool.function_name", read_only=True, allow_null=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    has_body = serializers.BooleanField(source="stored_body", read_only=True, help_text="Whether the body was kept.")

    class Meta:
        model = ApiCall
        fields = [
            "id",
            "url",
            "tool",
            "function_name",
            "mode",
            "target",
            "ok",
            "http_status",
            "result_code",
            "result_msg",
            "error_class",
            "record_count",
            "total_count",
            "latency_ms",
            "bytes",
            "attempts",
            "is_recording",
            "request_hash",
            "body_sha256",
            "has_body",
            "source_kind",
            "source_id",
            "created_by",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields


class ApiCallDetailSerializer(ApiCallSerializer):
    has_body = serializers.BooleanField(read_only=True)
    body = serializers.CharField(source="body_text", read_only=True, allow_null=True, help_text="null over the cap.")

    class Meta(ApiCallSerializer.Meta):
        fields = [*ApiCallSerializer.Meta.fields, "request", "params", "content_type", "body"]
        read_only_fields = fields


class ExecuteSerializer(serializers.Serializer):
    params = serializers.DictField(required=False, default=dict, help_text="Parameter names and values.")
    mode = serializers.ChoiceField(choices=ApiCall.Mode.choices, default="sandbox")
    service_key = serializers.CharField(
        required=False,
        allow_blank=True,
        write_only=True,
        trim_whitespace=True,
        help_text="Used for this call only, never stored; empty: the provider's stored key (live/record).",
    )
    record_target = serializers.ChoiceField(
        choices=["live", "sandbox"], required=False, help_text="Where record mode calls (default: settings)."
    )
    expect_records = serializers.BooleanField(
        default=False, help_text="Treat an empty answer as a failure (error_class struct.no_data)."
    )


class NormalizedResultSerializer(serializers.Serializer):
    call = serializers.IntegerField(help_text="The ApiCall row this execution left.")
    ok = serializers.BooleanField()
    http_status = serializers.IntegerField(allow_null=True)
    result_code = serializers.CharField(allow_null=True)
    result_msg = serializers.CharField(allow_null=True)
    error_class = serializers.CharField(allow_null=True)
    records = serializers.ListField(child=serializers.DictField())
    total_count = serializers.IntegerField(allow_null=True)
    page = serializers.DictField()
    raw = serializers.CharField(help_text="The response body, service key redacted.")
    latency_ms = serializers.FloatField()
    bytes = serializers.IntegerField()
    attempts = serializers.IntegerField()


class SpecImportSerializer(serializers.Serializer):
    spec = serializers.JSONField(required=False, help_text="The spec: JSON or YAML text, or a JSON object.")
    url = serializers.URLField(required=False, help_text="Where to fetch the spec (or a data.go.kr dataset page).")
    base_url = serializers.URLField(required=False, help_text="Override of the live base URL.")

    def validate(self, attrs):
        given = [name for name in ("spec", "url") if attrs.get(name) not in (None, "")]
        if len(given) != 1:
            raise serializers.ValidationError("Give exactly one of spec or url.")
        spec = attrs.get("spec")
        if spec is not None and not isinstance(spec, str | dict):
            raise serializers.ValidationError({"spec": "Send the spec as text or as a JSON object."})
        return attrs


class ImportedToolSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    function_name = serializers.CharField()
    method = serializers.CharField()
    path = serializers.CharField()
    name_ko = serializers.CharField()
    status = serializers.CharField(help_text="added, changed, removed or reactivated.")
    required = serializers.ListField(child=serializers.CharField())
    optional = serializers.ListField(child=serializers.CharField())
    changes = serializers.ListField(child=serializers.DictField(), help_text="{field, old, new} per change.")


class ImportedServiceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    provider = serializers.CharField()
    base_url = serializers.CharField()
    spec_base_url = serializers.CharField()
    status = serializers.CharField(help_text="created, changed or unchanged.")
    changes = serializers.ListField(child=serializers.CharField())
    tools = ImportedToolSerializer(many=True, help_text="Tools added, changed, removed or reactivated.")
    unchanged_tools = serializers.IntegerField()


class SpecImportResultSerializer(serializers.Serializer):
    summary = serializers.CharField()
    counts = serializers.DictField(child=serializers.IntegerField())
    services = ImportedServiceSerializer(many=True)
    warnings = serializers.ListField(child=serializers.DictField())


class DriftSerializer(serializers.Serializer):
    # A plain string: an enum here would be a second name for record_target's choices in the schema.
    mode = serializers.CharField(required=False, help_text="live or sandbox; default: where the call went.")

    def validate_mode(self, value: str) -> str:
        if value not in ("live", "sandbox"):
            raise serializers.ValidationError("A drift check re-runs a call live or in the sandbox.")
        return value


class DriftResultSerializer(serializers.Serializer):
    call = serializers.IntegerField()
    rerun_call = serializers.IntegerField(allow_null=True)
    changed = serializers.BooleanField()
    severity = serializers.CharField(help_text="none, data, schema or status (the highest change).")
    summary = serializers.CharField()
    changes = serializers.ListField(child=serializers.DictField())
