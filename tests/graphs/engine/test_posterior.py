"""Beta posteriors: the incomplete beta function, updates by outcome, stop rules and Thompson sampling."""

import math
import random

import pytest

from graphs.engine import posterior
from graphs.engine.sampling import Arm, rng_for, thompson_pick


@pytest.mark.parametrize(("alpha", "beta"), [(1, 1), (2, 1), (1, 3), (5, 2), (0.5, 0.5), (30, 40), (2.7, 1.1)])
@pytest.mark.parametrize("x", [0.05, 0.3, 0.5, 0.77, 0.95])
def test_cdf_matches_numerical_integration(alpha, beta, x):
    # Midpoint rule on the density; fine enough away from the endpoints' singularities.
    n = 200_000
    log_b = math.lgamma(alpha) + math.lgamma(beta) - math.lgamma(alpha + beta)
    step = x / n
    total = sum(
        math.exp((alpha - 1) * math.log(t) + (beta - 1) * math.log1p(-t) - log_b)
        for t in ((i + 0.5) * step for i in range(n))
    )
    assert posterior.cdf(x, alpha, beta) == pytest.approx(total * step, abs=2e-3)


def test_closed_forms():
    assert posterior.cdf(0.3, 1, 1) == pytest.approx(0.3)
    assert posterior.prob_above(0.5, 2, 1) == pytest.approx(0.75)
    assert posterior.cdf(0.0, 2, 3) == 0.0 and posterior.cdf(1.0, 2, 3) == 1.0


def test_updates_weight_structural_failures_far_above_environmental_ones():
    policy = posterior.PosteriorPolicy()
    assert posterior.update(1, 1, posterior.SUCCESS, policy) == (2, 1)
    assert posterior.update(1, 1, posterior.STRUCTURAL, policy) == (1, 2)
    assert posterior.update(1, 1, posterior.ENVIRONMENTAL, policy) == (1, pytest.approx(1.1))
    assert posterior.update(1, 1, posterior.SKIPPED, policy) == (1, 1)
    with pytest.raises(ValueError, match="unknown outcome"):
        posterior.update(1, 1, "maybe", policy)


def test_the_prior_is_weak_and_leans_on_the_score():
    low, high = posterior.prior(0.3), posterior.prior(0.9)
    assert sum(low) == pytest.approx(3.0) and sum(high) == pytest.approx(3.0)
    assert posterior.mean(*high) > posterior.mean(*low)


@pytest.mark.parametrize("score", [0.3, 0.6, 1.0])
def test_a_consistently_working_edge_is_verified_within_five_trials_once_a_control_passed(score):
    policy = posterior.PosteriorPolicy()
    alpha, beta = posterior.prior(score, policy)
    verified_at = None
    for n in range(1, 10):
        alpha, beta = posterior.update(alpha, beta, posterior.SUCCESS, policy)
        assert posterior.decide(alpha, beta, informative=n, controls_passed=0, policy=policy) is None
        if posterior.decide(alpha, beta, informative=n, controls_passed=1, policy=policy) == posterior.VERIFIED:
            verified_at = n
            break
    assert verified_at is not None and policy.n_min <= verified_at <= 5


def test_a_broken_edge_is_pruned():
    policy = posterior.PosteriorPolicy()
    alpha, beta = posterior.prior(0.9, policy)
    decisions = []
    for n in range(1, 10):
        alpha, beta = posterior.update(alpha, beta, posterior.STRUCTURAL, policy)
        decisions.append(posterior.decide(alpha, beta, informative=n, policy=policy))
    assert posterior.PRUNED in decisions
    assert decisions.index(posterior.PRUNED) + 1 <= 6


def test_an_edge_whose_target_ignores_the_value_is_pruned_by_its_controls():
    policy = posterior.PosteriorPolicy()
    alpha, beta = posterior.prior(0.8, policy)
    for _ in range(6):
        alpha, beta = posterior.update(alpha, beta, posterior.SUCCESS, policy)
    assert posterior.decide(alpha, beta, informative=6, controls_passed=0, controls_failed=1, policy=policy) is None
    assert (
        posterior.decide(alpha, beta, informative=6, controls_passed=0, controls_failed=2, policy=policy)
        == posterior.PRUNED
    )
    assert (
        posterior.decide(alpha, beta, informative=6, controls_passed=1, controls_failed=2, policy=policy)
        == posterior.VERIFIED
    )


def test_transient_faults_never_prune_a_good_edge():
    policy = posterior.PosteriorPolicy()
    alpha, beta = posterior.prior(0.5, policy)
    for _ in range(40):  # a long outage: every trial failed environmentally
        alpha, beta = posterior.update(alpha, beta, posterior.ENVIRONMENTAL, policy)
        assert posterior.decide(alpha, beta, informative=0, policy=policy) is None
    for _ in range(4):
        alpha, beta = posterior.update(alpha, beta, posterior.SUCCESS, policy)
    # Four successes still outweigh forty outage failures.
    assert posterior.cdf(policy.theta_prune, alpha, beta) < policy.confidence


@pytest.mark.parametrize("kwargs", [{"w_s": 0.1, "w_e": 0.2}, {"theta_verify": 1.2}, {"n_min": 0}, {"confidence": 0.3}])
def test_inconsistent_policies_are_refused(kwargs):
    with pytest.raises(ValueError):
        posterior.PosteriorPolicy(**kwargs)


def test_thompson_sampling_is_deterministic_per_round_and_favours_strong_edges():
    arms = [Arm(1, 20, 1), Arm(2, 1, 20), Arm(3, 2, 2)]
    assert thompson_pick(arms, 2, seed=7, round_number=3) == thompson_pick(
        list(reversed(arms)), 2, seed=7, round_number=3
    )
    picks = [thompson_pick(arms, 1, seed=7, round_number=r)[0] for r in range(200)]
    assert picks.count(1) > picks.count(3) > picks.count(2)


def test_rng_for_does_not_depend_on_the_process_hash_seed():
    assert rng_for("run", 1, 2).random() == rng_for("run", 1, 2).random()
    assert rng_for("run", 1, 2).random() != random.Random(0).random()
