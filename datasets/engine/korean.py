"""Korean text helpers for synthesized requests and answers: particles chosen by the final sound, amounts in
만원, and templates whose slots carry their particle (`{place|은}` becomes "종로구는" or "관악구는").

A particle written as a pair in a template is never left for the reader: "(으)로", "과(와)" and the like are
template artifacts the naturalness stage rejects.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# Particles after a final consonant / after a vowel. "로" follows a vowel and a final ㄹ alike.
PARTICLES = {
    "은": ("은", "는"),
    "는": ("은", "는"),
    "이": ("이", "가"),
    "가": ("이", "가"),
    "을": ("을", "를"),
    "를": ("을", "를"),
    "과": ("과", "와"),
    "와": ("과", "와"),
    "이랑": ("이랑", "랑"),
    "랑": ("이랑", "랑"),
    "으로": ("으로", "로"),
    "로": ("으로", "로"),
    "이야": ("이야", "야"),
    "야": ("이야", "야"),
    "이에요": ("이에요", "예요"),
    "예요": ("이에요", "예요"),
    "이나": ("이나", "나"),
    "나": ("이나", "나"),
    "아": ("아", "야"),
    "이라고": ("이라고", "라고"),
    "라고": ("이라고", "라고"),
}
# How the last digit or Latin letter is read aloud: does its reading end in a consonant, and is it ㄹ?
_DIGIT_FINAL = {"0": "ㅇ", "1": "ㄹ", "2": "", "3": "ㅁ", "4": "", "5": "", "6": "ㄱ", "7": "ㄹ", "8": "ㄹ", "9": ""}
_LATIN_FINAL = {"l": "ㄹ", "m": "ㅁ", "n": "ㄴ", "r": "ㄹ", "b": "", "c": "", "k": "", "p": "", "t": ""}
_SLOT = re.compile(r"\{(\w+)(?:\|(\w+))?\}")
ARTIFACTS = re.compile(
    r"\((?:으|이|을|를|은|는|과|와|가)\)|\w\((?:으로|로|이|가|을|를|은|는|과|와)\)|\{\w+(?:\|\w+)?\}"
)


def final_sound(word: str) -> str | None:
    """'' when the word ends in a vowel, the final consonant's name ('ㄹ', 'ㄴ' ...) otherwise; None when unknown."""
    text = re.sub(r"[\s\)\]\"'.,!?·]+$", "", str(word))
    if not text:
        return None
    last = text[-1]
    code = ord(last) - 0xAC00
    if 0 <= code < 11172:
        jong = code % 28
        if jong == 0:
            return ""
        return "ㄹ" if jong == 8 else "ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ"[jong - 1]
    if last.isdigit():
        return _DIGIT_FINAL[last]
    if last.lower() in _LATIN_FINAL:
        return _LATIN_FINAL[last.lower()]
    if last.isalpha():
        return ""
    return None


def josa(word: str, particle: str) -> str:
    """The word with the particle its final sound takes: josa('종로구', '은') -> '종로구는'."""
    pair = PARTICLES.get(particle)
    if pair is None:
        return f"{word}{particle}"
    final = final_sound(word)
    if final is None:
        final = "ㄴ"  # an unreadable ending: the consonant form reads least oddly
    if pair[0] == "으로":
        return f"{word}{'로' if final in ('', 'ㄹ') else '으로'}"
    return f"{word}{pair[1] if final == '' else pair[0]}"


def fill(template: str, values: Mapping[str, Any]) -> str:
    """A template's slots filled: {name} as is, {name|을} with the particle its value takes."""

    def one(match: re.Match) -> str:
        name, particle = match.group(1), match.group(2)
        if name not in values:
            raise KeyError(f"template slot {name!r} has no value")
        value = str(values[name])
        return josa(value, particle) if particle else value

    return _SLOT.sub(one, template)


def slots(template: str) -> set[str]:
    return {m.group(1) for m in _SLOT.finditer(template)}


def manwon(amount: Any) -> str:
    """An amount in 만원 as people say it: '74,560' -> '7억 4,560만 원', '9,500' -> '9,500만 원'."""
    number = int(round(float(str(amount).replace(",", "").strip())))
    eok, man = divmod(number, 10000)
    if eok and man:
        return f"{eok}억 {man:,}만 원"
    if eok:
        return f"{eok}억 원"
    return f"{man:,}만 원"


def won(amount: Any) -> str:
    number = int(round(float(str(amount).replace(",", "").strip())))
    return f"{number:,}원"


def hhmm(value: Any) -> str:
    """'0930' or 930 -> '9:30', '2100' -> '21:00'."""
    text = str(value).strip().zfill(4)
    return f"{int(text[:2])}:{text[2:4]}"


def ymd(value: Any) -> str:
    """'20261118' or '2026-11-18' -> '11월 18일'; with another year '2027년 1월 1일'."""
    digits = re.sub(r"\D", "", str(value))
    if len(digits) < 8:
        return str(value)
    return f"{int(digits[4:6])}월 {int(digits[6:8])}일"


WEEKDAYS = "월화수목금토일"


def strip_html(text: Any) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", str(text or ""))).strip()


def first_sentence(text: Any) -> str:
    plain = strip_html(text)
    match = re.search(r"^(.+?[.다])(?:\s|$)", plain)
    return (match.group(1) if match else plain).strip()
