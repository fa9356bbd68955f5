"""Reward components and presets on hand-made episodes (training/engine/rewards.py)."""

import pytest

from training.engine import rewards

GOLD = {
    "calls": [
        {"name": "get_rest_de_info", "arguments": {"solYear": "2026", "solMonth": "05"}, "alternatives": {}},
        {"name": "get_weather", "arguments": {"city": "서울"}, "alternatives": {"city": ["Seoul"]}},
    ],
    "records": [[{"locdate": 20260505, "dateName": "어린이날"}], [{"temp": 21}]],
    "answer": "정답: 3개",
}


def episode(*turns, executed=(), answer=None):
    return {
        "turns": [{"text": "", "calls": list(calls)} for calls in turns],
        "executed": list(executed),
        "answer": answer,
    }


def call(name, arguments, error=None):
    return {"name": name, "arguments": arguments, "error": error}


PERFECT = episode(
    [call("get_rest_de_info", {"solYear": 2026, "solMonth": "05"}), call("get_weather", {"city": "Seoul"})],
    executed=[
        {
            "name": "get_rest_de_info",
            "arguments": {},
            "ok": True,
            "records": [{"dateName": "어린이날", "locdate": "20260505"}],
        },
        {"name": "get_weather", "arguments": {}, "ok": True, "records": [{"temp": 21}]},
    ],
    answer="모두 3개입니다.\n정답: 3개",
)


def test_perfect_episode_scores_one_everywhere():
    assert rewards.score(PERFECT, GOLD) == {name: 1.0 for name in rewards.COMPONENTS}


def test_format_counts_parse_failures_and_silence():
    bad = episode([call("get_weather", {"city": "서울"}), call(None, None, error="call.bad_json: x")])
    assert rewards.format_reward(bad, GOLD) == 0.5  # the unreadable block's tags count as unclosed when not stated
    closed_but_broken = episode([dict(call(None, None, error="call.bad_json: x"), closed=True)])
    assert rewards.format_reward(closed_but_broken, GOLD) == 0.5
    assert rewards.format_reward(episode(), GOLD) == 0.0
    assert rewards.format_reward(episode(answer="정답: 1"), {"calls": []}) == 1.0
    assert rewards.format_reward(episode(answer="정답: 1"), GOLD) == 0.0


def test_tool_name_is_multiset_jaccard():
    one = episode([call("get_weather", {"city": "서울"})])
    assert rewards.tool_name_reward(one, GOLD) == 0.5
    wrong = episode([call("get_weather", {}), call("get_weather", {}), call("x", {})])
    assert rewards.tool_name_reward(wrong, GOLD) == pytest.approx(1 / 4)  # union: weather x2, x, rest


def test_arguments_use_canonical_values_and_alternatives():
    half = episode(
        [call("get_rest_de_info", {"solYear": "2026", "solMonth": "06"}), call("get_weather", {"city": "Seoul"})]
    )
    assert rewards.arguments_reward(half, GOLD) == pytest.approx((0.5 + 1.0) / 2)
    extra = episode([call("get_weather", {"city": "서울", "unit": "c"})])
    assert rewards.arguments_reward(extra, GOLD) == pytest.approx(0.5 / 2)  # one of two gold calls, half its names
    assert rewards.arguments_reward(episode([call("get_weather", {"city": "서울"})]), {"calls": []}) == 0.0


def test_execution_is_grounded_in_returned_records():
    failed = dict(PERFECT, executed=[dict(e, ok=False) for e in PERFECT["executed"]])
    assert rewards.execution_reward(failed, GOLD) == 0.0
    other = dict(PERFECT, executed=[PERFECT["executed"][1]])
    assert rewards.execution_reward(other, GOLD) == 0.5


def test_answer_uses_benchmark_checkers():
    assert rewards.answer_reward(episode(answer="정답: 3 개"), GOLD) == 1.0
    assert rewards.answer_reward(episode(answer="정답: 4개"), GOLD) == 0.0
    assert rewards.answer_reward(episode(answer="정답: 서울 중구입니다"), {"answer": "정답: 중구"}) == 1.0
    spec = {"checker": "boolean", "value": True, "text": "예"}
    assert rewards.answer_reward(episode(answer="정답: 네, 맞습니다"), {"answer": "예", "answer_spec": spec}) == 1.0
    assert rewards.answer_reward(episode(answer=None), GOLD) == 0.0
    assert rewards.answer_reward(episode(answer="1 2 3 4 5"), GOLD) == 0.0  # no marker: numbers alone earn nothing


def test_binary_is_all_or_nothing():
    assert rewards.binary_reward(PERFECT, GOLD) == 1.0
    one_wrong = episode(
        [call("get_rest_de_info", {"solYear": "2025", "solMonth": "05"}), call("get_weather", {"city": "서울"})]
    )
    assert rewards.binary_reward(one_wrong, GOLD) == 0.0


def test_presets_weight_components():
    graded = rewards.reward_weights("graded")
    binary = rewards.reward_weights("binary")
    half = episode([call("get_weather", {"city": "서울"})], answer=None)
    scores = rewards.score(half, GOLD)
    assert rewards.total(scores, graded) == pytest.approx(0.5 * 1 + 0.5 + 0.5)
    assert rewards.total(scores, binary) == 0.0
    assert rewards.total(rewards.score(PERFECT, GOLD), binary) == 1.0
    assert rewards.reward_weights("graded", {"answer": 2})["answer"] == 2.0
    with pytest.raises(rewards.RewardError, match="unknown reward preset"):
        rewards.reward_weights("nope")
    with pytest.raises(rewards.RewardError, match="unknown reward component"):
        rewards.reward_weights("graded", {"speed": 1})
    with pytest.raises(rewards.RewardError, match="every reward weight is 0"):
        rewards.reward_weights("binary", {"binary": 0})


def test_episode_from_text_parses_hermes_blocks():
    text = '<think>\n\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "서울"}}\n</tool_call>'
    parsed = rewards.episode_from_text(text)
    assert parsed["turns"][0]["calls"] == [
        {"name": "get_weather", "arguments": {"city": "서울"}, "error": None, "closed": True}
    ]
    assert rewards.tool_call_valid(parsed)
    broken = rewards.episode_from_text("<tool_call>\n{not json\n</tool_call>")
    assert not rewards.tool_call_valid(broken) and rewards.format_reward(broken, GOLD) == 0.5  # closed tags, bad JSON
    unclosed = rewards.episode_from_text("<tool_call>\n{not json")
    assert rewards.format_reward(unclosed, GOLD) == 0.0
    assert rewards.episode_from_text("정답: 3개")["answer"] == "정답: 3개"
