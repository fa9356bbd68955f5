"""Value shapes: what a field's or a parameter's values look like, learned from examples and recorded calls.

A shape is a small set of kinds (digits of a fixed length, YYYYMMDD / YYYYMM dates, HHmm times, decimals in a
coordinate range, letter-prefixed codes, Hangul text ...) with the lengths, prefixes and numeric range seen.
Two shapes are compatible when a value of one could be a value of the other; the candidate matcher applies
a transform to the source's sample values first and compares the result with the target's shape.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_PREFIXED = re.compile(r"^([A-Za-z]{1,6})(\d{2,})$")
_DECIMAL = re.compile(r"^-?\d+\.\d+$")
_INTEGER = re.compile(r"^-?\d+$")

KINDS = (
    "empty",
    "digits",  # only digits (codes keep leading zeros)
    "int",  # an integer without leading zeros
    "decimal",
    "date_ymd",
    "date_ym",
    "time_hm",
    "year",
    "yn",
    "prefixed_code",  # letters then digits: DJB8001793
    "alnum",
    "hangul",
    "text",
)


def _is_date(text: str, fmt: str) -> bool:
    try:
        parsed = datetime.strptime(text, fmt)
    except ValueError:
        return False
    return 1900 <= parsed.year <= 2100


def kinds_of(value: object) -> frozenset[str]:
    """Every kind a single value could be (a value such as 1400 is both digits and an HHmm time)."""
    text = str(value).strip() if value is not None else ""
    if not text:
        return frozenset({"empty"})
    kinds: set[str] = set()
    if text.isdigit():
        kinds.add("digits")
        if text[0] != "0" or text == "0":
            kinds.add("int")
        if len(text) == 8 and _is_date(text, "%Y%m%d"):
            kinds.add("date_ymd")
        if len(text) == 6 and _is_date(text, "%Y%m"):
            kinds.add("date_ym")
        if len(text) == 4 and int(text[:2]) < 24 and int(text[2:]) < 60:
            kinds.add("time_hm")
        if len(text) == 4 and 1900 <= int(text) <= 2100:
            kinds.add("year")
    elif _INTEGER.match(text):
        kinds.add("int")
    elif _DECIMAL.match(text):
        kinds.add("decimal")
    elif text in ("Y", "N", "y", "n"):
        kinds.add("yn")
    elif _PREFIXED.match(text):
        kinds.add("prefixed_code")
    elif _HANGUL.search(text):
        kinds.add("hangul")
    elif text.isalnum() and text.isascii():
        kinds.add("alnum")
    else:
        kinds.add("text")
    return frozenset(kinds)


@dataclass(frozen=True)
class Shape:
    """A summary of sample values; `kinds` holds those every non-empty sample can be."""

    kinds: frozenset[str]
    lengths: frozenset[int]
    prefixes: frozenset[str]  # letter prefixes of prefixed codes
    low: float | None  # numeric range, when the values are numbers
    high: float | None
    samples: int  # how many non-empty samples, counted up to 3 (enough to trust a range)

    @property
    def is_known(self) -> bool:
        return self.samples > 0

    def signature(self) -> str:
        """A short stable text for caching and display: `digits/int len=5`, `prefixed_code DJB len=10`."""
        if not self.samples:
            return "unknown"
        kinds = "/".join(sorted(self.kinds)) or "mixed"
        parts = [kinds]
        if self.prefixes:
            parts.append(",".join(sorted(self.prefixes)))
        if len(self.lengths) <= 3:
            parts.append("len=" + ",".join(str(n) for n in sorted(self.lengths)))
        return " ".join(parts)


UNKNOWN = Shape(frozenset(), frozenset(), frozenset(), None, None, 0)


def profile(values: Iterable[object]) -> Shape:
    """The shape of sample values; empty values are ignored, and no samples give UNKNOWN."""
    kinds: frozenset[str] | None = None
    lengths: Counter[int] = Counter()
    prefixes: set[str] = set()
    numbers: list[float] = []
    samples = 0
    for value in values:
        text = str(value).strip() if value is not None else ""
        if not text:
            continue
        samples += 1
        value_kinds = kinds_of(text)
        kinds = value_kinds if kinds is None else kinds & value_kinds
        lengths[len(text)] += 1
        match = _PREFIXED.match(text)
        if match:
            prefixes.add(match.group(1).upper())
        if value_kinds & {"digits", "int", "decimal"}:
            with contextlib.suppress(ValueError):
                numbers.append(float(text))
    if not samples:
        return UNKNOWN
    # A range only means something for measurements (decimals) or several samples; rounded to two
    # significant digits it still tells a latitude from a longitude, and equal shapes stay equal.
    ranged = len(numbers) == samples and (samples >= 3 or "decimal" in (kinds or ()))
    return Shape(
        kinds=kinds or frozenset(),
        lengths=frozenset(lengths),
        prefixes=frozenset(prefixes),
        low=_two_digits(min(numbers)) if ranged else None,
        high=_two_digits(max(numbers)) if ranged else None,
        samples=min(samples, 3),
    )


def _two_digits(value: float) -> float:
    return float(f"{value:.2g}")


# Kinds that say a value is a specific thing; sharing only "digits" is weaker evidence.
_SPECIFIC = {"date_ymd", "date_ym", "time_hm", "year", "yn", "prefixed_code", "decimal", "hangul"}


def compatibility(source: Shape, target: Shape) -> float:
    """How well values of `source` fit where `target` values go: 0 (impossible) to 1; 0.5 when unknown."""
    if not source.is_known or not target.is_known:
        return 0.5
    shared = source.kinds & target.kinds
    if not shared:
        # A number written with or without leading zeros / decimals still fits a numeric parameter.
        numeric = {"digits", "int", "decimal"}
        if source.kinds & numeric and target.kinds & numeric:
            shared = frozenset({"int"})
        elif source.kinds & {"alnum", "text", "hangul"} and target.kinds & {"alnum", "text", "hangul"}:
            return 0.3
        else:
            return 0.0
    score = 0.6 if shared & _SPECIFIC else 0.45
    if "digits" in shared and "int" not in shared:
        score += 0.05  # both keep leading zeros: code-like on both sides
    if source.lengths and target.lengths:
        if source.lengths == target.lengths:
            score += 0.25
        elif source.lengths & target.lengths:
            score += 0.12
        elif shared & {"digits", "prefixed_code"} and len(source.lengths) == len(target.lengths) == 1:
            return 0.1  # fixed-length codes of different lengths do not fit
    if source.prefixes and target.prefixes:
        score += 0.15 if source.prefixes & target.prefixes else -0.3
    if None not in (source.low, source.high, target.low, target.high):
        overlap = min(source.high, target.high) - max(source.low, target.low)
        span = max(source.high, target.high) - min(source.low, target.low)
        # Disjoint ranges: a latitude is no longitude. Single code samples say nothing about a range.
        if span > 0 and overlap < 0:
            distance = -overlap / span
            score -= 0.3 if distance > 0.5 else 0.15
    return max(0.0, min(1.0, score))


def overlap(source_values: Iterable[object], target_values: Iterable[object]) -> float:
    """Share of the smaller value set that also appears in the other (after str/strip)."""
    a = {str(v).strip() for v in source_values if v is not None and str(v).strip()}
    b = {str(v).strip() for v in target_values if v is not None and str(v).strip()}
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))
