"""EDGE graph API: candidate edges with their trials, verification runs (start, resume), snapshots (export)."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from graphs.api.serializers import (
    CandidateEdgeCreateSerializer,
    CandidateEdgeSerializer,
    EdgeTrialSerializer,
    GraphSnapshotCreateSerializer,
    GraphSnapshotSerializer,
    ProposeSerializer,
    VerificationRunCreateSerializer,
    VerificationRunSerializer,
)
from graphs.filtersets import CandidateEdgeFilterSet, EdgeTrialFilterSet, VerificationRunFilterSet
from graphs.selectors import edge_list, run_list, snapshot_export, snapshot_list, trial_list
from graphs.services import (
    edge_create,
    edge_reset,
    graph_snapshot_create,
    verification_run_create,
    verification_run_resume,
    verification_run_start,
)
from kopa_site.api.jobs import JobDetailSerializer
from kopa_site.jobs import job_start
from kopa_site.roles import ANNOTATOR, REVIEWER


class _StartsJobs:
    throttle_scope = "jobs"
    throttled_actions: tuple[str, ...] = ()

    def get_throttles(self):
        return [ScopedRateThrottle()] if self.action in self.throttled_actions else []


@extend_schema_view(
    list=extend_schema(summary="List candidate edges (filter by status, provider, tool; order by posterior)"),
    retrieve=extend_schema(summary="One candidate edge with its signals and posterior"),
)
class CandidateEdgeViewSet(_StartsJobs, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Candidate links A.field -> B.param. Reviewers add one by hand, reset one, or start a proposal job."""

    queryset = edge_list()
    serializer_class = CandidateEdgeSerializer
    filterset_class = CandidateEdgeFilterSet
    ordering_fields = ["posterior_mean", "score", "trials_success", "trials_structural", "updated_at", "id"]
    ordering = ["-posterior_mean", "-score", "id"]
    read_role = ANNOTATOR
    action_roles = {"create": REVIEWER, "reset": REVIEWER, "propose": REVIEWER, "trials": ANNOTATOR}
    throttled_actions = ("propose",)

    @extend_schema(
        summary="Add a candidate edge by hand",
        request=CandidateEdgeCreateSerializer,
        responses={201: CandidateEdgeSerializer, 400: OpenApiResponse(description="Unknown field, param or transform")},
    )
    def create(self, request, *args, **kwargs):
        body = CandidateEdgeCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        edge = edge_create(
            source_tool=data["source_tool"],
            source_field=data["source_field"],
            target_tool=data["target_tool"],
            target_param=data["target_param"],
            transform=data["transform"],
            score=data["score"],
            note=data["note"],
        )
        edge = self.get_queryset().get(pk=edge.pk)
        return Response(self.get_serializer(edge).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Every trial of the edge, newest run first", responses=EdgeTrialSerializer(many=True))
    @action(detail=True, methods=["get"])
    def trials(self, request, pk=None):
        edge = self.get_object()
        page = self.paginate_queryset(trial_list().filter(edge=edge).order_by("-run_id", "seq"))
        return self.get_paginated_response(EdgeTrialSerializer(page, many=True).data)

    @extend_schema(summary="Back to proposed with its prior (its trials stay on record)", request=None)
    @action(detail=True, methods=["post"])
    def reset(self, request, pk=None):
        edge = edge_reset(edge=self.get_object())
        return Response(self.get_serializer(self.get_queryset().get(pk=edge.pk)).data)

    @extend_schema(
        summary="Start a proposal job over the catalog",
        request=ProposeSerializer,
        responses={201: JobDetailSerializer, 429: OpenApiResponse(description="Too many jobs started")},
    )
    @action(detail=False, methods=["post"])
    def propose(self, request):
        body = ProposeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        params = {k: v for k, v in body.validated_data.items() if v is not None}
        job = job_start(kind="edge.propose", params=params, user=request.user)
        return Response(JobDetailSerializer(job, context={"request": request}).data, status=status.HTTP_201_CREATED)


@extend_schema_view(list=extend_schema(summary="List edge trials"), retrieve=extend_schema(summary="One edge trial"))
class EdgeTrialViewSet(viewsets.ReadOnlyModelViewSet):
    """Every trial: the calls made, the values used, the outcome and its failure class."""

    queryset = trial_list()
    serializer_class = EdgeTrialSerializer
    filterset_class = EdgeTrialFilterSet
    ordering_fields = ["id", "created_at", "seq"]
    ordering = ["-id"]
    read_role = ANNOTATOR


@extend_schema_view(
    list=extend_schema(summary="List verification runs"), retrieve=extend_schema(summary="One verification run")
)
class VerificationRunViewSet(_StartsJobs, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Verification runs. POST starts one as a job; POST resume continues a stopped one."""

    queryset = run_list()
    serializer_class = VerificationRunSerializer
    filterset_class = VerificationRunFilterSet
    ordering_fields = ["created_at", "id"]
    ordering = ["-created_at", "-id"]
    read_role = ANNOTATOR
    action_roles = {"create": REVIEWER, "resume": REVIEWER}
    throttled_actions = ("create", "resume")

    @extend_schema(
        summary="Create a verification run and start it as a job",
        request=VerificationRunCreateSerializer,
        responses={201: VerificationRunSerializer, 400: OpenApiResponse(description="Bad run parameters")},
    )
    def create(self, request, *args, **kwargs):
        body = VerificationRunCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        run = verification_run_create(params=body.validated_data["params"], user=request.user)
        verification_run_start(run=run, user=request.user)
        run = self.get_queryset().get(pk=run.pk)
        return Response(self.get_serializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Continue a stopped run in a new job (stored trials are skipped)",
        request=None,
        responses={200: VerificationRunSerializer, 400: OpenApiResponse(description="Finished or still running")},
    )
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        run = self.get_object()
        verification_run_resume(run=run, user=request.user)
        return Response(self.get_serializer(self.get_queryset().get(pk=run.pk)).data)


@extend_schema_view(
    list=extend_schema(summary="List graph snapshots, newest version first"),
    retrieve=extend_schema(summary="One snapshot's statistics"),
)
class GraphSnapshotViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Versioned snapshots of the verified graph; export one as node-link JSON or GraphML."""

    queryset = snapshot_list()
    serializer_class = GraphSnapshotSerializer
    ordering_fields = ["version", "created_at"]
    ordering = ["-version"]
    read_role = ANNOTATOR
    action_roles = {"create": REVIEWER, "node_link": ANNOTATOR, "graphml": ANNOTATOR}

    @extend_schema(summary="Take a snapshot of the verified edges now", request=GraphSnapshotCreateSerializer)
    def create(self, request, *args, **kwargs):
        body = GraphSnapshotCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        snap = graph_snapshot_create(
            run=body.validated_data.get("run"), user=request.user, note=body.validated_data["note"]
        )
        return Response(self.get_serializer(self.get_queryset().get(pk=snap.pk)).data, status=status.HTTP_201_CREATED)

    def _export(self, fmt: str) -> HttpResponse:
        snap = self.get_queryset().defer(None).get(pk=self.get_object().pk)
        body, content_type, filename = snapshot_export(snap, fmt)
        response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    @extend_schema(
        summary="The snapshot as networkx node-link JSON", responses={200: OpenApiResponse(description="JSON")}
    )
    @action(detail=True, methods=["get"], url_path="node-link")
    def node_link(self, request, pk=None):
        return self._export("json")

    @extend_schema(summary="The snapshot as GraphML", responses={200: OpenApiResponse(description="GraphML XML")})
    @action(detail=True, methods=["get"])
    def graphml(self, request, pk=None):
        return self._export("graphml")
