"""Training API: runs (list, detail, start, cancel, resume) and their metrics."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from kopa_site.roles import ANNOTATOR, REVIEWER
from training.api.serializers import TrainingMetricSerializer, TrainingRunCreateSerializer, TrainingRunSerializer
from training.models import TrainingMetric
from training.selectors import run_list
from training.services import (
    training_run_cancel,
    training_run_create,
    training_run_resume,
    training_run_start,
)


@extend_schema_view(
    list=extend_schema(summary="List training runs"),
    retrieve=extend_schema(summary="One training run: config, progress, latest metrics, checkpoint, registered model"),
)
class TrainingRunViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Training runs. POST creates one (config checked, base model folder checked) and queues it on the gpu
    cluster; POST cancel stops it; POST resume continues it from its last checkpoint; GET metrics lists its steps."""

    queryset = run_list()
    serializer_class = TrainingRunSerializer
    ordering_fields = ["created_at", "finished_at", "id"]
    ordering = ["-created_at", "-id"]
    read_role = ANNOTATOR
    action_roles = {"create": REVIEWER, "cancel": REVIEWER, "resume": REVIEWER, "metrics": ANNOTATOR}
    throttle_scope = "jobs"

    def get_throttles(self):
        return [ScopedRateThrottle()] if self.action in ("create", "resume") else []

    def _fresh(self, run):
        return self.get_serializer(self.get_queryset().get(pk=run.pk)).data

    @extend_schema(
        summary="Create a training run and queue it as a job",
        request=TrainingRunCreateSerializer,
        responses={201: TrainingRunSerializer, 400: OpenApiResponse(description="Bad preset, data or base model")},
    )
    def create(self, request, *args, **kwargs):
        body = TrainingRunCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        run = training_run_create(user=request.user, **body.validated_data)
        training_run_start(run=run, user=request.user)
        return Response(self._fresh(run), status=status.HTTP_201_CREATED)

    @extend_schema(summary="Cancel the run's job (stops its process group)", request=None)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        run = self.get_object()
        training_run_cancel(run=run, user=request.user)
        return Response(self._fresh(run))

    @extend_schema(summary="Continue a stopped or failed run from its last checkpoint", request=None)
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        run = self.get_object()
        training_run_resume(run=run, user=request.user)
        return Response(self._fresh(run))

    @extend_schema(summary="The run's logged steps (SFT and GRPO)", responses=TrainingMetricSerializer(many=True))
    @action(detail=True, methods=["get"])
    def metrics(self, request, pk=None):
        run = self.get_object()
        page = self.paginate_queryset(TrainingMetric.objects.filter(run=run).order_by("phase", "step"))
        return self.get_paginated_response(TrainingMetricSerializer(page, many=True).data)
