"""Answer checkers for KOPA-Bench: exact, set, numeric (with tolerance and Korean units), contains, boolean.

Every checker first takes the answer part of a reply (the text after the last "정답:" / "최종 답:" /
"Answer:" marker, or the whole reply without one) and normalises it (normalize_text). The rules are in
docs/bench.md ("Answer checkers"); in short:

- NFKC, so full-width digits and letters become ASCII and ㎍/㎥ ㎡ ℃ become μg/m3, m2, °C;
- lowercase; every run of whitespace becomes one space; thousands separators between digits go (1,234 → 1234);
- exact also drops spaces and the punctuation ,./-_*^()[]{}'"`!?·~:; and one polite ending (입니다, 이에요,
  예요, 이다, 임), so "서울 중구입니다." equals "서울중구";
- contains looks for the gold text as a whole word: spacing inside it is free, it may not sit inside a longer
  word, and a Korean particle or ending may follow it (중구가, 중구입니다);
- numeric reads every number with its magnitude (조, 억, 천만, 백만, 십만, 만, 천) and unit (원, ℃/°C/도,
  μg/m³, %, m², or a counter such as 명/건/세대), converts currency to 원, and passes when one of them is
  within tolerance of the gold value; 영하 makes a number negative;
- boolean reads the first yes/no word (예, 네, 맞습니다 … / 아니오, 아니요, 아닙니다, 않습니다 …).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from apis.engine.korean_text import (  # noqa: F401 (re-exported: the checkers' public text helpers)
    Quantity,
    boolean_value,
    extract_answer,
    find_word,
    normalize_text,
    numbers_match,
    parse_unit,
    read_boolean,
    read_quantities,
    squash,
)

CHECKERS = ("exact", "set", "numeric", "contains", "boolean")


@dataclass(frozen=True)
class CheckResult:
    passed: bool
    checker: str
    detail: str = ""

    def __bool__(self) -> bool:
        return self.passed


# ------------------------------------------------------------------------------------------- checkers


def check_exact(answer: str | None, gold: str, aliases: Iterable[str] = ()) -> CheckResult:
    got = extract_answer(answer)
    wanted_bool = boolean_value(gold)
    if wanted_bool is not None and boolean_value(got) is not None:
        passed = boolean_value(got) == wanted_bool
        return CheckResult(passed, "exact", "" if passed else f"expected {gold!r}, got {got!r}")
    options = [gold, *aliases]
    passed = squash(got) in {squash(option) for option in options}
    return CheckResult(passed, "exact", "" if passed else f"expected {gold!r}, got {got!r}")


def check_contains(answer: str | None, gold: str, aliases: Iterable[str] = ()) -> CheckResult:
    got = extract_answer(answer)
    passed = any(find_word(option, got) for option in [gold, *aliases])
    return CheckResult(passed, "contains", "" if passed else f"{gold!r} does not appear in the answer")


def check_set(answer: str | None, items: Sequence[str | Sequence[str]], forbid: Iterable[str] = ()) -> CheckResult:
    """Every gold item (a text or a list of spellings of it) appears; no forbidden item does."""
    got = extract_answer(answer)
    missing = []
    for item in items:
        spellings = [item] if isinstance(item, str) else list(item)
        if not any(find_word(s, got) for s in spellings):
            missing.append(spellings[0])
    present = [f for f in forbid if find_word(f, got)]
    problems = []
    if missing:
        problems.append("missing " + ", ".join(repr(m) for m in missing))
    if present:
        problems.append("should not list " + ", ".join(repr(p) for p in present))
    return CheckResult(not problems, "set", "; ".join(problems))


def check_numeric(
    answer: str | None,
    gold: float,
    *,
    unit: str | None = None,
    tolerance: float = 0.0,
    rel_tolerance: float = 0.0,
) -> CheckResult:
    quantities = read_quantities(answer)
    found = numbers_match(quantities, gold, unit=unit, tolerance=tolerance, rel_tolerance=rel_tolerance)
    if found is not None:
        return CheckResult(True, "numeric")
    seen = ", ".join(f"{_number(q.value)}{' ' + q.family if q.family else ''}" for q in quantities[:5]) or "no number"
    return CheckResult(False, "numeric", f"expected {_number(gold)}{' ' + unit if unit else ''}; read {seen}")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def check_boolean(answer: str | None, gold: Any) -> CheckResult:
    wanted = boolean_value(gold)
    got = read_boolean(answer)
    if got is None:
        return CheckResult(False, "boolean", "no yes/no word in the answer")
    passed = got == wanted
    return CheckResult(passed, "boolean", "" if passed else f"expected {'예' if wanted else '아니오'}")


def check_answer(spec: Any, answer: str | None) -> CheckResult:
    """Run the checker an AnswerSpec (benchmarks.engine.task) names on a model's final reply."""
    if spec.checker == "exact":
        return check_exact(answer, str(spec.value), spec.aliases)
    if spec.checker == "contains":
        return check_contains(answer, str(spec.value), spec.aliases)
    if spec.checker == "set":
        return check_set(answer, spec.value, spec.forbid)
    if spec.checker == "numeric":
        return check_numeric(
            answer, float(spec.value), unit=spec.unit, tolerance=spec.tolerance, rel_tolerance=spec.rel_tolerance
        )
    if spec.checker == "boolean":
        return check_boolean(answer, spec.value)
    raise ValueError(f"unknown checker {spec.checker!r}; expected one of {', '.join(CHECKERS)}")


def is_finite_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
