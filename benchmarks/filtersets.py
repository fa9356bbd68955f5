"""FilterSets of KOPA-Bench, shared by the HTML lists and the API."""

from __future__ import annotations

import django_filters
from django.db.models import Q

from benchmarks.models import Benchmark, EvalRun, ModelEntry, Task, TaskResult


class TaskFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label="Search", help_text="Words in the id, request or notes.")
    category = django_filters.CharFilter(method="by_category", label="Category", help_text="A category tag.")
    domain = django_filters.CharFilter(help_text='The "domain:" category, e.g. traffic.')
    difficulty = django_filters.MultipleChoiceFilter(choices=Task.Difficulty.choices)
    active = django_filters.BooleanFilter(field_name="is_active", help_text="Default: active tasks only.")
    tool = django_filters.CharFilter(method="by_tool", help_text="A function name the gold trajectory calls.")

    class Meta:
        model = Task
        fields = ["q", "category", "domain", "difficulty", "active", "tool"]

    def search(self, queryset, name, value):
        for word in value.split():
            queryset = queryset.filter(Q(code__icontains=word) | Q(request__icontains=word) | Q(notes__icontains=word))
        return queryset

    def by_category(self, queryset, name, value):
        return queryset.filter(category_index__contains=f"|{value.strip()}|")

    def by_tool(self, queryset, name, value):
        # The gold JSON holds '"tool": "<name>"'; a text match works on every database.
        return queryset.filter(gold__icontains=f'"tool": "{value.strip()}"')


class ModelEntryFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label="Search")
    backend = django_filters.ChoiceFilter(choices=ModelEntry.Backend.choices)
    family = django_filters.CharFilter()
    min_b = django_filters.NumberFilter(field_name="params_b", lookup_expr="gte", help_text="At least this size (B).")
    max_b = django_filters.NumberFilter(field_name="params_b", lookup_expr="lte", help_text="At most this size (B).")
    tuned = django_filters.ChoiceFilter(
        choices=[("base", "base"), ("tuned", "tuned")], method="by_tuned", help_text="Base or tuned models."
    )

    class Meta:
        model = ModelEntry
        fields = ["q", "backend", "org", "family", "min_b", "max_b", "tuned"]

    def by_tuned(self, queryset, name, value):
        tuned = Q(base_model__isnull=False) | Q(tuned_from_run__isnull=False)
        return queryset.filter(tuned) if value == "tuned" else queryset.exclude(tuned)

    def search(self, queryset, name, value):
        return queryset.filter(Q(name__icontains=value) | Q(org__icontains=value) | Q(notes__icontains=value))


class EvalRunFilterSet(django_filters.FilterSet):
    model = django_filters.NumberFilter(field_name="model_id")
    status = django_filters.MultipleChoiceFilter(choices=EvalRun.Status.choices)
    backend = django_filters.ChoiceFilter(choices=ModelEntry.Backend.choices)
    tool_mode = django_filters.ChoiceFilter(choices=EvalRun.ToolMode.choices)
    task_checksum = django_filters.CharFilter(lookup_expr="startswith", help_text="The task set, by checksum prefix.")
    benchmark = django_filters.ChoiceFilter(choices=Benchmark.choices)

    class Meta:
        model = EvalRun
        fields = ["model", "status", "backend", "tool_mode", "task_checksum", "benchmark"]


class TaskResultFilterSet(django_filters.FilterSet):
    run = django_filters.NumberFilter(field_name="run_id")
    task = django_filters.CharFilter(field_name="task__code")
    seed = django_filters.NumberFilter()
    success = django_filters.BooleanFilter()
    stop_reason = django_filters.CharFilter()
    category = django_filters.CharFilter(method="by_category", label="Category")

    class Meta:
        model = TaskResult
        fields = ["run", "task", "seed", "success", "stop_reason", "category"]

    def by_category(self, queryset, name, value):
        return queryset.filter(task__category_index__contains=f"|{value.strip()}|")
