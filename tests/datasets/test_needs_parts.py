"""Pieces of need-first synthesis as plain Python: stop names as users type them, weekday hours read from every
weekday, the run's phrasebook (registers balanced, wordings spread) and the judging sample's Markdown."""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from types import SimpleNamespace

import pytest

from apis.engine.korean_text import find_word
from datasets.engine import korean
from datasets.engine.diversity import blank, diversity_report
from datasets.engine.needs import NEEDS, Phrasebook
from datasets.engine.needs.catalog import (
    arrival_said,
    arrival_text,
    distinct,
    holiday_name,
    hour_span,
    local_address,
    order_phrase,
    particle,
    phrases,
    said_stop,
    same_stop,
    spoken_stop,
    train_heading,
    weekday_hours,
)
from datasets.engine.needs.runtime import Ctx, Need, Result
from datasets.engine.sample import compact, draw, markdown
from datasets.engine.synthesis import Discard, StepRun
from graphs.engine.walk import ToolMeta
from tests.support.request_values import REQUEST_SLOT_VALUES


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
        wanted = {s for v in phrases()["requests"][need.id]["haeyo"] for s in korean.slots(v)}
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


def _ctx(need_id: str = "t") -> Ctx:
    need = Need(need_id, "test", "SEQ", (), None)  # type: ignore[arg-type]
    return Ctx(need, None, None, random.Random(1), "")  # type: ignore[arg-type]


def test_a_named_pick_is_unambiguous_or_the_item_is_discarded():
    ctx = _ctx()
    records = [
        {"yadmNm": "연희요양병원", "addr": "서울특별시 서대문구"},
        {"yadmNm": "연희요양병원", "addr": "인천광역시 서구"},
    ]
    ctx.runs.append(StepRun(0, executed=True))
    found = Result(0, [], records)
    with pytest.raises(Discard) as caught:  # two of one name and nothing said tells them apart: never the first
        ctx.pick(found, records[0], criterion="named", field="yadmNm")
    assert caught.value.reason == "need.ambiguous"
    # Narrowed by what the request states (the district the user names), one is left, and it is picked.
    ctx.pick(
        found, records[0], criterion="named", field="yadmNm", among=[r for r in records if "서대문구" in r["addr"]]
    )
    assert ctx.runs[0].picks[0]["criterion"] == "named"
    ctx.pick(found, records[1], criterion="max", field="yadmNm")  # a ranking is not a name: no such rule


def test_entry_values_spread_over_a_needs_items_in_a_run():
    usage: Counter = Counter()
    districts = [f"{n}구" for n in "가나다라마"]
    chosen = []
    for seed in range(15):
        ctx = _ctx("rain_at_site")
        ctx.usage, ctx.rng = usage, random.Random(seed)
        chosen.append(ctx.spread("district", districts))
    assert set(Counter(chosen).values()) == {3}  # 15 items over 5 districts: 3 each, none gathers them
    other = _ctx("air_at_site")
    other.usage = usage
    assert other.spread("district", districts) in districts and usage["air_at_site:district:가구"] <= 1


def test_stops_are_named_as_people_say_them_and_buses_read_as_minutes_and_stops():
    assert said_stop("혜화역.마로니에공원") and said_stop("잠실새내역앞")
    assert not said_stop("강남역.강남역사거리")  # the station named twice
    assert not said_stop("지하철2호선강남역") and not said_stop("신분당선강남역")  # a line's name, not what people say
    assert not said_stop("지적공사.여의도자이")
    assert arrival_text("3분후[2번째 전]") == "3분 후(2정류장 전)"
    assert arrival_text("2분30초후[1번째 전]") == "2분 30초 후(1정류장 전)"
    assert arrival_text("곧 도착") == "곧 도착"


def test_new_years_day_is_called_what_people_call_it():
    assert holiday_name("1월1일") == "신정(1월1일)"  # KASI's own spelling, kept in the observation
    assert holiday_name("삼일절") == "삼일절"


