"""The API catalog: providers, their services and tools (one operation each), service keys, and every call made.

Tools are built by the importer (apis/services.py, from apis/engine/spec_import.py) and executed by the one
executor; each execution leaves an ApiCall whose stored text never holds a service key.
"""

from __future__ import annotations

import gzip

from django.conf import settings
from django.db import models

from apis.engine.model import KeySlot, ToolSpec
from kopa_site.fields import OrderedJSONField


class Provider(models.Model):
    """An organisation that issues service keys, as the engine identifies it ("apis.data.go.kr/1613000")."""

    code = models.CharField(max_length=200, unique=True, help_text='Stable id, e.g. "apis.data.go.kr/1613000".')
    name = models.CharField(max_length=200, blank=True, help_text="Korean name where known, e.g. 국토교통부.")
    rate_limit_per_s = models.FloatField(
        null=True, blank=True, help_text="Calls per second the executor allows this provider; empty: no limit."
    )
    max_concurrency = models.PositiveIntegerField(
        null=True, blank=True, help_text="Calls in flight at once to this provider; empty: the executor's default."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})" if self.name else self.code

    @property
    def display_name(self) -> str:
        return self.name or self.code


class ApiService(models.Model):
    """One API service (one Swagger/OpenAPI document).

    Several services may share a base URL (Juso's APIs, odcloud's datasets), so a re-import finds its service
    by base URL and the operations they share, then by title.
    """

    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="services")
    title = models.CharField(max_length=300, blank=True)
    description = models.TextField(blank=True)
    spec_base_url = models.URLField(
        max_length=500,
        db_index=True,
        help_text="Base URL as the spec states it; a re-import finds the service by it and its operations.",
    )
    base_url = models.URLField(
        max_length=500, help_text="Live base URL the executor calls; defaults to the spec's and may be edited."
    )
    family = models.CharField(max_length=60, db_index=True, help_text="Envelope family, e.g. datagokr.")
    json_switch = models.JSONField(default=dict, blank=True, help_text="Parameters that ask for JSON.")
    success_codes = models.JSONField(
        default=list, blank=True, help_text="Result codes seen on successful calls (the normalizer decides success)."
    )
    key_slot = models.JSONField(null=True, blank=True, help_text="Where the key goes: {name, location, prefix}.")
    version = models.CharField(max_length=60, blank=True)
    spec_format = models.CharField(max_length=40, blank=True, help_text='e.g. "swagger 2.0".')
    source = models.CharField(max_length=500, blank=True, help_text="Where the spec was imported from.")
    spec_sha256 = models.CharField(max_length=64, blank=True)
    spec_document = models.JSONField(null=True, blank=True, help_text="The spec as last imported.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["provider__code", "title", "id"]
        verbose_name = "API service"

    def __str__(self) -> str:
        return self.title or self.spec_base_url

    @property
    def key_slot_spec(self) -> KeySlot | None:
        return KeySlot(**self.key_slot) if self.key_slot else None


class Tool(models.Model):
    """One operation of a service as a callable tool: its parameters as JSON Schema and its record fields."""

    service = models.ForeignKey(ApiService, on_delete=models.CASCADE, related_name="tools")
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500, help_text="Relative to the service's base URL.")
    operation_id = models.CharField(max_length=200)
    function_name = models.CharField(
        max_length=64, unique=True, help_text="Function-safe name for LLM tool calling; unique in the catalog."
    )
    name_ko = models.CharField(max_length=300, blank=True)
    description_ko = models.TextField(blank=True)
    description_en = models.TextField(blank=True)
    parameters = OrderedJSONField(default=dict, help_text="JSON Schema object: properties, required, enums, examples.")
    param_locations = models.JSONField(default=dict, blank=True, help_text="Parameter name -> query/path/header/...")
    record_fields = models.JSONField(default=list, blank=True, help_text="Item record fields: path, type, example.")
    record_path = models.CharField(max_length=200, blank=True, help_text="Where records sit in a response.")
    key_slot = models.JSONField(null=True, blank=True)
    json_switch = models.JSONField(default=dict, blank=True)
    response_formats = models.JSONField(default=list, blank=True)
    deprecated = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True, help_text="False once a re-import no longer has this operation.")
    pointer = models.CharField(max_length=500, blank=True, help_text="JSON pointer of the operation in its spec.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["service__title", "path", "method"]
        constraints = [
            models.UniqueConstraint(fields=["service", "method", "path"], name="tool_unique_operation"),
        ]

    def __str__(self) -> str:
        return self.function_name

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def required_params(self) -> list[str]:
        return list(self.parameters.get("required") or [])

    @property
    def optional_params(self) -> list[str]:
        required = set(self.required_params)
        return [name for name in self.parameters.get("properties") or {} if name not in required]

    def to_spec(self, *, base_url: str | None = None) -> ToolSpec:
        """The engine's view of this tool; base_url defaults to the service's live one."""
        service = self.service
        return ToolSpec(
            method=self.method,
            path=self.path,
            base_url=base_url or service.base_url,
            operation_id=self.operation_id,
            name_ko=self.name_ko,
            description_ko=self.description_ko,
            description_en=self.description_en,
            parameters=self.parameters,
            param_locations=self.param_locations,
            record_fields=self.record_fields,
            record_path=self.record_path,
            key_param=KeySlot(**self.key_slot) if self.key_slot else None,
            json_switch=self.json_switch,
            provider=service.provider.code,
            family=service.family,
            response_formats=self.response_formats,
            deprecated=self.deprecated,
            pointer=self.pointer,
        )


class Credential(models.Model):
    """A provider's service key, Fernet-encrypted (apis/secrets.py). It is written, never shown back."""

    provider = models.OneToOneField(Provider, on_delete=models.CASCADE, related_name="credential")
    ciphertext = models.TextField(editable=False)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["provider__code"]

    def __str__(self) -> str:
        return f"Service key for {self.provider.code} (set)"


class ApiCall(models.Model):
    """One execution of a tool: the key-free request, the outcome, the body (gzip, capped) and what caused it."""

    class Mode(models.TextChoices):
        LIVE = "live", "live"
        SANDBOX = "sandbox", "sandbox"
        RECORD = "record", "record"
        REPLAY = "replay", "replay"

    tool = models.ForeignKey(Tool, null=True, blank=True, on_delete=models.SET_NULL, related_name="calls")
    mode = models.CharField(max_length=10, choices=Mode.choices)
    target = models.CharField(
        max_length=10, blank=True, help_text="Where the request went: live or sandbox (empty for replay)."
    )
    request_hash = models.CharField(max_length=64, db_index=True, help_text="sha256 of the normalized request.")
    request = models.JSONField(default=dict, help_text="Normalized request: method, URL, params, body; no key.")
    params = OrderedJSONField(default=dict, help_text="The parameters as given, without the key.")
    ok = models.BooleanField(default=False)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    result_code = models.CharField(max_length=40, blank=True)
    result_msg = models.TextField(blank=True)
    error_class = models.CharField(max_length=40, blank=True)
    record_count = models.PositiveIntegerField(default=0)
    total_count = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.FloatField(default=0.0)
    bytes = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=1)
    content_type = models.CharField(max_length=200, blank=True)
    body_gz = models.BinaryField(null=True, blank=True, help_text="The response body, gzip; empty over the cap.")
    body_sha256 = models.CharField(max_length=64, blank=True)
    is_recording = models.BooleanField(default=False, help_text="Made in record mode: replay mode answers from it.")
    source_kind = models.CharField(
        max_length=40, blank=True, help_text='What made the call: "job", "edge_trial", "benchmark_step", "mcp", ...'
    )
    source_id = models.CharField(max_length=64, blank=True, help_text="The id of that source, as text.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="api_calls"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "API call"
        indexes = [
            models.Index(fields=["tool", "created_at"], name="apicall_tool_created"),
            models.Index(fields=["mode"], name="apicall_mode"),
            models.Index(fields=["error_class"], name="apicall_error_class"),
            models.Index(fields=["source_kind", "source_id"], name="apicall_source"),
            models.Index(fields=["request_hash", "is_recording"], name="apicall_recording"),
        ]

    def __str__(self) -> str:
        outcome = "ok" if self.ok else (self.error_class or "failed")
        return f"#{self.pk} {self.tool or 'deleted tool'} [{self.mode}] {outcome}"

    @property
    def body_text(self) -> str | None:
        """The stored response body, or None when it was over the cap (only its hash was kept)."""
        if self.body_gz is None:
            return None
        return gzip.decompress(bytes(self.body_gz)).decode("utf-8")

    @property
    def has_body(self) -> bool:
        return self.body_gz is not None
