"""KOPA-Bench API: tasks (read), models (reviewers write), evaluation runs (start, resume, their results) and
episode results (read, with transcripts)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from benchmarks.api.serializers import (
    EvalRunCreateSerializer,
    EvalRunSerializer,
    LeaderboardSerializer,
    ModelEntrySerializer,
    TaskResultDetailSerializer,
    TaskResultSerializer,
    TaskSerializer,
)
from benchmarks.engine.bfcl import DEFAULT_CATEGORIES
from benchmarks.engine.leaderboard import SORT_KEYS
from benchmarks.filtersets import EvalRunFilterSet, ModelEntryFilterSet, TaskFilterSet, TaskResultFilterSet
from benchmarks.models import Benchmark, ModelEntry, TaskResult
from benchmarks.selectors import BoardQuery, export_rows, leaderboard, model_list, result_list, run_list, task_list
from benchmarks.services import (
    bfcl_run_create,
    eval_run_create,
    eval_run_resume,
    eval_run_start,
    model_entry_create,
    model_entry_update,
)
from kopa_site.roles import ANNOTATOR, REVIEWER


@extend_schema_view(
    list=extend_schema(summary="List benchmark tasks (filter by category, domain, difficulty, tool)"),
    retrieve=extend_schema(summary="One task with its gold calls and answer"),
)
class TaskViewSet(viewsets.ReadOnlyModelViewSet):
    """KOPA-Bench tasks as their files state them; rows change only through bench_load_tasks."""

    queryset = task_list()
    serializer_class = TaskSerializer
    filterset_class = TaskFilterSet
    ordering_fields = ["code", "difficulty", "gold_calls", "updated_at"]
    ordering = ["code"]
    search_fields = ["code", "request"]
    read_role = ANNOTATOR


@extend_schema_view(
    list=extend_schema(summary="List models"),
    retrieve=extend_schema(summary="One model"),
    create=extend_schema(summary="Register a model (its endpoint or checkpoint; a key's variable name, never a key)"),
    update=extend_schema(
        summary="Change a model (send the version you read as expected_version to refuse a change made since)",
        responses={200: ModelEntrySerializer, 409: OpenApiResponse(description="Changed since the version you read")},
    ),
    partial_update=extend_schema(
        summary="Change some of a model's fields (expected_version as for a full change)",
        responses={200: ModelEntrySerializer, 409: OpenApiResponse(description="Changed since the version you read")},
    ),
)
class ModelEntryViewSet(mixins.CreateModelMixin, mixins.UpdateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Models that can be evaluated. Reviewers add and change them."""

    queryset = model_list()
    serializer_class = ModelEntrySerializer
    filterset_class = ModelEntryFilterSet
    ordering_fields = ["name", "created_at"]
    ordering = ["name"]
    read_role = ANNOTATOR
    write_role = REVIEWER

    def perform_create(self, serializer):
        fields = dict(serializer.validated_data)
        fields.pop("expected_version", None)  # nothing was read before a creation
        serializer.instance = model_entry_create(user=self.request.user, **fields)

    def perform_update(self, serializer):
        fields = dict(serializer.validated_data)
        expected = fields.pop("expected_version", None)
        # A stale edit raises BenchConflict: the API's handler answers it as 409 with its message.
        serializer.instance = model_entry_update(entry=serializer.instance, expected_version=expected, **fields)


