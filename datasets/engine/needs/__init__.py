"""Need-first synthesis: choose a need (balanced by domain, capped per chain template), realise it over the
verified edges, and write its Korean request in one of three registers.

- `NeedPlanner` picks the next need: among the needs the snapshot supports (every edge verified) and whose
  length fits the run, the domain with the fewest kept items first, then its need with the fewest; a need that
  reached its cap (items per template) is not chosen again.
- `write` fills a request variant of the need's register (korean.yaml) and takes the answer the program built.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence

from datasets.engine import korean
from datasets.engine.needs.catalog import NEEDS, phrases
from datasets.engine.needs.runtime import Need, Realised, Verified, realise
from datasets.engine.phrasing import Text

REGISTERS = (("haeyo", 1 / 3), ("banmal", 1 / 3), ("hamnida", 1 / 3))  # balanced by the run's Phrasebook
GENERATOR = "need"
MAX_REPEATS = 4  # a need whose realisations repeat stored ones this often is not chosen again in the run

__all__ = ["NEEDS", "NeedPlanner", "Phrasebook", "Realised", "Verified", "realise", "write", "REGISTERS", "GENERATOR"]


class NeedPlanner:
    def __init__(
        self,
        verified: Verified,
        *,
        count: int,
        seed: object,
        min_length: int = 1,
        max_length: int = 12,
        needs: Sequence[Need] = NEEDS,
        cap: int | None = None,
    ):
        self.verified = verified
        self.needs = [n for n in needs if verified.available(n) and min_length <= n.length <= max_length]
        self.unavailable = sorted(n.id for n in needs if not verified.available(n))
        self.rng = random.Random(f"needs:{seed}")
        self.kept: Counter[str] = Counter()
        self.tried: Counter[str] = Counter()
        self.repeats: Counter[str] = Counter()
        self.inflight: Counter[str] = Counter()
        self.usage: Counter[str] = Counter()  # entry values the run's needs chose (Ctx.spread), to spread them
        self.memo: dict = {}  # the run's answers to reference lookups (Ctx.call reuse=True, scouts)
        # Items per chain template: an even share with room for needs that fail more often than others.
        self.cap = cap or max(2, math.ceil(1.6 * count / max(1, len(self.needs))))

    def next_need(self) -> Need | None:
        open_needs = [
            n
            for n in self.needs
            if self.kept[n.id] + self.inflight[n.id] < self.cap
            and self.tried[n.id] < 8 * self.cap
            and self.repeats[n.id] < MAX_REPEATS
        ]
        if not open_needs:
            return None
        by_domain: dict[str, list[Need]] = {}
        for need in open_needs:
            by_domain.setdefault(need.domain, []).append(need)
        kept_domain = Counter()
        for need in self.needs:
            kept_domain[need.domain] += self.kept[need.id] + 0.25 * self.tried[need.id]
        domain = min(sorted(by_domain), key=lambda d: (kept_domain[d] / len(by_domain[d]), self.rng.random()))
        need = min(
            by_domain[domain], key=lambda n: ((self.kept[n.id] + 0.25 * self.tried[n.id]) / n.weight, self.rng.random())
        )
        self.tried[need.id] += 1
        self.inflight[need.id] += 1
        return need

    def done(self, need_id: str) -> None:
        """A chosen need finished (kept or not): it no longer holds a place under its cap."""
        self.inflight[need_id] -= 1

    def keep(self, need_id: str) -> None:
        self.kept[need_id] += 1

    def repeated(self, need_id: str) -> None:
        """The need gave a trajectory already stored: its values are running out."""
        self.repeats[need_id] += 1


class Phrasebook:
    """The run's use of registers and request variants: each request takes the register its need used least so far
    (ties: the one the run used least, then the seed), then the need's variant of that register used least, so a run
    spreads over every wording it has."""

    def __init__(self) -> None:
        self.registers: Counter[str] = Counter()
        self.templates: Counter[str] = Counter()

    def choose(self, need_id: str, slots: set[str], rng: random.Random) -> tuple[str, str]:
        requests = phrases()["requests"][need_id]
        fitting = {
            r: [v for v in requests.get(r) or () if korean.slots(v) <= slots] for r, _ in REGISTERS if requests.get(r)
        }
        fitting = {r: vs for r, vs in fitting.items() if vs}
        if not fitting:
            raise KeyError(f"need {need_id} has no request variant for the slots {sorted(slots)}")
        # The need's own items spread over the registers first (so its wordings of each register last longest),
        # then the run's.
        register = min(
            sorted(fitting), key=lambda r: (self.registers[f"{need_id}:{r}"], self.registers[r], rng.random())
        )
        template = min(fitting[register], key=lambda v: (self.templates[f"{need_id}:{v}"], rng.random()))
        self.registers[register] += 1
        self.registers[f"{need_id}:{register}"] += 1
        self.templates[f"{need_id}:{template}"] += 1
        return register, template

    def drop(self, realised: Realised) -> None:
        """A written item the run does not keep (a duplicate, or filtered): its register and wording are free again."""
        template = realised.execution.facts.get("request_template")
        if realised.register and template:
            self.registers[realised.register] -= 1
            self.registers[f"{realised.need.id}:{realised.register}"] -= 1
            self.templates[f"{realised.need.id}:{template}"] -= 1


def write(realised: Realised, *, seed: object, book: Phrasebook | None = None) -> Text:
    """The request in a register and variant the run's phrasebook picks (a fresh one: any register, by the seed),
    and the program's answer."""
    rng = random.Random(f"write:{realised.need.id}:{seed}")
    outcome = realised.outcome
    assert outcome is not None
    register, template = (book or Phrasebook()).choose(realised.need.id, set(outcome.slots), rng)
    realised.register = register
    values = dict(outcome.slots)
    if "gu" in values and values.get("city") not in (None, "서울") and "{city" not in template:
        values["gu"] = f"{values['city']} {values['gu']}"  # 북구 alone is three cities' district
    request = korean.fill(template, values)
    realised.request = request
    facts = realised.execution.facts
    facts["register"], facts["request_template"] = register, template
    return Text(request, outcome.answer, GENERATOR, outcome.short, note=f"need {realised.need.id}, register {register}")


