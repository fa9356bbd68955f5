"""Pieces of need-first synthesis as plain Python: stop names as users type them, weekday hours read from every
weekday, the run's phrasebook (registers balanced, wordings spread) and the judging sample's Markdown."""

from __future__ import annotations

import random
import re
from collections import Counter

from datasets.engine import korean as K
from datasets.engine.diversity import blank, diversity_report
from datasets.engine.needs import NEEDS, Phrasebook
from datasets.engine.needs.catalog import phrases, same_stop, spoken_stop, weekday_hours
from datasets.engine.sample import compact, draw, markdown


def test_stop_labels_read_as_users_type_them_and_still_match_their_record():
    assert spoken_stop("혜화역1번출구") == "혜화역 1번 출구"
    assert spoken_stop("혜화역.마로니에공원") == "혜화역 마로니에공원"
    assert spoken_stop("9호선노량진역.동작구청") == "9호선 노량진역 동작구청"
    assert spoken_stop("서울역버스환승센터") == "서울역버스환승센터"
    assert same_stop("혜화역1번출구", "혜화역 1번 출구") and same_stop("혜화역.마로니에공원", "혜화역 마로니에공원")
    assert not same_stop("혜화역4번출구", "혜화역 1번 출구")


def test_weekday_hours_come_from_every_weekday_and_say_where_they_differ():
    same = [(d, "0900", "1800") for d in ("Mon", "Tue", "Wed", "Thu", "Fri")]
    text, short = weekday_hours(same)
    assert text == "평일(월~금) 9:00부터 18:00까지 진료하고" and short == "평일 9:00~18:00"
    differ = [("Mon", "0900", "1800"), ("Tue", "0900", "1800"), ("Wed", "0900", "1300"), ("Thu", "0900", "1800")]
    text, _ = weekday_hours([*differ, ("Fri", None, None)])
    assert "월·화·목요일 9:00~18:00" in text and "수요일 9:00~13:00" in text and "금요일 휴진" in text
    assert weekday_hours([(d, None, None) for d in ("Mon", "Tue", "Wed", "Thu", "Fri")])[1] == "평일 휴진"


def test_the_phrasebook_balances_registers_and_spreads_wordings_over_a_run():
    book = Phrasebook()
    rng = random.Random(3)
    slots = {"stop": "혜화역 1번 출구", "gu": "종로구", "dong": "혜화동", "site": "낙산공원"}
    chosen = []
    for n in range(14 * len(NEEDS)):  # every need as often: the registers balance per need, then over the run
        need = NEEDS[n % len(NEEDS)]
        wanted = {s for v in phrases()["requests"][need.id]["haeyo"] for s in K.slots(v)}
        chosen.append((need.id, *book.choose(need.id, wanted | set(slots), rng)))
    registers = Counter(r for _, r, _ in chosen)
    assert set(registers) == {"haeyo", "banmal", "hamnida"} and max(registers.values()) - min(registers.values()) <= 1
    per_template = Counter((need, template) for need, _, template in chosen)
    # 14 requests per need, spread over every variant before any repeats.
    assert max(per_template.values()) <= 2, per_template.most_common(3)


def test_every_need_has_many_wordings_in_every_register():
    for need, registers in phrases()["requests"].items():
        for register, variants in registers.items():
            assert len(variants) >= 4, (need, register)
            assert len(set(variants)) == len(variants), (need, register)
            # Not one sentence with another ending: the first two words (places aside) differ across most variants.
            words = [[w for w in re.sub(r"\{\w+(?:\|\w+)?\}", "○", v).split() if w != "○"] for v in variants]
            openings = Counter(" ".join(w[:2]) for w in words)
            assert openings.most_common(1)[0][1] <= max(2, len(variants) // 2), (need, register, openings)


def test_blanked_requests_and_registers_are_reported_per_run():
    named = [["종로구"], ["혜화동"]]
    assert blank("종로구 혜화동 인구 몇 명이야?", named) == "○ ○ 인구 몇 명이야?"
    items = [
        {"need": "a", "register": "haeyo", "request_template": "○ 인구 알려주세요"},
        {"need": "a", "register": "banmal", "request_template": "○ 인구 알려줘"},
        {"need": "b", "register": "banmal", "request_template": "○ 인구 알려줘"},
    ]
    report = diversity_report(items)
    assert report["registers"] == {"banmal": 2, "haeyo": 1}
    assert report["request_templates"] == 2 and report["max_per_request_template"] == 2
    assert report["needs"] == {"a": 2, "b": 1}


def test_a_judging_sample_shows_the_records_that_matter_and_hides_internals_when_asked():
    records = [{"stationName": f"측정소{i}", "tm": str(i), "addr": "긴 주소 " * 40, "x": i} for i in range(12)]
    records.append({"stationName": "혜화", "tm": "0.4", "addr": "", "x": 99})
    observation = {"ok": True, "total_count": 13, "records": records}
    lines = compact(observation, {"tm"}, {"혜화"})
    assert lines[0] == "13 record(s)" and lines[1] == '- {"stationName": "혜화", "tm": "0.4"}'
    assert len(lines) == 1 + 8 + 1 and lines[-1] == "- … 5 more" and "addr" not in "".join(lines)
    assert compact({"ok": False, "error_class": "auth", "result_msg": "키 오류"}, set(), set()) == [
        "error: auth 키 오류"
    ]
    item = {
        "id": 7,
        "request": "혜화동 미세먼지 어때?",
        "answer": "혜화 측정소 기준 30㎍/㎥예요.",
        "length": 1,
        "need": "air_in_dong",
        "facts": {"answer": [{"step": 0, "field": "stationName", "value": "혜화"}]},
        "calls": [
            {"seq": 1, "step": 0, "tool_name": "get_nearby", "arguments": {"tmX": 1}, "observation": observation}
        ],
    }
    shown = markdown([item], title="t")
    assert (
        "need `air_in_dong`" in shown and "**Request:** 혜화동 미세먼지 어때?" in shown and "1 steps, 1 calls" in shown
    )
    assert "air_in_dong" not in markdown([item], title="t", internals=False)
    assert draw(range(100), 5, 90210) == draw(list(range(100))[::-1], 5, 90210) and len(set(draw(range(9), 20, 1))) == 9
