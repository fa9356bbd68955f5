"""Answer checkers and their Korean-aware normalisation, on hand-made replies."""

from __future__ import annotations

import pytest

from benchmarks.engine.checkers import (
    check_answer,
    check_boolean,
    check_contains,
    check_exact,
    check_numeric,
    check_set,
    extract_answer,
    normalize_text,
    read_boolean,
    read_quantities,
    squash,
)
from benchmarks.engine.task import AnswerSpec


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("２０２６년  １０월", "2026년 10월"),  # full-width digits, runs of spaces
        ("1,234,567원", "1234567원"),  # thousands separators between digits
        ("１２，３４５", "12345"),  # full-width comma too
        ("25℃", "25°c"),
        ("12㎍/㎥", "12μg/m3"),
        ("84㎡", "84m2"),
        ("Seoul\tJung-gu\n", "seoul jung-gu"),
        ("3, 4, 5", "3, 4, 5"),  # a list's commas are not thousands separators
    ],
)
def test_it_normalizes_korean_text(raw, normalized):
    assert normalize_text(raw) == normalized


def test_it_takes_the_answer_after_the_last_marker():
    reply = "먼저 코드를 찾았습니다.\n정답: 11110\n\n정답：서울 중구"
    assert extract_answer(reply) == "서울 중구"
    assert extract_answer("Final answer: 42") == "42"
    assert extract_answer("마커 없음") == "마커 없음"
    assert extract_answer(None) == ""


def test_it_squashes_spaces_punctuation_and_a_polite_ending():
    assert squash("서울 중구입니다.") == "서울중구"
    assert squash("(주) 한국-전력") == "주한국전력"
    assert squash("임") == "임"  # the ending alone is kept


@pytest.mark.parametrize(
    ("reply", "passed"),
    [
        ("정답: 서울 중구", True),
        ("정답: 서울중구입니다.", True),
        ("정답: 서울 종로구", False),
        ("서울 중구 근처", False),  # exact means the whole answer
    ],
)
def test_exact_compares_whole_normalized_answers(reply, passed):
    assert check_exact(reply, "서울중구").passed is passed


def test_exact_accepts_aliases_and_reads_yes_no_both_ways():
    assert check_exact("정답: Jung-gu", "중구", aliases=["jung-gu"]).passed
    assert check_exact("정답: 예", "Y").passed
    assert not check_exact("정답: 아니오", "Y").passed


@pytest.mark.parametrize(
    ("reply", "passed"),
    [
        ("중구가 더 높습니다", True),  # a particle may follow
        ("정답: 중구입니다", True),
        ("서울 중구 (28)", True),
        ("종로구가 더 높습니다", False),
        ("중구청 앞 측정소", False),  # inside a longer word
        ("충청북도 청주시 상당구", False),
    ],
)
def test_contains_finds_whole_korean_words(reply, passed):
    assert check_contains(reply, "중구").passed is passed


def test_contains_ignores_spacing_inside_the_gold_text_and_digit_neighbours():
    assert check_contains("259280만 원입니다", "259,280만원").passed
    assert not check_contains("13일", "3").passed
    assert not check_contains("3.5", "3").passed
    assert check_contains("3일", "3").passed  # a number may carry a unit or counter


def test_set_needs_every_item_and_no_forbidden_one():
    items = [["10월 3일", "20261003"], ["10월 5일"], "10월 9일"]
    assert check_set("정답: 10월 3일, 10월 5일, 10월 9일", items).passed
    assert check_set("20261003, 10월 5일과 10월 9일", items).passed
    missing = check_set("10월 3일과 10월 9일", items)
    assert not missing.passed and "10월 5일" in missing.detail
    forbidden = check_set("10월 3일, 10월 5일, 10월 9일, 10월 1일", items, forbid=["10월 1일"])
    assert not forbidden.passed and "should not list" in forbidden.detail


def test_it_reads_korean_quantities_with_magnitudes_and_units():
    values = [(q.value, q.family) for q in read_quantities("25억 9,280만 원, 2억 5천만원, 영하 3도, 12.5㎍/㎥, 50%")]
    assert values == [
        (2_592_800_000, "krw"),
        (250_000_000, "krw"),
        (-3, "celsius"),
        (12.5, "ug/m3"),
        (50, "percent"),
    ]
    assert [q.value for q in read_quantities("pm25 농도는 28, 날짜 2026-10-03")] == [28, 2026, 10, 3]


@pytest.mark.parametrize(
    "reply",
    ["정답: 259,280만원", "25억 9280만 원", "2,592,800,000원", "정답: 259280", "２５９，２８０만원"],
)
def test_numeric_converts_won_amounts(reply):
    assert check_numeric(reply, 259280, unit="만원").passed


@pytest.mark.parametrize("reply", ["259,280원", "259,281만원", "25억원", "금액을 찾지 못했습니다"])
def test_numeric_rejects_wrong_amounts_and_units(reply):
    result = check_numeric(reply, 259280, unit="만원")
    assert not result.passed and "expected 259280 만원" in result.detail


def test_numeric_tolerances_and_unit_families():
    assert check_numeric("기온은 21.6℃", 21.5, unit="℃", tolerance=0.1).passed
    assert not check_numeric("기온은 21.7℃", 21.5, unit="℃", tolerance=0.1).passed
    assert check_numeric("약 40,000명", 39983, unit="명", rel_tolerance=0.01).passed
    assert not check_numeric("28%", 28, unit="㎍/㎥").passed  # same number, another quantity
    assert check_numeric("28 μg/m³", 28, unit="㎍/㎥").passed
    assert check_numeric("영하 3도", -3, unit="℃").passed


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("예, 공휴일입니다.", True),
        ("네 맞습니다", True),
        ("정답: Y", True),
        ("아니오. 평일입니다", False),
        ("공휴일이 아닙니다", False),
        ("공휴일이아닙니다", False),
        ("예정된 휴일은 없습니다", False),  # 예 inside 예정 is no yes
        ("잘 모르겠어요", None),
    ],
)
def test_it_reads_yes_and_no(reply, value):
    assert read_boolean(reply) is value


def test_boolean_checker_fails_without_a_yes_no_word():
    assert check_boolean("예", "예").passed
    assert not check_boolean("아니요", True).passed
    assert check_boolean("음...", True).detail == "no yes/no word in the answer"


def test_check_answer_dispatches_on_the_spec():
    numeric = AnswerSpec(checker="numeric", value=39983, text="39,983명", unit="명")
    assert check_answer(numeric, "정답: 39,983명").passed
    assert not check_answer(numeric, None).passed
    with pytest.raises(ValueError, match="unknown checker"):
        check_answer(AnswerSpec(checker="regex", value="x", text="x"), "x")


def test_a_stem_needle_matches_any_ending():
    from benchmarks.engine.checkers import check_contains, find_word

    assert not find_word("조회할 수 없", "조회할 수 없습니다")
    assert find_word("조회할 수 없*", "해당 정보는 조회할 수 없습니다.")
    assert check_contains("정답: 이 도구로는 제공하지 않습니다", "제공하지 않*").passed
    assert not check_contains("정답: 제공합니다", "제공하지 않*").passed