def test_trains_are_told_by_their_heading_and_arrival_in_words():
    assert train_heading("용두행 - 낙성대방면") == "용두행(낙성대 방면)"
    assert train_heading("성수행") == "성수행"
    assert arrival_said("사당 도착", "사당") == "지금 도착"
    assert arrival_said("전역 출발", "사당") == "전 역 출발"
    assert arrival_said("4분 후 (서울대입구)", "사당") == "4분 후(지금 서울대입구)"
    assert arrival_said("3분 20초 후 (동작)", "사당") == "3분 20초 후(지금 동작)"
    assert arrival_said("[5]번째 전역 (신대방)", "사당") == "5정거장 전(신대방)"
    assert arrival_said("운행 정보 없음", "사당") == "운행 정보 없음"  # a message it does not know stays as it came


def test_requests_ask_what_their_answers_can_say_in_words_users_write():
    requests = phrases()["requests"]
    # The weather now is read from the current observation: its requests ask about now, not later.
    for variant in (
        v for need in ("weather_now_at_stop", "weather_at_address") for vs in requests[need].values() for v in vs
    ):
        assert not re.search(r"우산|소식|이따|나중|내일|오후|저녁|챙겨", variant), variant
    # No API labels: users ask when a bus comes and where the air is worst, not for 'arrival information' or stations.
    for need, registers in requests.items():
        for variant in (v for vs in registers.values() for v in vs):
            assert not re.search(r"도착 (?:예정 )?정보|측정소|실시간", variant), (need, variant)
    # 합니다체 as a person writes politely, not a form.
    stiff = r"주십시오|바랍니다|하고자|예정입니다|소재|\s및\s|여부|체결|해당|파악"
    for need, registers in requests.items():
        for variant in registers.get("hamnida") or ():
            assert not re.search(stiff, variant), (need, variant)


def test_no_need_bridges_a_drug_to_its_makers_tax_status():
    assert not [
        n.id for n in NEEDS if any(b.source == "get_drb_easy_drug_list" and b.target == "status" for b in n.binds)
    ]


def test_a_judging_sample_shows_every_field_whose_value_the_answer_states():
    observation = {
        "ok": True,
        "records": [{"b_no": "1234567890", "b_stt": "계속사업자", "tax_type": "부가가치세 일반과세자"}],
    }
    lines = compact(observation, {"b_stt"}, set(), "상태는 '계속사업자', 과세 유형은 부가가치세 일반과세자예요.")
    assert "tax_type" in lines[1] and "b_no" not in lines[1]
    assert "tax_type" not in compact(observation, {"b_stt"}, set())[1]


def test_where_is_answered_with_the_address_after_the_district_named():
    assert local_address("서울특별시 종로구 율곡로 10, 1층 (원서동)", "종로구") == "율곡로 10, 1층 (원서동)"
    assert local_address("부산광역시 해운대구 해운대로 1", "종로구") == "부산광역시 해운대구 해운대로 1"
    assert local_address(None, "종로구") == ""


def test_bus_messages_without_a_time_read_as_words():
    assert arrival_text("출발대기") == "차고지에서 출발 대기 중" and arrival_text("운행종료") == "오늘 운행 종료"
    assert korean.josa(arrival_text("3분후[2번째 전]"), "이에요").endswith("전)이에요")


def test_reference_lookups_are_asked_once_a_run_and_live_readings_every_time():
    asked = []

    class Answer:
        def __init__(self, ok: bool):
            self.ok = ok

    async def execute(meta, args):
        asked.append((meta, dict(args)))
        return Answer(args.get("q") != "bad")

    ctx = _ctx()
    ctx.execute, ctx.memo = execute, {}
    tool = ToolMeta(1, "list")

    async def run():
        first = await ctx._executed(tool, {"q": "종로구"}, reuse=True)
        again = await ctx._executed(tool, {"q": "종로구"}, reuse=True)
        assert again is first and len(asked) == 1  # a district's list: the run's earlier answer
        await ctx._executed(tool, {"q": "종로구"}, reuse=False)
        await ctx._executed(tool, {"q": "bad"}, reuse=True)
        await ctx._executed(tool, {"q": "bad"}, reuse=True)  # a failed answer is not kept: asked again

    asyncio.run(run())
    assert len(asked) == 4