def catalog_table(needs: Iterable[Need] = NEEDS) -> list[dict[str, object]]:
    """The catalog as rows (for docs and reports)."""
    return [
        {
            "need": n.id,
            "domain": n.domain,
            "junction": n.junction,
            "length": n.length,
            "edges": [
                f"{b.source}.{'+'.join(b.fields)}→{b.target}.{'+'.join(b.params)} [{b.transform}]" for b in n.binds
            ],
        }
        for n in needs
    ]


REWRITER_SYSTEM = (
    "당신은 한국어 사용자 요청을 다듬는 작성자입니다. 주어진 초안과 같은 것을 묻는, 실제 사용자가 채팅창에 칠 법한 "
    "자연스러운 요청 한 문장(또는 두 문장)을 쓰세요. 규칙: (1) 목적을 먼저, 짧게; 문체는 register 그대로 "
    "(haeyo 해요체, banmal 반말, hamnida 합니다체). (2) must_mention의 값은 글자 그대로 모두 넣는다. "
    "(3) must_not_mention의 값, 코드, 좌표, 파라미터 이름, API 이름, 필드 이름은 절대 쓰지 않는다. "
    "(4) 조회 절차를 설명하지 않는다('조회해서', '첫 번째를 골라' 금지). (5) 초안이 묻는 값은 빠짐없이 묻는다. "
    '(6) 답을 미리 말하지 않는다. JSON 객체 하나만 답하세요: {"request": "..."}'
)


def llm_rewrite(client, realised: Realised, text: Text, check) -> Text:
    """The model's rewording of the offline request, kept only when it passes the same checks (`check(request)`
    returns the problems of the item with that request); otherwise the offline text, with the reason noted."""
    import json

    from datasets.engine.phrasing import LLM, _parse_object
    from graphs.engine.llm import LLMError

    facts = realised.execution.facts
    brief = {
        "draft": text.request,
        "register": realised.register,
        "must_mention": [options[0] for options in facts.get("named") or []],
        "must_not_mention": list(facts.get("intermediate") or [])[:40],
        "asks_for": [r["label"] for r in facts.get("requested") or []],
    }
    try:
        data = _parse_object(client.chat(REWRITER_SYSTEM, json.dumps(brief, ensure_ascii=False)))
    except LLMError as exc:
        return Text(
            text.request, text.answer, text.generator, text.short, note=f"{text.note}; the LLM failed: {exc}"[:500]
        )
    request = str(data.get("request") or "").strip()
    problems = check(request) if request else ["empty request"]
    if problems:
        note = f"{text.note}; the LLM's request was refused: {problems[0]}"[:500]
        return Text(text.request, text.answer, text.generator, text.short, note=note)
    return Text(request, text.answer, LLM, text.short, client.model, text.note)
