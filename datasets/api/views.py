"""Trajectories API: synthesis runs (start one as a job) and a read-only list of trajectories with exports."""

from __future__ import annotations

import json

from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from datasets.api.serializers import (
    SynthesisRunCreateSerializer,
    SynthesisRunSerializer,
    TrajectoryDetailSerializer,
    TrajectorySerializer,
)
from datasets.engine.export import openai_record
from datasets.filtersets import SynthesisRunFilterSet, TrajectoryFilterSet
from datasets.models import Trajectory
from datasets.selectors import run_list, trajectory_detail, trajectory_list
from datasets.services import synthesis_run_create, synthesis_run_start, trajectory_item
from kopa_site.roles import ANNOTATOR, REVIEWER


@extend_schema_view(
    list=extend_schema(summary="List synthesis runs, newest first"),
    retrieve=extend_schema(summary="One synthesis run: parameters, counters (discards per reason), diversity"),
)
class SynthesisRunViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Synthesis runs over a graph snapshot. POST creates one and starts it as an edge.synthesize job."""

    queryset = run_list()
    serializer_class = SynthesisRunSerializer
    filterset_class = SynthesisRunFilterSet
    ordering_fields = ["created_at", "id"]
    ordering = ["-created_at", "-id"]
    read_role = ANNOTATOR
    action_roles = {"create": REVIEWER}
    throttle_scope = "jobs"

    def get_throttles(self):
        return [ScopedRateThrottle()] if self.action == "create" else []

    @extend_schema(
        summary="Create a synthesis run and start it as a job",
        request=SynthesisRunCreateSerializer,
        responses={201: SynthesisRunSerializer, 400: OpenApiResponse(description="Bad parameters or no snapshot")},
    )
    def create(self, request, *args, **kwargs):
        body = SynthesisRunCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        run = synthesis_run_create(
            params=body.validated_data["params"], snapshot=body.validated_data["snapshot"], user=request.user
        )
        synthesis_run_start(run=run, user=request.user)
        return Response(self.get_serializer(self.get_queryset().get(pk=run.pk)).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    list=extend_schema(summary="List trajectories (filter by status, junction, tool, provider, run, length)"),
    retrieve=extend_schema(summary="One trajectory with its steps, calls, bindings, observations and filters"),
)
class TrajectoryViewSet(viewsets.ReadOnlyModelViewSet):
    """Executed trajectories; review and editing are the review console's."""

    filterset_class = TrajectoryFilterSet
    ordering_fields = ["created_at", "id", "length"]
    ordering = ["-created_at", "-id"]
    read_role = ANNOTATOR

    def get_queryset(self):
        return trajectory_detail() if self.action in ("retrieve", "messages") else trajectory_list()

    def get_serializer_class(self):
        return TrajectoryDetailSerializer if self.action == "retrieve" else TrajectorySerializer

    @extend_schema(
        summary="The trajectory as an OpenAI chat record: messages with tool calls, and the tools list",
        responses={200: OpenApiResponse(description="{messages, tools}")},
    )
    @action(detail=True, methods=["get"])
    def messages(self, request, pk=None):
        return Response(openai_record(trajectory_item(self.get_object())))

    @extend_schema(
        summary="The filtered list as OpenAI chat JSONL (trajectories that failed a filter are left out)",
        responses={200: OpenApiResponse(description="application/x-ndjson, one {messages, tools} per line")},
    )
    @action(detail=False, methods=["get"])
    def export(self, request):
        queryset = self.filter_queryset(Trajectory.objects.all()).exclude(status=Trajectory.Status.FILTERED)
        queryset = queryset.prefetch_related("calls__step").order_by("id")

        def lines():
            for trajectory in queryset.iterator(chunk_size=200):
                yield json.dumps(openai_record(trajectory_item(trajectory)), ensure_ascii=False) + "\n"

        response = StreamingHttpResponse(lines(), content_type="application/x-ndjson; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="trajectories.jsonl"'
        return response