@extend_schema_view(
    list=extend_schema(summary="List evaluation runs"),
    retrieve=extend_schema(summary="One run with its summary (overall, per category, pass@k / pass^k with CIs)"),
)
class EvalRunViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Evaluation runs. POST starts one as a job; POST resume continues a stopped one; GET results lists its
    episodes."""

    queryset = run_list()
    serializer_class = EvalRunSerializer
    filterset_class = EvalRunFilterSet
    ordering_fields = ["created_at", "finished_at", "id"]
    ordering = ["-created_at", "-id"]
    read_role = ANNOTATOR
    action_roles = {"create": REVIEWER, "resume": REVIEWER, "results": ANNOTATOR, "leaderboard": ANNOTATOR}
    throttle_scope = "jobs"

    def get_throttles(self):
        return [ScopedRateThrottle()] if self.action in ("create", "resume") else []

    @extend_schema(
        summary="Create an evaluation run and start it as a job",
        request=EvalRunCreateSerializer,
        responses={201: EvalRunSerializer, 400: OpenApiResponse(description="Bad options or no tasks")},
    )
    def create(self, request, *args, **kwargs):
        body = EvalRunCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        model, codes = data.pop("model"), data.pop("tasks")
        benchmark, categories, limit = data.pop("benchmark"), data.pop("categories"), data.pop("limit")
        if benchmark == Benchmark.BFCL:
            options = {key: data[key] for key in ("seeds", "concurrency", "sampling")}
            run = bfcl_run_create(
                model=model, categories=categories or DEFAULT_CATEGORIES, limit=limit, user=request.user, **options
            )
        else:
            run = eval_run_create(model=model, task_codes=codes or None, user=request.user, **data)
        eval_run_start(run=run, user=request.user)
        return Response(self.get_serializer(self.get_queryset().get(pk=run.pk)).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Continue a stopped run in a new job (stored episodes are skipped)",
        request=None,
        responses={200: EvalRunSerializer, 400: OpenApiResponse(description="Finished or still running")},
    )
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        run = self.get_object()
        eval_run_resume(run=run, user=request.user)
        return Response(self.get_serializer(self.get_queryset().get(pk=run.pk)).data)

    @extend_schema(
        summary="The leaderboard: one row per model on a board, with the page's filters and sorting",
        parameters=[
            OpenApiParameter("board", str, description="A board's task checksum prefix; empty: the canonical suite"),
            OpenApiParameter("pick", str, enum=["best", "latest"], description="Which finished run per model"),
            OpenApiParameter("family", str),
            OpenApiParameter("min_b", float, description="At least this many billion parameters"),
            OpenApiParameter("max_b", float, description="At most this many billion parameters"),
            OpenApiParameter("tuned", str, enum=["base", "tuned"]),
            OpenApiParameter("backend", str, enum=ModelEntry.Backend.values),
            OpenApiParameter("sort", str, enum=sorted(SORT_KEYS)),
            OpenApiParameter("dir", str, enum=["asc", "desc"]),
        ],
        responses=LeaderboardSerializer,
    )
    @action(detail=False, methods=["get"])
    def leaderboard(self, request):
        board = leaderboard(BoardQuery.from_params(request.GET), charts=False)
        return Response(
            {
                "board": board["set"] or {},
                "boards": board["sets"],
                "categories": board["categories"],
                "rows": export_rows(board),
            }
        )

    @extend_schema(summary="The run's episodes (without transcripts)", responses=TaskResultSerializer(many=True))
    @action(detail=True, methods=["get"])
    def results(self, request, pk=None):
        run = self.get_object()
        queryset = TaskResultFilterSet(request.GET, queryset=result_list().filter(run=run)).qs
        page = self.paginate_queryset(queryset.order_by("task__code", "seed"))
        return self.get_paginated_response(TaskResultSerializer(page, many=True, context={"request": request}).data)


@extend_schema_view(
    list=extend_schema(summary="List episode results (filter by run, task, seed, success, category)"),
    retrieve=extend_schema(summary="One episode with its transcript, ApiCall ids and scores"),
)
class TaskResultViewSet(viewsets.ReadOnlyModelViewSet):
    """One row per (run, task, seed) episode; the detail holds the transcript and every score."""

    filterset_class = TaskResultFilterSet
    ordering_fields = ["id", "created_at", "wall_s", "calls"]
    ordering = ["-id"]
    read_role = ANNOTATOR

    def get_queryset(self):
        if self.action == "retrieve":
            return TaskResult.objects.select_related("task")
        return result_list()

    def get_serializer_class(self):
        return TaskResultDetailSerializer if self.action == "retrieve" else TaskResultSerializer
