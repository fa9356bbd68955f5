"""Review API: the queue (claim, release), every review action on an item, its decisions and revisions, bulk
decisions, and frozen dataset versions with their exports. Writes call datasets.review; a refused action is 400,
403 or 409 with the reason, a stale edit 409 with both versions (the project's DomainError handler answers them)."""

from __future__ import annotations

from django.http import QueryDict, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from datasets import review
from datasets.api.serializers import TrajectorySerializer
from datasets.filtersets import TrajectoryFilterSet
from datasets.models import REJECT_REASONS, DatasetVersion, ReviewDecision, Trajectory, TrajectoryRevision
from datasets.selectors import decisions_of, review_list, revisions_of, version_jsonl_lines, version_list
from kopa_site.pagination import CappedLimitOffsetPagination
from kopa_site.roles import ANNOTATOR, REVIEWER

# --- Serializers ------------------------------------------------------------------------------------------


class ReviewItemSerializer(TrajectorySerializer):
    url = serializers.HyperlinkedIdentityField(view_name="review-detail")
    held_by = serializers.CharField(source="held_by.username", read_only=True, allow_null=True)

    class Meta(TrajectorySerializer.Meta):
        fields = TrajectorySerializer.Meta.fields + ["version", "held_by", "held_until", "decision_count"]
        read_only_fields = fields


class ReviewDecisionSerializer(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username", read_only=True, allow_null=True)

    class Meta:
        model = ReviewDecision
        fields = [
            "id",
            "trajectory",
            "user",
            "kind",
            "decision",
            "reason",
            "note",
            "version",
            "previous_status",
            "seconds",
            "created_at",
            "retracted_at",
        ]
        read_only_fields = fields


class TrajectoryRevisionSerializer(serializers.ModelSerializer):
    user = serializers.CharField(source="user.username", read_only=True, allow_null=True)

    class Meta:
        model = TrajectoryRevision
        fields = ["id", "trajectory", "version", "kind", "user", "created_at", "note", "undone", "before", "after"]
        read_only_fields = fields


class NoteSerializer(serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, default="")


class RejectSerializer(NoteSerializer):
    reason = serializers.ChoiceField(choices=REJECT_REASONS)


class AdjudicateSerializer(NoteSerializer):
    decision = serializers.ChoiceField(choices=ReviewDecision.Decision.choices)
    reason = serializers.ChoiceField(choices=REJECT_REASONS, required=False, allow_blank=True, default="")


class BulkSerializer(AdjudicateSerializer):
    expected_count = serializers.IntegerField(
        min_value=0, help_text="How many items you confirmed; a different count now means nothing is changed."
    )


class EditSerializer(NoteSerializer):
    expected_version = serializers.IntegerField(min_value=1, help_text="The version you edited.")
    request = serializers.CharField(required=False, allow_blank=True)
    answer = serializers.CharField(required=False, allow_blank=True)
    short_answer = serializers.CharField(required=False, allow_blank=True)
    arguments = serializers.DictField(
        child=serializers.DictField(), required=False, help_text="Call number (seq) -> new arguments."
    )


class RestoreSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=1)
    expected_version = serializers.IntegerField(min_value=1)


class ReexecuteSerializer(serializers.Serializer):
    seq = serializers.IntegerField(min_value=0)
    expected_version = serializers.IntegerField(min_value=1)
    arguments = serializers.DictField(required=False, help_text="Run with these arguments (default: the stored ones).")
    rest = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Also run every later call (the rest of the chain) as one revision; a later call fed from a record "
        "the new observation no longer holds stops it with 400 and nothing is stored.",
    )


class DatasetVersionSerializer(serializers.ModelSerializer):
    url = serializers.HyperlinkedIdentityField(view_name="datasetversion-detail")
    created_by = serializers.CharField(source="created_by.username", read_only=True, allow_null=True)

    class Meta:
        model = DatasetVersion
        fields = [
            "id",
            "url",
            "name",
            "description",
            "filter",
            "item_count",
            "checksum",
            "datasheet",
            "created_by",
            "created_at",
            "export_job",
            "export_path",
            "exported_at",
        ]
        read_only_fields = fields


class FreezeSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    filter = serializers.DictField(
        required=False, default=dict, help_text="Trajectory filters (as the list's query parameters)."
    )


# --- Views ------------------------------------------------------------------------------------------------


REFUSED = {
    400: OpenApiResponse(description="Bad input, or the item is not in a state for this"),
    403: OpenApiResponse(description="Your role does not allow this"),
    409: OpenApiResponse(description="A lease you do not hold (or that expired), or a stale edit with both versions"),
}