def test_peak_hours_lists_and_orders_say_what_the_records_say():
    """Ties at a peak are all named, a place registered twice is one place, and a count is not said twice."""
    assert hour_span([9, 10, 11]) == "9~11시"
    assert hour_span([9, 13]) == "9시, 13시"
    assert hour_span([9, 10, 14]) == "9~10시, 14시"
    rows = [{"title": "관악문화원", "addr1": "남현로 1"}, {"title": "관악문화원 ", "addr1": "남현로 1"}]
    assert distinct([*rows, {"title": "관악문화원", "addr1": "봉천로 2"}], "title", "addr1") == [
        rows[0],
        {"title": "관악문화원", "addr1": "봉천로 2"},
    ]
    every = [({"dutyName": name}, "0900", "2200") for name in ("가", "나", "다", "라")]
    assert order_phrase(every[:2], every) == "모두 22:00까지 열어서 가나다순으로"
    mixed = [({"dutyName": "가"}, "0900", "2300"), *every]
    assert order_phrase(mixed[:2], mixed) == "늦게까지 여는 순으로"


def test_every_value_a_request_names_reads_as_a_word_of_it():
    """The semantic filter finds a named value as a word: a particle after a slot must be one it reads as a
    particle ('은평구나' or '3,000만 원밖에' hide the value and the item is filtered)."""
    samples = [
        {"gu": "은평구", "gu1": "은평구", "gu2": "종로구", "dong": "봉천동", "dong1": "봉천동", "dong2": "신림동"},
        {"gu": "관악구", "gu1": "강남구", "gu2": "마포구", "dong": "혜화동", "dong1": "대치동", "dong2": "역삼동"},
    ]
    common = {**REQUEST_SLOT_VALUES, "stop": "혜화역 1번 출구", "sido": "부산", "deposit": "3,000만 원"}
    for need, registers in phrases()["requests"].items():
        for template in (v for vs in registers.values() for v in vs):
            for sample in samples:
                values = {**common, **sample}
                text = korean.fill(template, values)
                for slot in korean.slots(template):
                    said = [str(values[slot]), f"{values[slot]}역"]  # a station is named with or without 역
                    assert any(find_word(v, text) for v in said), (need, slot, text)


def test_a_particle_after_a_parenthetical_follows_the_word_before_it():
    assert particle("우동 7,273명(3,703세대)", "이에요") == "우동 7,273명(3,703세대)이에요"
    assert particle("한글날(토)", "이에요") == "한글날(토)이에요"
    assert particle("관악구", "이에요") == "관악구예요"


def test_stations_that_share_the_highest_reading_are_all_named():
    ctx = _ctx("air_worst_station")
    records = [
        {"stationName": "지산동", "pm10Value": "62", "dataTime": "2026-11-18 14:00"},
        {"stationName": "수창동", "pm10Value": "40", "dataTime": "2026-11-18 14:00"},
        {"stationName": "평리동", "pm10Value": "62", "dataTime": "2026-11-18 14:00"},
    ]

    async def call(tool, args=None, **options):
        ctx.runs.append(StepRun(0, executed=True))
        return Result(0, [SimpleNamespace(seq=1, total_count=None)], records)

    ctx.call = call
    (need,) = [n for n in NEEDS if n.id == "air_worst_station"]
    outcome = asyncio.run(need.program(ctx))
    assert "지산동·평리동 측정소 2곳" in outcome.answer and "62㎍/㎥" in outcome.answer, outcome.answer
    assert {f["value"] for f in ctx.answer_facts if f.get("field") == "stationName"} == {"지산동", "평리동"}
