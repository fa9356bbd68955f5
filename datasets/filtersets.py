"""FilterSets of the trajectories app, shared by the HTML lists and the API."""

from __future__ import annotations

import django_filters
from django.db.models import Q
from django.utils import timezone

from datasets.engine.filters import STAGES
from datasets.engine.naturalness import PROBLEM_CLASSES
from datasets.models import ReviewDecision, SynthesisRun, Trajectory
from graphs.engine.walk import JUNCTIONS


class TrajectoryFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(
        method="search", label="Search", help_text="Words in the request, answer or tool names."
    )
    status = django_filters.MultipleChoiceFilter(choices=Trajectory.Status.choices, distinct=False)
    junction = django_filters.ChoiceFilter(
        choices=[(j, j) for j in JUNCTIONS], method="by_junction", label="Junction", help_text="Has this junction type."
    )
    tool = django_filters.CharFilter(method="by_tool", label="Tool", help_text="Uses this tool (function name).")
    provider = django_filters.CharFilter(
        method="by_provider", label="Provider", help_text="Calls this provider (code)."
    )
    run = django_filters.NumberFilter(field_name="run_id", label="Run")
    snapshot = django_filters.NumberFilter(field_name="snapshot_id", label="Snapshot")
    length = django_filters.NumberFilter(field_name="length")
    min_length = django_filters.NumberFilter(field_name="length", lookup_expr="gte", label="Min length")
    max_length = django_filters.NumberFilter(field_name="length", lookup_expr="lte", label="Max length")
    generator = django_filters.ChoiceFilter(choices=Trajectory.Generator.choices)
    failed_stage = django_filters.ChoiceFilter(choices=[(s, s) for s in STAGES], label="Failed stage")
    natural_problem = django_filters.ChoiceFilter(
        choices=[(c, c) for c in PROBLEM_CLASSES],
        method="by_natural_problem",
        label="Naturalness problem",
        help_text="The naturalness and coherence stage named this problem (gating or advisory).",
    )
    template = django_filters.CharFilter(field_name="template_id", label="Template id")
    flag = django_filters.ChoiceFilter(
        choices=[
            ("edited", "edited in review"),
            ("held", "held by an annotator now"),
            ("overlapping", "decided by two or more annotators"),
            ("undecided", "no annotator decision yet"),
        ],
        method="by_flag",
        label="Flag",
    )
    annotator = django_filters.CharFilter(method="by_annotator", label="Annotator", help_text="Decided by this user.")

    class Meta:
        model = Trajectory
        fields = [
            "q",
            "status",
            "junction",
            "tool",
            "provider",
            "run",
            "snapshot",
            "length",
            "generator",
            "template",
            "natural_problem",
            "flag",
            "annotator",
        ]

    def search(self, queryset, name, value):
        for word in value.split():
            queryset = queryset.filter(
                Q(request__icontains=word) | Q(answer__icontains=word) | Q(tool_tags__icontains=word)
            )
        return queryset

    def by_junction(self, queryset, name, value):
        return queryset.filter(junction_tags__contains=f",{value},")

    def by_tool(self, queryset, name, value):
        return queryset.filter(tool_tags__contains=f",{value.strip()},")

    def by_natural_problem(self, queryset, name, value):
        return queryset.filter(filters__natural__problems__icontains=f"{value}:")

    def by_provider(self, queryset, name, value):
        return queryset.filter(provider_tags__contains=f",{value.strip()},")

    def by_flag(self, queryset, name, value):
        if value == "edited":
            return queryset.filter(version__gt=1)
        if value == "held":
            return queryset.filter(held_until__gte=timezone.now())
        if value == "overlapping":
            return queryset.filter(decision_count__gte=2)
        return queryset.filter(decision_count=0)

    def by_annotator(self, queryset, name, value):
        decided = ReviewDecision.objects.filter(user__username=value.strip(), retracted_at__isnull=True)
        return queryset.filter(pk__in=decided.values("trajectory_id"))


class SynthesisRunFilterSet(django_filters.FilterSet):
    status = django_filters.MultipleChoiceFilter(choices=SynthesisRun.Status.choices)
    snapshot = django_filters.NumberFilter(field_name="snapshot_id")

    class Meta:
        model = SynthesisRun
        fields = ["status", "snapshot"]
