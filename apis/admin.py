"""Django admin for the catalog. Service keys are write-only here too: the form takes one, nothing shows it."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from apis.models import ApiCall, ApiService, Credential, Provider, Tool
from apis.services import MIN_KEY_LENGTH, catalog_import_bundled, credential_set


class CredentialAdminForm(forms.ModelForm):
    service_key = forms.CharField(
        label="Service key",
        min_length=MIN_KEY_LENGTH,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Stored encrypted and never shown again; enter it again to replace it.",
    )

    class Meta:
        model = Credential
        fields = ["provider"]


@admin.register(Credential)
class CredentialAdmin(admin.ModelAdmin):
    form = CredentialAdminForm
    list_display = ["provider", "status", "updated_by", "updated_at"]
    list_select_related = ["provider", "updated_by"]
    readonly_fields = ["status", "updated_by", "created_at", "updated_at"]

    @admin.display(description="Key")
    def status(self, obj: Credential) -> str:
        return "set • hidden" if obj.pk else "not set"

    def get_readonly_fields(self, request, obj=None):
        # The provider of an existing key is fixed; a key for another provider is a new row.
        return [*self.readonly_fields, "provider"] if obj else self.readonly_fields

    def save_model(self, request, obj, form, change):
        provider = obj.provider if change else form.cleaned_data["provider"]
        saved = credential_set(provider=provider, service_key=form.cleaned_data["service_key"], user=request.user)
        obj.pk, obj.ciphertext = saved.pk, saved.ciphertext


class ServiceInline(admin.TabularInline):
    model = ApiService
    fields = ["title", "base_url", "family"]
    readonly_fields = fields
    extra = 0
    show_change_link = True
    can_delete = False


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "rate_limit_per_s", "max_concurrency", "has_key"]
    search_fields = ["code", "name"]
    inlines = [ServiceInline]

    @admin.display(boolean=True, description="Key set")
    def has_key(self, obj: Provider) -> bool:
        return Credential.objects.filter(provider=obj).exists()


@admin.register(ApiService)
class ApiServiceAdmin(admin.ModelAdmin):
    list_display = ["title", "provider", "family", "base_url", "updated_at"]
    list_filter = ["family", "provider"]
    list_select_related = ["provider"]
    search_fields = ["title", "base_url", "spec_base_url"]
    readonly_fields = ["spec_base_url", "spec_format", "source", "spec_sha256", "created_at", "updated_at"]
    exclude = ["spec_document"]
    actions = ["import_bundled"]

    @admin.action(description="Import the bundled catalog (all sandbox specs)")
    def import_bundled(self, request, queryset):
        report = catalog_import_bundled(user=request.user)
        self.message_user(request, f"Bundled catalog: {report.summary()}", messages.SUCCESS)


@admin.register(Tool)
class ToolAdmin(admin.ModelAdmin):
    list_display = ["function_name", "name_ko", "method", "path", "service", "is_active", "deprecated"]
    list_filter = ["is_active", "deprecated", "service__family", "service__provider"]
    list_select_related = ["service"]
    search_fields = ["function_name", "name_ko", "operation_id", "path"]
    readonly_fields = ["created_at", "updated_at"]
    raw_id_fields = ["service"]


@admin.register(ApiCall)
class ApiCallAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "tool",
        "mode",
        "ok",
        "error_class",
        "http_status",
        "record_count",
        "latency_ms",
        "created_at",
    ]
    list_filter = ["mode", "ok", "is_recording", "source_kind"]
    list_select_related = ["tool"]
    search_fields = ["tool__function_name", "request_hash", "error_class"]
    exclude = ["body_gz"]
    date_hierarchy = "created_at"

    def get_readonly_fields(self, request, obj=None):
        # The call log is a record of what happened: readable, never edited.
        return [field.name for field in self.model._meta.fields if field.name != "body_gz"]

    def has_add_permission(self, request):
        return False
