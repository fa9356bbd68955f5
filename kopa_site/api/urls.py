"""The one API router. Each app registers its viewsets here."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from apis.api.views import ApiCallViewSet, ApiServiceViewSet, ProviderViewSet, SpecImportView, ToolViewSet
from benchmarks.api.views import EvalRunViewSet, ModelEntryViewSet, TaskResultViewSet, TaskViewSet
from datasets.api.review import DatasetVersionViewSet, ReviewViewSet
from datasets.api.views import SynthesisRunViewSet, TrajectoryViewSet
from graphs.api.views import CandidateEdgeViewSet, EdgeTrialViewSet, GraphSnapshotViewSet, VerificationRunViewSet
from kopa_site.api.jobs import JobViewSet
from kopa_site.api.views import ObtainTokenView, StatsViewSet
from training.api.views import TrainingRunViewSet

router = DefaultRouter()
router.register("stats", StatsViewSet, basename="stats")
router.register("jobs", JobViewSet, basename="job")
router.register("providers", ProviderViewSet, basename="provider")
router.register("services", ApiServiceViewSet, basename="apiservice")
router.register("tools", ToolViewSet, basename="tool")
router.register("calls", ApiCallViewSet, basename="apicall")
router.register("edges", CandidateEdgeViewSet, basename="candidateedge")
router.register("edge-trials", EdgeTrialViewSet, basename="edgetrial")
router.register("edge-runs", VerificationRunViewSet, basename="verificationrun")
router.register("graph-snapshots", GraphSnapshotViewSet, basename="graphsnapshot")
router.register("synthesis-runs", SynthesisRunViewSet, basename="synthesisrun")
router.register("trajectories", TrajectoryViewSet, basename="trajectory")
router.register("review", ReviewViewSet, basename="review")
router.register("dataset-versions", DatasetVersionViewSet, basename="datasetversion")
router.register("bench-tasks", TaskViewSet, basename="benchtask")
router.register("bench-models", ModelEntryViewSet, basename="modelentry")
router.register("bench-runs", EvalRunViewSet, basename="evalrun")
router.register("bench-results", TaskResultViewSet, basename="taskresult")
router.register("training-runs", TrainingRunViewSet, basename="trainingrun")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("auth/token/", ObtainTokenView.as_view(), name="api-token"),
    path("specs/import/", SpecImportView.as_view(), name="spec-import"),
    path("", include(router.urls)),
]