class QueuePagination(CappedLimitOffsetPagination):
    """The queue's count stops at COUNT_CAP + 1: an exact count of a large queue costs a scan and tells nothing."""

    COUNT_CAP = 1000

    def get_count(self, queryset) -> int:
        return queryset[: self.COUNT_CAP + 1].count()


@extend_schema_view(
    list=extend_schema(
        summary="My queue: items I may claim now (filters as the trajectory list; count stops at 1,001)"
    ),
    retrieve=extend_schema(summary="One item with its review state (version, holder, decisions so far)"),
)
class ReviewViewSet(viewsets.ReadOnlyModelViewSet):
    """The review queue and every review action on an item."""

    serializer_class = ReviewItemSerializer
    filterset_class = TrajectoryFilterSet
    pagination_class = QueuePagination
    read_role = ANNOTATOR
    action_roles = {
        "claim_next": ANNOTATOR,
        "claim": ANNOTATOR,
        "release": ANNOTATOR,
        "approve": ANNOTATOR,
        "reject": ANNOTATOR,
        "edit": ANNOTATOR,
        "undo": ANNOTATOR,
        "restore": ANNOTATOR,
        "reexecute": ANNOTATOR,
        "adjudicate": REVIEWER,
        "bulk": REVIEWER,
    }

    def get_queryset(self):
        if self.action == "list" and not getattr(self, "swagger_fake_view", False):
            return review.queue_for(user=self.request.user, queryset=review_list())
        return review_list()

    def _item(self, request, *, serializer_class=None):
        trajectory = self.get_object()
        body = None
        if serializer_class is not None:
            body = serializer_class(data=request.data)
            body.is_valid(raise_exception=True)
        return trajectory, body

    def _fresh(self, trajectory: Trajectory, code: int = status.HTTP_200_OK) -> Response:
        row = review_list().get(pk=trajectory.pk)
        return Response(ReviewItemSerializer(row, context={"request": self.request}).data, status=code)

    @extend_schema(
        summary="Claim the next item of my queue (the filters narrow it)",
        operation_id="review_claim_next",
        request=None,
        responses={200: ReviewItemSerializer, 204: OpenApiResponse(description="Nothing waits for you")},
    )
    @action(detail=False, methods=["post"], url_path="claim")
    def claim_next(self, request):
        queryset = self.filter_queryset(Trajectory.objects.all())
        got = review.trajectory_claim(user=request.user, queryset=queryset)
        if got is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return self._fresh(got)

    @extend_schema(summary="Claim this item", request=None, responses={200: ReviewItemSerializer, **REFUSED})
    @action(detail=True, methods=["post"])
    def claim(self, request, pk=None):
        trajectory, _ = self._item(request)
        review.trajectory_claim(user=request.user, trajectory=trajectory)
        return self._fresh(trajectory)

    @extend_schema(summary="Give the item back to the queue", request=None, responses={200: ReviewItemSerializer})
    @action(detail=True, methods=["post"])
    def release(self, request, pk=None):
        trajectory, _ = self._item(request)
        review.trajectory_release(trajectory=trajectory, user=request.user)
        return self._fresh(trajectory)

    def _decide(self, request, decide, serializer_class, **fixed):
        trajectory, body = self._item(request, serializer_class=serializer_class)
        made = decide(trajectory=trajectory, user=request.user, **fixed, **body.validated_data)
        return Response(ReviewDecisionSerializer(made).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Approve the item I hold", request=NoteSerializer, responses={201: ReviewDecisionSerializer, **REFUSED}
    )
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        return self._decide(request, review.trajectory_approve, NoteSerializer)

    @extend_schema(
        summary="Reject the item I hold, with a reason from the taxonomy",
        request=RejectSerializer,
        responses={201: ReviewDecisionSerializer, **REFUSED},
    )
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        return self._decide(request, review.trajectory_reject, RejectSerializer)

    @extend_schema(
        summary="Settle a disputed item (reviewers)",
        request=AdjudicateSerializer,
        responses={201: ReviewDecisionSerializer, **REFUSED},
    )
    @action(detail=True, methods=["post"])
    def adjudicate(self, request, pk=None):
        return self._decide(request, review.trajectory_adjudicate, AdjudicateSerializer)

    def _revised(self, revision: TrajectoryRevision) -> Response:
        return Response(TrajectoryRevisionSerializer(revision).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Edit the request, answer, short answer or call arguments against the version you saw",
        request=EditSerializer,
        responses={201: TrajectoryRevisionSerializer, **REFUSED},
    )
    @action(detail=True, methods=["post"])
    def edit(self, request, pk=None):
        trajectory, body = self._item(request, serializer_class=EditSerializer)
        return self._revised(review.trajectory_edit(trajectory=trajectory, user=request.user, **body.validated_data))

    @extend_schema(
        summary="Bring back an earlier version as a new revision",
        request=RestoreSerializer,
        responses={201: TrajectoryRevisionSerializer, **REFUSED},
    )
    @action(detail=True, methods=["post"])
    def restore(self, request, pk=None):
        trajectory, body = self._item(request, serializer_class=RestoreSerializer)
        return self._revised(review.trajectory_restore(trajectory=trajectory, user=request.user, **body.validated_data))

    @extend_schema(
        summary="Run one call again through the executor (sandbox) and store the new observation",
        request=ReexecuteSerializer,
        responses={
            201: OpenApiResponse(description="{revision, changes: [{path, kind, before, after}]}"),
            **REFUSED,
        },
    )
    @action(detail=True, methods=["post"])
    def reexecute(self, request, pk=None):
        trajectory, body = self._item(request, serializer_class=ReexecuteSerializer)
        revision, changes = review.trajectory_call_reexecute(
            trajectory=trajectory, user=request.user, **body.validated_data
        )
        return Response(
            {
                "revision": TrajectoryRevisionSerializer(revision).data,
                "changes": [vars(c) for c in changes],
            },
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        summary="Undo my last decision or edit on this item",
        request=None,
        responses={200: OpenApiResponse(description="{detail}"), **REFUSED},
    )
    @action(detail=True, methods=["post"])
    def undo(self, request, pk=None):
        trajectory, _ = self._item(request)
        done = review.trajectory_undo(trajectory=trajectory, user=request.user)
        return Response({"detail": done})

    @extend_schema(summary="The item's decisions, oldest first", responses={200: ReviewDecisionSerializer(many=True)})
    @action(detail=True, methods=["get"])
    def decisions(self, request, pk=None):
        return Response(ReviewDecisionSerializer(decisions_of(self.get_object()), many=True).data)

    @extend_schema(
        summary="The item's revisions (before/after), newest first",
        responses={200: TrajectoryRevisionSerializer(many=True)},
    )
    @action(detail=True, methods=["get"])
    def revisions(self, request, pk=None):
        return Response(TrajectoryRevisionSerializer(revisions_of(self.get_object()), many=True).data)

    @extend_schema(
        summary="Approve or reject every pending or disputed item of the filters (reviewers), after confirming the count",
        request=BulkSerializer,
        responses={200: OpenApiResponse(description="{changed}"), **REFUSED},
    )
    @action(detail=False, methods=["post"])
    def bulk(self, request):
        body = BulkSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        queryset = self.filter_queryset(Trajectory.objects.all())
        changed = review.trajectory_bulk_decide(queryset=queryset, user=request.user, **body.validated_data)
        return Response({"changed": changed})


