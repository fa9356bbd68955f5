"""The site's models as the home page and part pages name them, in the page's language. Django derives the
English names from the class names; these are the same names, marked for translation, so the counts read in
Korean without changing the models (a new verbose_name would be a migration in every app)."""

from django.utils.translation import gettext_lazy as _

MODEL_NAMES_PLURAL = {
    "kopa_site.job": _("jobs"),
    "apis.provider": _("providers"),
    "apis.apiservice": _("API services"),
    "apis.tool": _("tools"),
    "apis.credential": _("credentials"),
    "apis.apicall": _("API calls"),
    "graphs.candidateedge": _("candidate edges"),
    "graphs.verificationrun": _("verification runs"),
    "graphs.edgetrial": _("edge trials"),
    "graphs.graphsnapshot": _("graph snapshots"),
    "datasets.synthesisrun": _("synthesis runs"),
    "datasets.trajectory": _("trajectories"),
    "datasets.trajectorystep": _("trajectory steps"),
    "datasets.trajectorycall": _("trajectory calls"),
    "datasets.reviewpolicy": _("review policy"),
    "datasets.reviewdecision": _("review decisions"),
    "datasets.trajectoryrevision": _("trajectory revisions"),
    "datasets.datasetversion": _("dataset versions"),
    "datasets.datasetversionitem": _("dataset version items"),
    "benchmarks.task": _("tasks"),
    "benchmarks.modelentry": _("model entries"),
    "benchmarks.evalrun": _("evaluation runs"),
    "benchmarks.taskresult": _("task results"),
    "benchmarks.leaderboardsettings": _("leaderboard settings"),
    "training.trainingrun": _("training runs"),
    "training.trainingmetric": _("training metrics"),
}
