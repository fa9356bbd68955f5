"""The optional LLM writer of need requests: its rewording is kept only when it passes the same checks."""

from __future__ import annotations

import json

from datasets.engine.needs import NEEDS, llm_rewrite
from datasets.engine.needs.runtime import Realised
from datasets.engine.phrasing import Text
from datasets.engine.synthesis import Execution
from graphs.engine.llm import LLMError
from graphs.engine.walk import Plan
from tests.datasets.test_naturalness import good_item


class FakeClient:
    model = "fake-writer"

    def __init__(self, reply):
        self.reply = reply
        self.seen = []

    def chat(self, system: str, user: str) -> str:
        self.seen.append((system, json.loads(user)))
        if isinstance(self.reply, Exception):
            raise self.reply
        return json.dumps({"request": self.reply}, ensure_ascii=False)


def _realised() -> Realised:
    execution = Execution(Plan(()), ok=True)
    execution.facts = good_item()["facts"] | {"named": [["종로구"], ["혜화동"]]}
    realised = Realised(NEEDS[0], execution.plan, execution)
    realised.register = "banmal"
    return realised


def _check(request: str) -> list[str]:
    from datasets.engine.naturalness import naturalness_problems

    return naturalness_problems({**good_item(), "request": request})


DRAFT = Text("종로구 혜화동 지금 미세먼지 어때?", "답", "need", "45", note="need air_in_dong, register banmal")


def test_a_rewording_that_passes_the_checks_is_kept_and_the_brief_is_strict():
    client = FakeClient("지금 종로구 혜화동 공기 어때? 미세먼지 수치 좀 알려줘.")
    text = llm_rewrite(client, _realised(), DRAFT, _check)
    assert text.generator == "llm" and text.model == "fake-writer" and text.request.startswith("지금 종로구 혜화동")
    system, brief = client.seen[0]
    assert "조회해서" in system and brief["must_mention"] == ["종로구", "혜화동"]
    assert "200231.59" in brief["must_not_mention"] and brief["register"] == "banmal"


def test_a_rewording_that_narrates_the_calls_or_fails_is_refused_and_the_offline_text_stays():
    text = llm_rewrite(FakeClient("혜화동 TM 좌표를 조회해서 첫 번째 측정소를 골라 알려줘"), _realised(), DRAFT, _check)
    assert text.request == DRAFT.request and text.generator == "need" and "refused: procedure" in text.note
    text = llm_rewrite(FakeClient(LLMError("timeout")), _realised(), DRAFT, _check)
    assert text.request == DRAFT.request and "LLM failed" in text.note
