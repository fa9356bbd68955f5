"""Korean text primitives shared by KOPA-Bench's answer checkers and the synthesis filters.

Normalisation (NFKC, lowercase, spaces, thousands separators), whole-word search that lets a Korean particle
or ending follow, yes/no reading, and quantities with their magnitude (조, 억, 천만, 만 …) and unit family.
They live here, below both apps, so a benchmark checker and a synthesis filter judge text the same way;
benchmarks/engine/checkers.py documents the rules (docs/bench.md, "Answer checkers").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

ANSWER_MARKER = re.compile(r"(?:정답|최종\s*답변?|final\s+answer|answer)\s*[:：]", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_MINUS = str.maketrans({"−": "-", "–": "-", "﹣": "-", "－": "-"})
_EXACT_DROP = re.compile(r"[\s,./\-_*^()\[\]{}'\"`!?·~:;]")
_ENDINGS = ("입니다", "이에요", "예요", "이다", "임")
_HANGUL = re.compile(r"[가-힣ㄱ-ㅎㅏ-ㅣ]")
# Characters a Korean particle or ending may start with, so "중구가", "중구입니다" still contain "중구".
_PARTICLE_STARTS = set("은는이가을를의에와과로으도만까부보처입였인임라야요예며고랑께")


# --------------------------------------------------------------------------------------- normalisation


def extract_answer(text: str | None) -> str:
    """The answer part of a reply: what follows the last answer marker, or the whole reply."""
    if not text:
        return ""
    matches = list(ANSWER_MARKER.finditer(text))
    return text[matches[-1].end() :].strip() if matches else text.strip()


def normalize_text(text: str | None) -> str:
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text).translate(_MINUS).lower()
    text = _THOUSANDS.sub("", text)
    return _SPACES.sub(" ", text).strip()


def squash(text: str | None) -> str:
    """The exact checker's form: normalised, without spaces, punctuation or one polite ending."""
    text = _EXACT_DROP.sub("", normalize_text(text))
    for ending in _ENDINGS:
        if text.endswith(ending) and len(text) > len(ending):
            return text[: -len(ending)]
    return text


def _is_word_char(char: str) -> bool:
    return char.isalnum() or bool(_HANGUL.match(char))


def find_word(needle: str, haystack: str) -> bool:
    """Whether the normalised needle occurs in the normalised haystack as a whole word (Korean-aware).

    A needle ending in `*` is a stem: any continuation matches ("조회할 수 없*" finds "조회할 수 없습니다").
    """
    stem = needle.rstrip().endswith("*")
    needle, haystack = normalize_text(needle.rstrip().rstrip("*")), normalize_text(haystack)
    compact = needle.replace(" ", "")
    # Normalised text has single spaces only, so a needle absent from the spaceless haystack cannot match: most
    # searches (a filter asking whether a request leaks a value) end here, without building a pattern.
    if not compact or compact not in haystack.replace(" ", ""):
        return False
    pattern = re.compile(r"\s*".join(re.escape(c) for c in compact))
    for match in pattern.finditer(haystack):
        start, end = match.start(), match.end()
        if start > 0 and _is_word_char(haystack[start - 1]) and _is_word_char(compact[0]):
            continue
        if end < len(haystack) and not stem:
            following = haystack[end]
            if following.isdigit() and compact[-1].isdigit():
                continue
            if following == "." and compact[-1].isdigit() and haystack[end + 1 : end + 2].isdigit():
                continue
            if following.isascii() and following.isalnum() and compact[-1].isascii() and compact[-1].isalnum():
                continue
            if _HANGUL.match(following) and _HANGUL.match(compact[-1]) and following not in _PARTICLE_STARTS:
                continue
        return True
    return False


# ------------------------------------------------------------------------------------------- booleans

_YES = ("예", "네", "응", "맞습니다", "맞아요", "맞다", "그렇습니다", "그래요", "yes", "true", "y", "o")
_NO = (
    "아니오",
    "아니요",
    "아닙니다",
    "아니에요",
    "아니다",
    "아니",
    "않습니다",
    "않아요",
    "없습니다",
    "no",
    "false",
    "n",
    "x",
)


def read_boolean(text: str | None) -> bool | None:
    """The first yes/no word of the answer part, or None when there is none."""
    answer = normalize_text(extract_answer(text))
    best: tuple[int, int, bool] | None = None
    for words, meaning in ((_YES, True), (_NO, False)):
        for word in words:
            for match in re.finditer(re.escape(word), answer):
                start, end = match.span()
                before = answer[start - 1] if start else " "
                after = answer[end] if end < len(answer) else " "
                if word.isascii():
                    if (before.isascii() and before.isalnum()) or (after.isascii() and after.isalnum()):
                        continue
                    if len(word) == 1 and answer.strip(" .!") != word:
                        continue  # a lone y/n/o/x only counts as the whole answer
                elif len(word) <= 2 and (_is_word_char(before) or _HANGUL.match(after)):
                    continue  # a short word inside a longer one: "예" in 예정/일예요, "네" in 네이버
                candidate = (start, -len(word), meaning)
                if best is None or candidate < best:
                    best = candidate
                break
    return None if best is None else best[2]


