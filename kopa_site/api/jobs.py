"""Jobs API: list and read jobs, start a kind by name, cancel one."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from kopa_site.filtersets import JobFilterSet
from kopa_site.jobs import (
    JobError,
    UnknownJobKind,
    get_kind,
    job_can_cancel,
    job_cancel,
    job_start,
)
from kopa_site.models import Job
from kopa_site.roles import ANNOTATOR, REVIEWER, has_role


class JobListSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    percent = serializers.IntegerField(read_only=True, allow_null=True, help_text="Whole percent, null if unknown.")
    url = serializers.HyperlinkedIdentityField(view_name="job-detail")

    class Meta:
        model = Job
        fields = [
            "id",
            "url",
            "kind",
            "status",
            "cluster",
            "progress_done",
            "progress_total",
            "progress_message",
            "percent",
            "cancel_requested",
            "error",
            "created_by",
            "created_at",
            "started_at",
            "heartbeat_at",
            "finished_at",
        ]
        read_only_fields = fields


class JobDetailSerializer(JobListSerializer):
    can_cancel = serializers.SerializerMethodField()
    cancelled_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    log = serializers.ListField(child=serializers.DictField(), read_only=True, help_text="Last lines: {t, level, msg}.")

    class Meta(JobListSerializer.Meta):
        fields = [
            *JobListSerializer.Meta.fields,
            "params",
            "log",
            "result",
            "traceback",
            "attempts",
            "task_id",
            "cancelled_by",
            "can_cancel",
        ]
        read_only_fields = fields

    def get_can_cancel(self, job: Job) -> bool:
        return job_can_cancel(job=job, user=self.context["request"].user)


class JobStartSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="A registered kind that may be started by name, e.g. site.diagnostics.")
    params = serializers.DictField(required=False, default=dict, help_text="Keyword arguments of the kind.")

    def validate_kind(self, value: str) -> str:
        try:
            kind = get_kind(value)
        except UnknownJobKind as exc:
            raise serializers.ValidationError(str(exc)) from None
        if kind.startable_by is None:
            raise serializers.ValidationError(f"{value} is started by its own page or service, not by name.")
        if not has_role(self.context["request"].user, kind.startable_by):
            raise PermissionDenied(f"Starting {value} needs the {kind.startable_by} role or higher.")
        return value


@extend_schema_view(
    list=extend_schema(summary="List jobs, newest first"),
    retrieve=extend_schema(summary="One job with its log, result, error and traceback"),
)
class JobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet):
    """Background jobs. Poll a job's detail for live progress; POST cancel to stop it."""

    queryset = Job.objects.select_related("created_by", "cancelled_by")
    filterset_class = JobFilterSet
    ordering_fields = ["created_at", "started_at", "finished_at", "status", "kind", "id"]
    ordering = ["-created_at", "-id"]
    search_fields = ["kind", "progress_message", "error"]
    read_role = ANNOTATOR
    # Cancelling one's own job needs only a role; cancelling someone else's is checked per job.
    action_roles = {"cancel": ANNOTATOR, "create": REVIEWER}
    throttle_scope = "jobs"

    def get_serializer_class(self):
        if self.action == "list":
            return JobListSerializer
        if self.action == "create":
            return JobStartSerializer
        return JobDetailSerializer

    def get_throttles(self):
        return [ScopedRateThrottle()] if self.action == "create" else []

    @extend_schema(
        summary="Start a job kind by name",
        request=JobStartSerializer,
        responses={
            201: JobDetailSerializer,
            400: OpenApiResponse(description="Unknown kind or bad params"),
            403: OpenApiResponse(description="Role too low for this kind"),
            429: OpenApiResponse(description="Too many jobs started"),
        },
    )
    def create(self, request, *args, **kwargs):
        start = JobStartSerializer(data=request.data, context=self.get_serializer_context())
        start.is_valid(raise_exception=True)
        try:
            job = job_start(kind=start.validated_data["kind"], params=start.validated_data["params"], user=request.user)
        except JobError as exc:
            raise serializers.ValidationError({"params": [str(exc)]}) from None
        body = JobDetailSerializer(job, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Cancel a job",
        description=(
            "A pending job is cancelled at once; a running one is asked to stop and becomes cancelled at its "
            "next check. Reviewers and admins may cancel any job, others only their own."
        ),
        request=None,
        responses={
            200: JobDetailSerializer,
            403: OpenApiResponse(description="Not your job and your role is below reviewer"),
            409: OpenApiResponse(description="The job has already finished"),
        },
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        job = self.get_object()
        try:
            job = job_cancel(job=job, user=request.user)
        except DjangoPermissionDenied as exc:
            raise PermissionDenied(str(exc)) from None
        return Response(JobDetailSerializer(job, context=self.get_serializer_context()).data)
