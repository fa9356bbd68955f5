"""The EDGE graph: candidate links between tools, every trial that tested one, verification runs, snapshots.

A CandidateEdge says "field F of tool A's records can fill parameter P of tool B" (through a transform). It
is kept only when trials prove it: each EdgeTrial executes A and B through the catalog's executor (leaving two
ApiCalls) and moves the edge's Beta posterior. A VerificationRun is one batch of trials, resumable; a
GraphSnapshot freezes the verified edges as a networkx graph with its statistics.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from graphs.engine import posterior
from kopa_site.models import Run


class CandidateEdge(models.Model):
    class Status(models.TextChoices):
        PROPOSED = "proposed", _("proposed")
        VERIFYING = "verifying", _("verifying")
        VERIFIED = "verified", _("verified")
        PRUNED = "pruned", _("pruned")
        # The source field only returned the call's own input (same value or a known projection of it): the
        # link proves nothing and is never a hop.
        ECHO = "echo", _("echo (returns its input)")
        # Every trial was skipped (the target lacked a required value, the source never answered): no evidence.
        UNTESTABLE = "untestable", _("untestable")

    class Proposer(models.TextChoices):
        RULES = "rules", "rules"
        LLM = "llm", "LLM"
        MANUAL = "manual", "manual"

    source_tool = models.ForeignKey("apis.Tool", on_delete=models.CASCADE, related_name="out_edges")
    source_field = models.CharField(
        max_length=300, help_text='Record field path, or two for a coordinate pair: "entX,entY".'
    )
    target_tool = models.ForeignKey("apis.Tool", on_delete=models.CASCADE, related_name="in_edges")
    target_param = models.CharField(max_length=300, help_text='Parameter name, or two: "nx,ny".')
    transform = models.CharField(
        max_length=100, default="identity", help_text='A registry spec: "identity", "slice:0:5", "project:utmk:kma".'
    )
    signals = models.JSONField(default=dict, blank=True, help_text="Per-signal scores and their total.")
    score = models.FloatField(default=0.0, db_index=True, help_text="The proposer's total score in [0, 1].")
    proposer = models.CharField(max_length=10, choices=Proposer.choices, default=Proposer.RULES)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED, db_index=True)
    prior_alpha = models.FloatField(default=1.0)
    prior_beta = models.FloatField(default=1.0)
    alpha = models.FloatField(default=1.0)
    beta = models.FloatField(default=1.0)
    posterior_mean = models.FloatField(default=0.5, db_index=True, help_text="alpha / (alpha + beta).")
    trials_success = models.PositiveIntegerField(default=0)
    trials_structural = models.PositiveIntegerField(default=0)
    trials_environmental = models.PositiveIntegerField(default=0)
    trials_skipped = models.PositiveIntegerField(default=0)
    controls_passed = models.PositiveIntegerField(default=0, help_text="Controls whose mismatched value changed B.")
    controls_failed = models.PositiveIntegerField(default=0, help_text="Controls where B ignored the value.")
    confusions_held = models.PositiveIntegerField(
        default=0, help_text="Confusion controls where B failed for a value of the most confusable other domain."
    )
    confusions_failed = models.PositiveIntegerField(
        default=0, help_text="Confusion controls where B accepted a value of another domain."
    )
    domains = models.JSONField(
        default=dict, blank=True, help_text='Domains of both ends: {"source": [...], "target": [...]}.'
    )
    reason = models.CharField(max_length=300, blank=True, help_text="Why the edge is pruned, an echo or untestable.")
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-posterior_mean", "-score", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["source_tool", "source_field", "target_tool", "target_param", "transform"],
                name="candidate_edge_unique_binding",
            ),
        ]
        indexes = [models.Index(fields=["status", "posterior_mean"], name="edge_status_posterior")]

    def __str__(self) -> str:
        return f"{self.source_tool}.{self.source_field} → {self.target_tool}.{self.target_param} [{self.transform}]"

    @property
    def source_fields(self) -> list[str]:
        return self.source_field.split(",")

    @property
    def target_params(self) -> list[str]:
        return self.target_param.split(",")

    @property
    def trials_main(self) -> int:
        return self.trials_success + self.trials_structural + self.trials_environmental + self.trials_skipped

    @property
    def informative_trials(self) -> int:
        return self.trials_success + self.trials_structural

    @property
    def success_rate(self) -> float | None:
        tried = self.informative_trials
        return self.trials_success / tried if tried else None

    @property
    def prob_viable(self) -> float:
        """P(theta > theta_verify) under the current posterior."""
        return posterior.prob_above(posterior.DEFAULT_POLICY.theta_verify, self.alpha, self.beta)


class VerificationRun(Run):
    """One batch of trials: which edges, how many rounds, and a cursor a restarted job continues from.

    params: rounds, batch_size, seed, mode, edges ... (docs/edge.md); counters: trials by outcome, calls, decisions.
    """

    noun = "verification run"

    state = models.JSONField(default=dict, blank=True, help_text="Cursor: the round and its planned trials.")


class EdgeTrial(models.Model):
    """One attempt to prove an edge: the calls made, the values used, and what came of it."""

    class Kind(models.TextChoices):
        MAIN = "main", "main"
        CONTROL = "control", "specificity control"
        CONFUSION = "confusion", "confusion control"

    class Outcome(models.TextChoices):
        SUCCESS = posterior.SUCCESS, "success"
        STRUCTURAL = posterior.STRUCTURAL, "structural failure"
        ENVIRONMENTAL = posterior.ENVIRONMENTAL, "environmental failure"
        SKIPPED = posterior.SKIPPED, "skipped"

    edge = models.ForeignKey(CandidateEdge, on_delete=models.CASCADE, related_name="trials")
    run = models.ForeignKey(VerificationRun, on_delete=models.CASCADE, related_name="trials")
    seq = models.PositiveIntegerField(
        help_text="Attempt number within (run, edge): 3 × round, + 1 for the specificity control, + 2 for the confusion one."
    )
    round = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.MAIN)
    source_call = models.ForeignKey("apis.ApiCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    target_call = models.ForeignKey("apis.ApiCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    values = models.JSONField(default=dict, blank=True, help_text="Source inputs, values read, values bound.")
    outcome = models.CharField(max_length=15, choices=Outcome.choices, db_index=True)
    failure_class = models.CharField(max_length=80, blank=True, help_text="e.g. struct.no_data, env.timeout.")
    detail = models.TextField(blank=True)
    alpha_delta = models.FloatField(default=0.0)
    beta_delta = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["edge_id", "run_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "edge", "seq"], name="edge_trial_unique_attempt")]

    def __str__(self) -> str:
        return f"trial {self.run_id}/{self.edge_id}/{self.seq} {self.kind} {self.outcome}"


class GraphSnapshot(models.Model):
    """The verified edges at one moment as node-link JSON, with the graph's statistics."""

    version = models.PositiveIntegerField(unique=True)
    run = models.ForeignKey(VerificationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="snapshots")
    node_link = models.JSONField(default=dict, help_text="networkx node-link data of the verified DiGraph.")
    stats = models.JSONField(default=dict, help_text="Nodes, edges, components, chain lengths ...")
    refinement = models.JSONField(default=dict, help_text="Trial success rates before and after refinement.")
    note = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-version"]

    def __str__(self) -> str:
        return f"Graph v{self.version}"
