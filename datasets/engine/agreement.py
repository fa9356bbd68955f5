"""Inter-annotator agreement on overlapping items: percent agreement, Cohen's kappa (two raters) and
Krippendorff's alpha (nominal, any number of raters per item, missing ratings allowed). Plain Python."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from itertools import combinations


def percent_agreement(items: Iterable[Sequence[Hashable]]) -> float | None:
    """Share of agreeing pairs among all pairs of ratings on the same item; None without any pair."""
    agree = pairs = 0
    for ratings in items:
        for a, b in combinations(ratings, 2):
            pairs += 1
            agree += a == b
    return agree / pairs if pairs else None


def cohens_kappa(pairs: Iterable[tuple[Hashable, Hashable]]) -> float | None:
    """Cohen's kappa of two raters: (observed - chance) / (1 - chance). None without pairs.

    When both raters always use one and the same label, chance agreement is 1 and kappa is undefined;
    it is reported as 1.0 when they also agree on every item (perfect agreement), else None.
    """
    pairs = list(pairs)
    n = len(pairs)
    if not n:
        return None
    observed = sum(a == b for a, b in pairs) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    chance = sum(first[label] * second.get(label, 0) for label in first) / (n * n)
    if chance == 1:
        return 1.0 if observed == 1 else None
    return (observed - chance) / (1 - chance)


def krippendorff_alpha(items: Iterable[Sequence[Hashable]]) -> float | None:
    """Krippendorff's alpha for nominal labels: 1 - observed / expected disagreement.

    Items with fewer than two ratings carry no information and are skipped. None when no item has two
    ratings, or when every rating is the same label (no variation to disagree about).
    """
    units = [list(r) for r in items if len(r) >= 2]
    if not units:
        return None
    coincidences: Counter = Counter()
    for ratings in units:
        m = len(ratings)
        counts = Counter(ratings)
        for c in counts:
            for k in counts:
                pairs = counts[c] * (counts[k] - (c == k))
                if pairs:
                    coincidences[(c, k)] += pairs / (m - 1)
    totals: Counter = Counter()
    for (c, _k), value in coincidences.items():
        totals[c] += value
    n = sum(totals.values())
    if n <= 1:
        return None
    observed = sum(v for (c, k), v in coincidences.items() if c != k) / n
    expected = sum(totals[c] * totals[k] for c in totals for k in totals if c != k) / (n * (n - 1))
    if expected == 0:
        return None
    return 1 - observed / expected
