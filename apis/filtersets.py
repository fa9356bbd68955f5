"""FilterSets of the catalog, shared by the HTML pages and the API."""

from __future__ import annotations

import django_filters
from django.db.models import Q

from apis.models import ApiCall, ApiService, Provider, Tool


def _search(queryset, fields: tuple[str, ...], value: str):
    """Every word must match one of the fields (case-insensitive), so "아파트 매매" narrows as expected."""
    for word in value.split():
        condition = Q()
        for name in fields:
            condition |= Q(**{f"{name}__icontains": word})
        queryset = queryset.filter(condition)
    return queryset


class ProviderFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label="Search", help_text="Words in the code or name.")

    class Meta:
        model = Provider
        fields = ["q"]

    def search(self, queryset, name, value):
        return _search(queryset, ("code", "name"), value)


class ApiServiceFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label="Search", help_text="Words in the title, URL or description.")
    provider = django_filters.CharFilter(field_name="provider__code", help_text="Provider code.")
    family = django_filters.CharFilter()

    class Meta:
        model = ApiService
        fields = ["q", "provider", "family"]

    def search(self, queryset, name, value):
        return _search(queryset, ("title", "description", "base_url", "spec_base_url"), value)


class ToolFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(
        method="search", label="Search", help_text="Words in the name, descriptions, path or service title."
    )
    provider = django_filters.CharFilter(field_name="service__provider__code", label="Provider")
    service = django_filters.NumberFilter(field_name="service_id", label="Service")
    family = django_filters.CharFilter(field_name="service__family", label="Family")
    method = django_filters.CharFilter(lookup_expr="iexact")
    function_name = django_filters.CharFilter()
    is_active = django_filters.BooleanFilter(label="Active")
    deprecated = django_filters.BooleanFilter()

    class Meta:
        model = Tool
        fields = ["q", "provider", "service", "family", "method", "function_name", "is_active", "deprecated"]

    def search(self, queryset, name, value):
        fields = ("function_name", "operation_id", "name_ko", "description_ko", "description_en", "path")
        return _search(queryset, (*fields, "service__title"), value)


class ApiCallFilterSet(django_filters.FilterSet):
    tool = django_filters.NumberFilter(field_name="tool_id")
    function_name = django_filters.CharFilter(field_name="tool__function_name", label="Tool name")
    service = django_filters.NumberFilter(field_name="tool__service_id")
    provider = django_filters.CharFilter(field_name="tool__service__provider__code")
    mode = django_filters.MultipleChoiceFilter(choices=ApiCall.Mode.choices)
    ok = django_filters.BooleanFilter()
    error_class = django_filters.CharFilter(help_text="Exact class, e.g. env.timeout.")
    error_kind = django_filters.ChoiceFilter(
        method="by_error_kind",
        choices=[("environmental", "environmental"), ("structural", "structural")],
        help_text="environmental (env.*, retried) or structural (struct.*, never retried).",
    )
    source_kind = django_filters.CharFilter()
    source_id = django_filters.CharFilter()
    request_hash = django_filters.CharFilter()
    is_recording = django_filters.BooleanFilter(label="Recording")
    created_after = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")

    class Meta:
        model = ApiCall
        fields = ["tool", "mode", "ok", "error_class", "source_kind", "source_id", "request_hash", "is_recording"]

    def by_error_kind(self, queryset, name, value):
        prefix = "env." if value == "environmental" else "struct."
        return queryset.filter(error_class__startswith=prefix)
