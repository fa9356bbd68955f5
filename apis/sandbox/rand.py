"""Deterministic randomness: every generator seeds from a stable hash of its inputs, never Python's hash()."""

from __future__ import annotations

import hashlib
import random


def stable_int(*parts: object) -> int:
    """A 64-bit integer that depends only on the text of parts (stable across processes and runs)."""
    text = "\x1f".join(map(str, parts))
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def rng(*parts: object) -> random.Random:
    """A fresh random.Random seeded from parts; the same parts always give the same sequence."""
    return random.Random(stable_int(*parts))


def pick_weighted(r: random.Random, options: list[tuple[object, float]]):
    """One option drawn by weight, e.g. pick_weighted(r, [("개인", 0.8), ("법인", 0.2)])."""
    # A plain running total: what sum() did up to Python 3.11 (3.12 compensates, which would move the data),
    # and it is the hot line of the nationwide builders.
    total = 0
    for _, weight in options:
        total += weight
    point = r.random() * total
    for value, weight in options:
        point -= weight
        if point < 0:
            return value
    return options[-1][0]
