"""Each edge's belief that it works: a Beta posterior, how trials update it, and when it is settled.

A success adds 1 to alpha. A structural failure (schema mismatch, missing field, the target finding nothing)
adds w_s to beta; an environmental one (timeout, 5xx, quota) adds only w_e, so transient faults never prune a
good edge. The prior is weak and leans on the candidate's score. An edge is verified once
P(theta > theta_verify) >= confidence, and pruned once P(theta < theta_prune) >= confidence, in both cases
after at least n_min informative trials (successes plus structural failures); a verified edge must also have
passed a control trial, and an edge whose controls all show the target ignoring the value is pruned. The
numbers are documented in docs/edge.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SUCCESS = "success"
STRUCTURAL = "structural"
ENVIRONMENTAL = "environmental"
SKIPPED = "skipped"
OUTCOMES = (SUCCESS, STRUCTURAL, ENVIRONMENTAL, SKIPPED)

VERIFIED = "verified"
PRUNED = "pruned"


@dataclass(frozen=True)
class PosteriorPolicy:
    w_s: float = 1.0
    w_e: float = 0.1
    theta_verify: float = 0.5
    theta_prune: float = 0.5
    confidence: float = 0.95
    n_min: int = 3
    prior_strength: float = 2.0  # alpha0 + beta0 before the score's lean
    require_control: bool = True
    # Controls in which the target returned the very same records for a mismatched value: this many, with
    # none passed, prune the edge (the parameter is ignored, so the link carries no information).
    uninformative_controls: int = 2

    def __post_init__(self):
        if not (self.w_s > 0 and 0 <= self.w_e < self.w_s):
            raise ValueError("weights must satisfy w_s > 0 and 0 <= w_e < w_s")
        if not (0 < self.theta_verify < 1 and 0 < self.theta_prune < 1 and 0.5 <= self.confidence < 1):
            raise ValueError("thresholds must lie in (0, 1) and confidence in [0.5, 1)")
        if self.n_min < 1 or self.prior_strength <= 0:
            raise ValueError("n_min must be at least 1 and prior_strength positive")

    def to_dict(self) -> dict[str, float]:
        return {
            "w_s": self.w_s,
            "w_e": self.w_e,
            "theta_verify": self.theta_verify,
            "theta_prune": self.theta_prune,
            "confidence": self.confidence,
            "n_min": self.n_min,
            "prior_strength": self.prior_strength,
            "require_control": self.require_control,
            "uninformative_controls": self.uninformative_controls,
        }


DEFAULT_POLICY = PosteriorPolicy()


def prior(score: float, policy: PosteriorPolicy = DEFAULT_POLICY) -> tuple[float, float]:
    """A weak prior: Beta(1 + s, 1 + (1 - s)) scaled to prior_strength + 1, s the candidate's score in [0, 1]."""
    s = min(1.0, max(0.0, score))
    scale = policy.prior_strength / 2.0
    return round(scale * (1.0 + s), 6), round(scale * (2.0 - s), 6)


def update(alpha: float, beta: float, outcome: str, policy: PosteriorPolicy = DEFAULT_POLICY) -> tuple[float, float]:
    """The posterior after one trial outcome; skipped trials change nothing."""
    da, db = deltas(outcome, policy)
    return alpha + da, beta + db


def deltas(outcome: str, policy: PosteriorPolicy = DEFAULT_POLICY) -> tuple[float, float]:
    if outcome == SUCCESS:
        return 1.0, 0.0
    if outcome == STRUCTURAL:
        return 0.0, policy.w_s
    if outcome == ENVIRONMENTAL:
        return 0.0, policy.w_e
    if outcome == SKIPPED:
        return 0.0, 0.0
    raise ValueError(f"unknown outcome {outcome!r}; expected one of {', '.join(OUTCOMES)}")


def mean(alpha: float, beta: float) -> float:
    return alpha / (alpha + beta)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 3e-14
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def cdf(x: float, alpha: float, beta: float) -> float:
    """P(theta <= x) for theta ~ Beta(alpha, beta): the regularized incomplete beta function I_x(alpha, beta)."""
    if alpha <= 0 or beta <= 0:
        raise ValueError("alpha and beta must be positive")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(alpha + beta) - math.lgamma(alpha) - math.lgamma(beta) + alpha * math.log(x) + beta * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (alpha + 1.0) / (alpha + beta + 2.0):
        return front * _betacf(alpha, beta, x) / alpha
    return 1.0 - front * _betacf(beta, alpha, 1.0 - x) / beta


def prob_above(theta: float, alpha: float, beta: float) -> float:
    return 1.0 - cdf(theta, alpha, beta)


def decide(
    alpha: float,
    beta: float,
    *,
    informative: int,
    controls_passed: int = 0,
    controls_failed: int = 0,
    confusions_held: int = 0,
    confusions_failed: int = 0,
    policy: PosteriorPolicy = DEFAULT_POLICY,
) -> str | None:
    """VERIFIED, PRUNED or None (keep trying), from the posterior and the number of informative trials.

    Specificity controls (another valid value of the same domain changed B's result) are controls_*; confusion
    controls (a value of the most confusable other domain made B fail) are confusions_*. An edge whose target
    accepts the confusable domain as readily as the right one is never verified."""
    if controls_passed == 0 and controls_failed >= policy.uninformative_controls:
        return PRUNED
    if confusions_held == 0 and confusions_failed >= policy.uninformative_controls:
        return PRUNED
    if informative < policy.n_min:
        return None
    if cdf(policy.theta_prune, alpha, beta) >= policy.confidence:
        return PRUNED
    if (
        prob_above(policy.theta_verify, alpha, beta) >= policy.confidence
        and (controls_passed > 0 or not policy.require_control)
        and confusions_failed <= confusions_held
    ):
        return VERIFIED
    return None