def boolean_value(value: Any) -> bool | None:
    """A gold boolean written as true/false, Y/N, 예/아니오 …; None when it is not one."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        token = squash(value)
        if token in {"y", "yes", "true", "예", "네", "o", "1"}:
            return True
        if token in {"n", "no", "false", "아니오", "아니요", "x", "0"}:
            return False
    return None


# -------------------------------------------------------------------------------------------- numbers

_MAGNITUDES = {"조": 1e12, "억": 1e8, "천만": 1e7, "백만": 1e6, "십만": 1e5, "만": 1e4, "천": 1e3}
_CURRENCY = {"원": 1.0}
_UNIT_FAMILIES = {
    "원": "krw",
    "°c": "celsius",
    "℃": "celsius",
    "도": "celsius",
    "μg/m3": "ug/m3",
    "µg/m3": "ug/m3",
    "ug/m3": "ug/m3",
    "마이크로그램": "ug/m3",
    "%": "percent",
    "퍼센트": "percent",
    "m2": "m2",
    "m²": "m2",
    "제곱미터": "m2",
}
_COUNTERS = ("명", "세대", "건", "개", "곳", "회", "가구", "대", "일", "호", "km", "m")
_NUMBER = re.compile(
    r"(?P<neg>영하\s*)?(?P<sign>(?<![\w.])-)?(?<![A-Za-z\d.])(?P<num>\d+(?:\.\d+)?)\s*(?P<mag>조|억|천만|백만|십만|만|천)?"
)
_UNIT_AFTER = re.compile(
    r"\s*(?P<unit>μg/m3|µg/m3|ug/m3|마이크로그램|°c|℃|m2|m²|제곱미터|퍼센트|%|원|도|"
    + "|".join(re.escape(c) for c in _COUNTERS)
    + r")"
)


@dataclass(frozen=True)
class Quantity:
    value: float  # in the family's base unit (원 for money)
    family: str | None  # krw, celsius, ug/m3, percent, m2, a counter such as 명, or None


def parse_unit(unit: str | None) -> tuple[str | None, float]:
    """(family, multiplier to the base unit) of a gold unit such as 만원, 억원, ℃, ㎍/㎥, 명."""
    if not unit:
        return None, 1.0
    text = normalize_text(unit).replace(" ", "")
    for magnitude, factor in sorted(_MAGNITUDES.items(), key=lambda kv: -len(kv[0])):
        if text.startswith(magnitude) and text[len(magnitude) :] in _CURRENCY:
            return "krw", factor
    if text in _UNIT_FAMILIES:
        return _UNIT_FAMILIES[text], 1.0
    return text, 1.0


def read_quantities(text: str | None) -> list[Quantity]:
    """Every number in the answer part with its magnitude and unit; 25억 9,280만원 is one quantity."""
    answer = normalize_text(extract_answer(text))
    tokens = []
    for match in _NUMBER.finditer(answer):
        number = float(match["num"])
        if match["neg"] or match["sign"]:
            number = -number
        unit_match = _UNIT_AFTER.match(answer, match.end())
        unit = unit_match["unit"] if unit_match else None
        tokens.append((match.start(), match.end(), number, match["mag"], unit))
    quantities: list[Quantity] = []
    index = 0
    while index < len(tokens):
        start, end, number, magnitude, unit = tokens[index]
        total = number * (_MAGNITUDES[magnitude] if magnitude else 1.0)
        last_factor = _MAGNITUDES[magnitude] if magnitude else None
        # Chain 25억 9280만 (5천) …: each following part has a smaller magnitude and only spaces between.
        while magnitude and unit is None and index + 1 < len(tokens):
            n_start, n_end, n_number, n_mag, n_unit = tokens[index + 1]
            factor = _MAGNITUDES[n_mag] if n_mag else 1.0
            if answer[end:n_start].strip() or factor >= last_factor or n_number < 0:
                break
            total += n_number * factor
            last_factor, magnitude, unit, end = factor, n_mag, n_unit, n_end
            index += 1
        family = _UNIT_FAMILIES.get(unit, unit) if unit else None
        quantities.append(Quantity(total, family))
        index += 1
    return quantities


def numbers_match(
    quantities: Sequence[Quantity],
    gold: float,
    *,
    unit: str | None = None,
    tolerance: float = 0.0,
    rel_tolerance: float = 0.0,
) -> Quantity | None:
    """The first quantity within tolerance of the gold value (tolerance in the gold's unit), or None."""
    family, factor = parse_unit(unit)
    gold_base = gold * factor
    allowed_base = max(tolerance * factor, rel_tolerance * abs(gold_base)) + 1e-9 * max(1.0, abs(gold_base))
    for quantity in quantities:
        if quantity.family is not None and family is not None:
            if quantity.family == family and abs(quantity.value - gold_base) <= allowed_base:
                return quantity
            continue
        # No unit on one side: the number may be in base units or in the gold's own unit ("259,280" for 만원).
        candidates = (quantity.value, quantity.value * factor) if family else (quantity.value,)
        if any(abs(c - gold_base) <= allowed_base for c in candidates):
            return quantity
    return None
