"""FilterSets of the EDGE graph, shared by the HTML lists and the API."""

from __future__ import annotations

import django_filters
from django.db.models import Q

from graphs.models import CandidateEdge, EdgeTrial, VerificationRun


class CandidateEdgeFilterSet(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label="Search", help_text="Words in tool names, fields, params.")
    status = django_filters.MultipleChoiceFilter(choices=CandidateEdge.Status.choices)
    provider = django_filters.CharFilter(
        method="by_provider", label="Provider", help_text="Either end's provider code."
    )
    tool = django_filters.NumberFilter(method="by_tool", label="Tool", help_text="Either end's tool id.")
    domain = django_filters.CharFilter(
        method="by_domain", label="Domain", help_text='Either end\'s value domain, e.g. "sgg5" (docs/edge.md §0).'
    )
    source_tool = django_filters.NumberFilter(field_name="source_tool_id")
    target_tool = django_filters.NumberFilter(field_name="target_tool_id")
    proposer = django_filters.ChoiceFilter(choices=CandidateEdge.Proposer.choices)
    transform = django_filters.CharFilter(lookup_expr="startswith", help_text='e.g. "slice" or "project".')
    min_score = django_filters.NumberFilter(field_name="score", lookup_expr="gte")
    min_posterior = django_filters.NumberFilter(field_name="posterior_mean", lookup_expr="gte")

    class Meta:
        model = CandidateEdge
        fields = ["q", "status", "provider", "tool", "domain", "source_tool", "target_tool", "proposer", "transform"]

    def search(self, queryset, name, value):
        for word in value.split():
            queryset = queryset.filter(
                Q(source_tool__function_name__icontains=word)
                | Q(target_tool__function_name__icontains=word)
                | Q(source_field__icontains=word)
                | Q(target_param__icontains=word)
                | Q(source_tool__name_ko__icontains=word)
                | Q(target_tool__name_ko__icontains=word)
            )
        return queryset

    def by_provider(self, queryset, name, value):
        return queryset.filter(
            Q(source_tool__service__provider__code=value) | Q(target_tool__service__provider__code=value)
        )

    def by_tool(self, queryset, name, value):
        return queryset.filter(Q(source_tool_id=value) | Q(target_tool_id=value))

    def by_domain(self, queryset, name, value):
        from graphs.selectors import network_edges

        return queryset.filter(pk__in=network_edges(domain=value).values("pk"))


class EdgeTrialFilterSet(django_filters.FilterSet):
    edge = django_filters.NumberFilter(field_name="edge_id")
    run = django_filters.NumberFilter(field_name="run_id")
    kind = django_filters.ChoiceFilter(choices=EdgeTrial.Kind.choices)
    outcome = django_filters.MultipleChoiceFilter(choices=EdgeTrial.Outcome.choices)
    failure_class = django_filters.CharFilter(lookup_expr="startswith")

    class Meta:
        model = EdgeTrial
        fields = ["edge", "run", "kind", "outcome", "failure_class"]


class VerificationRunFilterSet(django_filters.FilterSet):
    status = django_filters.MultipleChoiceFilter(choices=VerificationRun.Status.choices)

    class Meta:
        model = VerificationRun
        fields = ["status"]