@extend_schema_view(
    list=extend_schema(summary="Frozen dataset versions, newest first"),
    retrieve=extend_schema(summary="One version: counts, checksum, filter, who froze it, datasheet, export"),
)
class DatasetVersionViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Named, immutable sets of approved trajectories; training reads a version's export folder."""

    queryset = version_list()
    serializer_class = DatasetVersionSerializer
    read_role = ANNOTATOR
    action_roles = {"create": REVIEWER, "export": REVIEWER}

    @extend_schema(
        summary="Freeze the approved items of a filter into a new version (reviewers)",
        request=FreezeSerializer,
        responses={201: DatasetVersionSerializer, **REFUSED},
    )
    def create(self, request, *args, **kwargs):
        body = FreezeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        filters = QueryDict(mutable=True)
        for key, value in body.validated_data["filter"].items():
            filters.setlist(key, [str(v) for v in value] if isinstance(value, list) else [str(value)])
        queryset = TrajectoryFilterSet(filters, queryset=Trajectory.objects.all()).qs
        version = review.dataset_version_freeze(
            name=body.validated_data["name"],
            queryset=queryset,
            user=request.user,
            filter_params=body.validated_data["filter"],
            description=body.validated_data["description"],
        )
        return Response(self.get_serializer(version_list().get(pk=version.pk)).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Export the version (OpenAI JSONL + Hugging Face folder) as a job (reviewers)",
        request=None,
        responses={202: OpenApiResponse(description="{job}"), **REFUSED},
    )
    @action(detail=True, methods=["post"])
    def export(self, request, pk=None):
        version = self.get_object()
        job = review.dataset_version_export_start(version=version, user=request.user)
        return Response({"job": job.pk}, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="The frozen items as OpenAI chat JSONL",
        responses={200: OpenApiResponse(description="application/x-ndjson, one {messages, tools} per line")},
    )
    @action(detail=True, methods=["get"])
    def download(self, request, pk=None):
        version = get_object_or_404(DatasetVersion, pk=pk)

        response = StreamingHttpResponse(
            version_jsonl_lines(version), content_type="application/x-ndjson; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{version.name}.jsonl"'
        return response
