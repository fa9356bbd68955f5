"""Which undecided edges to try next: Thompson sampling over their Beta posteriors.

Each round draws theta ~ Beta(alpha, beta) for every eligible edge and tries the highest draws, so promising
and uncertain edges get trials while hopeless ones fade. Draws are seeded by (seed, round, edge), so a
round's choice is the same in any process and after a restart.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Arm:
    edge_id: int
    alpha: float
    beta: float


def rng_for(*parts: object) -> random.Random:
    """A random generator fixed by its parts (never Python's salted hash())."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def thompson_pick(arms: Iterable[Arm], k: int, *, seed: object, round_number: int) -> list[int]:
    """The k edge ids with the highest posterior draws this round, best first."""
    draws = [(rng_for(seed, round_number, arm.edge_id).betavariate(arm.alpha, arm.beta), arm.edge_id) for arm in arms]
    draws.sort(key=lambda item: (-item[0], item[1]))
    return [edge_id for _, edge_id in draws[: max(0, k)]]
