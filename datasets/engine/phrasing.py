"""Korean requests and answers for executed walks: templates that work on a fresh machine, and an optional
LLM writer and judge behind an OpenAI-compatible endpoint (vLLM).

Templates compose per-tool phrases (what a tool looks up, what one record is, which fields name a record and
which answer a question) with junction phrases (how a record was chosen, fanned out, reduced, compared or
tested). A request names the values a user gives (entry values, the names of chosen records, a condition's
threshold) and never a value that passes between calls; the answer states values read from the observations.
The LLM writer rewrites the template draft under the same rules; the judge checks an item against them. Tools
not in the table get phrases from their Korean names and field descriptions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from datasets.engine.synthesis import Execution
from graphs.engine.llm import LLMClient, LLMError
from graphs.engine.names import is_control_param
from graphs.engine.walk import CMP, COND, DRV, FAN, SEM, FieldMeta, Plan, Step, ToolMeta, plain_description

TEMPLATE = "template"
LLM = "llm"


# --- Per-tool phrases ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolPhrase:
    noun: str  # what the tool looks up: "법정동 목록"
    item: str = "항목"  # one record: "법정동"
    labels: tuple[str, ...] = ()  # fields that name a record
    answer: tuple[str, ...] = ()  # fields that answer a question about it
    measures: tuple[str, ...] = ()  # numeric fields worth ranking and comparing
    bare: tuple[str, ...] = ()  # parameters whose value reads well without its label ("서울특별시 종로구")
    compare: tuple[str, ...] = ()  # numeric fields whose first record is worth comparing (latest reading, a total)


PHRASE_DATA = Path(__file__).with_name("tool_phrases.yaml")


def _load_phrases() -> dict[str, ToolPhrase]:
    """The per-tool phrase table: data beside this module (tool_phrases.yaml), not code."""
    with PHRASE_DATA.open(encoding="utf-8") as handle:
        raw = yaml.safe_load(handle) or {}
    return {
        name: ToolPhrase(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})
        for name, fields in raw.items()
    }


PHRASES: dict[str, ToolPhrase] = _load_phrases()

_NOUN_SUFFIXES = ("목록 조회", "정보조회", "정보 조회", "조회", "검색", "제공")


def phrase_for(tool: ToolMeta) -> ToolPhrase:
    """The table's phrase, or one made from the tool's Korean name."""
    if tool.name in PHRASES:
        return PHRASES[tool.name]
    noun = plain_description(tool.label) or tool.name
    for suffix in _NOUN_SUFFIXES:
        if noun.endswith(suffix) and len(noun) > len(suffix):
            noun = noun[: -len(suffix)].strip()
            break
    return ToolPhrase(noun or tool.name)


def tool_meta(
    *,
    id: Any,
    name: str,
    label: str = "",
    provider: str = "",
    parameters: Mapping[str, Any] | None = None,
    record_fields: Sequence[Mapping[str, Any]] = (),
    entries: Sequence[Mapping[str, Any]] = (),
) -> ToolMeta:
    """A ToolMeta from catalog data, with this module's hints for reporting, naming and ranking records."""
    fields = tuple(
        FieldMeta(
            str(f.get("path") or f.get("name")),
            str(f.get("type") or ""),
            str(f.get("description") or ""),
            f.get("example"),
        )
        for f in record_fields
        if f.get("path") or f.get("name")
    )
    meta = ToolMeta(id, name, label, provider, dict(parameters or {}), fields, tuple(dict(e) for e in entries))
    phrase = PHRASES.get(name)
    if phrase is None:
        return meta
    return ToolMeta(
        id,
        name,
        label,
        provider,
        meta.parameters,
        fields,
        meta.entries,
        phrase.answer,
        phrase.labels,
        phrase.measures,
        phrase.compare,
    )


# --- Korean particles and values -------------------------------------------------------------------------

_DIGIT_HAS_FINAL = {
    "0": True,
    "1": True,
    "2": False,
    "3": True,
    "4": False,
    "5": False,
    "6": True,
    "7": True,
    "8": True,
    "9": False,
}
_DIGIT_FINAL_RIEUL = {"1", "7", "8"}


def _final(word: str) -> tuple[bool, bool] | None:
    """(has a final consonant, the final is ㄹ) of the word's last sound, or None when unknown."""
    text = re.sub(r"[\s'\"’)\]」』]+$", "", word)
    if not text:
        return None
    last = text[-1]
    if "가" <= last <= "힣":
        final = (ord(last) - 0xAC00) % 28
        return final != 0, final == 8
    if last.isdigit():
        return _DIGIT_HAS_FINAL[last], last in _DIGIT_FINAL_RIEUL
    return None


_PARTICLES = {
    "을/를": ("을", "를"),
    "이/가": ("이", "가"),
    "은/는": ("은", "는"),
    "과/와": ("과", "와"),
    "으로/로": ("으로", "로"),
    "이다": ("이다", "다"),
}


def josa(word: str, pair: str) -> str:
    """The word with the particle its last sound takes: josa('청운동', '을/를') -> '청운동을'."""
    with_final, without = _PARTICLES[pair]
    final = _final(word)
    if final is None:
        return f"{word}{with_final[0]}({without})" if pair != "으로/로" else f"{word}(으)로"
    has_final, rieul = final
    if pair == "으로/로" and rieul:
        return word + without
    return word + (with_final if has_final else without)


def quote(value: str) -> str:
    return f"'{value}'"


_ENUM_PAIR = re.compile(r"([0-9A-Za-z]+)\s+([^,()/…]+?)(?=,|\)|$|…)")
_UNITS = ("만원", "원", "㎡", "m2", "%", "km", "m", "㎍/㎥", "ppm", "초", "분", "명", "세대", "건")


def enum_labels(description: str) -> dict[str, str]:
    """Value meanings a parameter's description lists: '조회레벨 (1 시도, 2 시군구, 3 읍면동)' -> {'1': '시도', ...}."""
    match = re.search(r"\(([^)]*)\)", description or "")
    if not match:
        return {}
    labels = {}
    for code, label in _ENUM_PAIR.findall(match.group(1)):
        label = label.strip()
        if label and len(label) <= 12:
            labels[code] = label
    return labels if len(labels) >= 2 else {}


def field_unit(meta: FieldMeta | None) -> str | None:
    """The unit a field's description states in parentheses ('거래금액 (만원)' -> '만원')."""
    if meta is None:
        return None
    match = re.search(r"\(([^)]*)\)", meta.description or "")
    if not match:
        return None
    inside = match.group(1).split(",")[0].strip()
    return inside if inside in _UNITS else None


def render_value(tool: ToolMeta, param: str, value: Any) -> list[str]:
    """Ways a request may write a parameter's value, the preferred first: 202610 -> ['2026년 10월', '202610']."""
    text = str(value).strip()
    prop = tool.properties.get(param) or {}
    description = str(prop.get("description") or "")
    found: list[str] = []
    labels = enum_labels(description)
    if text in labels:
        found.append(labels[text])
    if re.fullmatch(r"\d{6}", text) and (
        "YYYYMM" in description or "년월" in description or param.lower().endswith("ym")
    ):
        found.append(f"{text[:4]}년 {int(text[4:])}월")
    elif re.fullmatch(r"\d{8}", text) and (
        "YYYYMMDD" in description or "일자" in description or "date" in param.lower()
    ):
        found.append(f"{text[:4]}년 {int(text[4:6])}월 {int(text[6:])}일")
    elif re.fullmatch(r"\d{4}", text) and ("HHmm" in description or "HHMM" in description or "time" in param.lower()):
        found.append(f"{int(text[:2])}시" + (f" {int(text[2:])}분" if text[2:] != "00" else ""))
    elif re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        found.append(f"{text[:4]}년 {int(text[5:7])}월 {int(text[8:])}일")
    found.append(text)
    return list(dict.fromkeys(found))


def param_label(tool: ToolMeta, param: str) -> str:
    prop = tool.properties.get(param) or {}
    return plain_description(str(prop.get("description") or "")) or param


def field_label(tool: ToolMeta, name: str) -> str:
    meta = tool.field(name)
    return meta.label if meta else name


# --- Composing from templates ----------------------------------------------------------------------------


@dataclass
class Text:
    request: str
    answer: str
    generator: str = TEMPLATE
    short: str = ""  # the answer in a few words, for a final "정답:" line
    model: str = ""
    note: str = ""
    named: list[str] = field(default_factory=list)  # values the request names (each rendering tried)


class _Composer:
    def __init__(self, plan: Plan, execution: Execution, tools: Mapping[Any, ToolMeta]):
        self.plan = plan
        self.execution = execution
        self.tools = tools
        self.runs = {run.index: run for run in execution.steps}
        self.calls_by_step: dict[int, list] = {}
        for call in execution.calls:
            if call.page in (None, 1):
                self.calls_by_step.setdefault(call.step, []).append(call)

    def tool(self, step: Step) -> ToolMeta:
        return self.tools[step.tool]

    def phrase(self, step: Step) -> ToolPhrase:
        return phrase_for(self.tool(step))

    def executed(self, step: Step) -> bool:
        return self.runs[step.index].executed

    # -- request

    def given(self, step: Step) -> str:
        """The values a user states for a step: its entry inputs or constants, rendered."""
        tool = self.tool(step)
        phrase = self.phrase(step)
        parts = []
        for param, value in step.args.items():
            if is_control_param(param):
                continue
            rendered = render_value(tool, param, value)[0]
            if param in phrase.bare:
                parts.append(rendered)
                continue
            raw_text = rendered == str(value) and not rendered.isdigit()
            parts.append(f"{param_label(tool, param)} {quote(rendered) if raw_text else rendered}")
        return ", ".join(parts)

    def subject(self, step: Step) -> str:
        noun = self.phrase(step).noun
        given = self.given(step)
        if not given:
            return noun
        if all(p in self.phrase(step).bare for p in step.args if not is_control_param(p)):
            return f"{given}의 {noun}"
        return f"{given} 조건의 {noun}"

    def pick_phrase(self, step: Step) -> str:
        parent = self.plan.steps[step.parent]  # type: ignore[index]
        item = self.phrase(parent).item
        ptool = self.tool(parent)
        picks = self.runs[step.index].picks
        if step.junction in (FAN, CMP):
            if picks and all(p["kind"] == "label" for p in picks):
                names = ", ".join(quote(p["value"]) for p in picks)
            elif picks and [p["rank"] for p in picks] == list(range(1, len(picks) + 1)):
                names = f"처음 {len(picks)}개 {item}"
            else:
                names = ", ".join(f"{p['rank']}번째" for p in picks) + f" {item}"
            return f"그중 {names} 각각에 대해"
        if step.junction == DRV:
            pick = picks[0]
            label = field_label(ptool, pick["field"])
            if pick["op"] == "filter":
                order = "첫 번째" if pick.get("rank", 1) == 1 else f"{pick['rank']}번째"
                return (
                    f"전체 {item} 중 {josa(label, '이/가')} {quote(pick['value'])}인 {order} {josa(item, '을/를')} 골라"
                )
            if pick["op"] == "latest":
                return f"전체 {item} 중 {josa(label, '이/가')} 가장 최근인 {josa(item, '을/를')} 골라"
            size = "큰" if pick["op"] == "max" else "작은"
            return f"전체 {item} 중 {josa(label, '이/가')} 가장 {size} {josa(item, '을/를')} 골라"
        pick = self.runs[parent.index].condition["pick"] if step.junction == COND else picks[0]
        return self._one_pick(pick, item)

    def _one_pick(self, pick: Mapping[str, Any], item: str) -> str:
        if pick["kind"] == "label":
            named = josa(quote(pick["value"]), "을/를")
            return f"그중 {named} 골라" if item == "항목" else f"그중 {item} {named} 골라"
        order = "첫 번째" if pick.get("rank", 1) == 1 else f"{pick['rank']}번째"
        return f"그중 {order} {josa(item, '을/를')} 골라"

    def target(self, step: Step) -> str:
        noun = self.phrase(step).noun
        given = self.given(step)
        return f"{given} 기준 {noun}" if given else noun

    def request(self) -> str:
        steps = self.plan.steps
        clauses = [f"{josa(self.subject(steps[0]), '을/를')} 조회해서"] if self.plan.children(0) else []
        handled: set[int] = set()
        for step in steps[1:]:
            if step.index in handled:
                continue
            siblings = [s for s in self.plan.children(step.parent) if s.junction == step.junction]  # type: ignore[arg-type]
            handled.update(s.index for s in siblings)
            if step.junction == SEM:
                targets = [self.target(s) for s in siblings]
                joined = josa(targets[0], "과/와") + " " + targets[1]
                clauses.append(f"{self.pick_phrase(step)} {josa(joined, '을/를')} 함께 조회하고")
            elif step.junction == COND:
                clauses.append(self._condition_clause(step, siblings))
            elif self.plan.children(step.index) or step.junction in (FAN, CMP):
                clauses.append(f"{self.pick_phrase(step)} {josa(self.target(step), '을/를')} 조회하고")
            else:
                clauses.append(f"{self.pick_phrase(step)} {josa(self.target(step), '을/를')} 조회해서")
        asks = self.asks()
        ask = asks[0] if len(asks) == 1 else ", ".join(asks[:-1]) + " 그리고 " + asks[-1]
        if not clauses:
            return f"{josa(ask, '을/를')} 알려줘."
        return " ".join(clauses).rstrip(",") + f" {josa(ask, '을/를')} 알려줘."

    def _condition_clause(self, step: Step, branches: list[Step]) -> str:
        parent = self.plan.steps[step.parent]  # type: ignore[index]
        condition = self.runs[parent.index].condition
        label = field_label(self.tool(parent), condition["field"])
        test = f"{condition['value']} 이상이면" if condition["op"] == ">=" else f"{quote(condition['value'])}이면"
        then = next(b for b in branches if b.branch == "then")
        other = next((b for b in branches if b.branch == "else"), None)
        text = f"{self.pick_phrase(step)} 그 {josa(label, '이/가')} {test} {josa(self.target(then), '을/를')}"
        if other is not None:
            return text + f", 아니면 {josa(self.target(other), '을/를')} 조회해서"
        return text + " 조회하고 아니면 그 값만 확인해서"

    def asks(self) -> list[str]:
        asks = []
        for step in self.plan.steps:
            if step.answer is None or step.branch == "else":
                continue
            if step.branch == "then":
                parent = self.plan.steps[step.parent]  # type: ignore[index]
                label = field_label(self.tool(parent), self.runs[parent.index].condition["field"])
                asks.append(f"{label} 값과 조회한 결과")
                continue
            tool = self.tool(step)
            phrase = self.phrase(step)
            run = self.runs[step.index]
            if step.parent is None:
                noun = self.subject(step)
            else:
                noun = phrase.noun if step.junction in (FAN, CMP) else f"그 {phrase.noun}"
            answer = run.answer or {"op": step.answer.op, "fields": list(step.answer.fields)}
            if step.junction == CMP:
                metric = "건수" if step.compare == "count" else field_label(tool, step.compare)
                asks.append(f"두 결과의 {metric} 중 어느 쪽이 더 큰지")
            elif answer["op"] == "count":
                asks.append(f"{josa(noun, '이/가')} 모두 몇 건인지")
            elif answer["op"] in ("max", "min"):
                size = "큰" if answer["op"] == "max" else "작은"
                asks.append(
                    f"{noun} 중 {josa(field_label(tool, answer['field']), '이/가')} 가장 {size} {josa(phrase.item, '과/와')} 그 값"
                )
            elif answer["op"] == "latest":
                asks.append(f"{noun} 중 {josa(field_label(tool, answer['field']), '이/가')} 가장 최근인 {phrase.item}")
            else:
                labels = ", ".join(field_label(tool, f) for f in answer["fields"]) or "결과"
                prefix = "각각의 " if step.junction == FAN else ""
                asks.append(f"{prefix}{noun}의 {labels}")
        if not asks:
            parent = next(s for s in self.plan.steps if self.runs[s.index].condition)
            label = field_label(self.tool(parent), self.runs[parent.index].condition["field"])
            asks.append(f"{label} 값과 조회한 결과")
        return asks

    # -- answer

    def answer(self) -> str:
        sentences = []
        for step in self.plan.steps:
            run = self.runs[step.index]
            if run.condition:
                sentences.append(self._condition_answer(step, run.condition))
            if run.comparison:
                sentences.append(self._comparison_answer(step, run.comparison))
            elif run.answer:
                sentences.append(self._leaf_answer(step, run.answer))
        return " ".join(s for s in sentences if s)

    def _condition_answer(self, step: Step, condition: Mapping[str, Any]) -> str:
        label = field_label(self.tool(step), condition["field"])
        observed = condition["observed"]
        if condition["op"] == ">=":
            met = "이상이므로" if condition["outcome"] == "then" else "미만이므로"
            head = f"{josa(label, '은/는')} {josa(observed, '으로/로')} {condition['value']} {met}"
        else:
            met = "같으므로" if condition["outcome"] == "then" else "다르므로"
            head = f"{josa(label, '은/는')} {josa(quote(observed), '으로/로')} {josa(quote(condition['value']), '과/와')} {met}"
        taken = [c for c in self.plan.children(step.index) if self.executed(c)]
        if not taken:
            return head + " 추가로 조회하지 않았습니다."
        return head + f" {josa(self.phrase(taken[0]).noun, '을/를')} 조회했습니다."

    def _comparison_answer(self, step: Step, comparison: Mapping[str, Any]) -> str:
        tool = self.tool(step)
        metric = "건수" if comparison["metric"] == "count" else field_label(tool, comparison["metric"])
        names = [
            p["value"] if p["kind"] == "label" else f"{p['rank']}번째 {self.phrase(self.plan.steps[step.parent]).item}"
            for p in comparison["picks"]
        ]
        a, b = comparison["values"]
        text = f"{names[0]}의 {metric} {a}, {names[1]}의 {metric} {josa(b, '으로/로')}"
        if comparison["winner"] is None:
            return text + " 두 값이 같습니다."
        return text + f" {josa(names[comparison['winner']], '이/가')} 더 큽니다."

    def _leaf_answer(self, step: Step, answer: Mapping[str, Any]) -> str:
        tool = self.tool(step)
        phrase = self.phrase(step)
        if answer["op"] == "count":
            return f"{josa(phrase.noun, '은/는')} 모두 {answer['value']}건입니다."
        if answer["op"] in ("max", "min", "latest"):
            label = field_label(tool, answer["field"])
            size = {"max": "가장 큰", "min": "가장 작은", "latest": "가장 최근인"}[answer["op"]]
            who = f"{quote(answer['label'])}" if answer.get("label") else phrase.item
            return f"전체 {answer['over']}건 중 {josa(label, '이/가')} {size} {phrase.item}은 {who}이며 {label} 값은 {answer['value']}입니다."
        parts = []
        picks = self.runs[step.index].picks
        for number, item in enumerate(answer["items"]):
            rows = []
            for row in item["rows"]:
                rows.append(", ".join(f"{field_label(tool, f)} {v}" for f, v in row.items()))
            body = "; ".join(r for r in rows if r) or "값 없음"
            total = int(item["total"]) if str(item["total"]).isdigit() else item["total"]
            more = (
                f" (총 {total}건 중 {len(item['rows'])}건)"
                if isinstance(total, int) and total > len(item["rows"])
                else ""
            )
            if len(answer["items"]) > 1 and number < len(picks):
                pick = picks[number]
                name = (
                    pick["value"]
                    if pick["kind"] == "label"
                    else f"{pick['rank']}번째 {self.phrase(self.plan.steps[step.parent]).item}"
                )
                parts.append(f"{name}: {body}{more}")
            else:
                parts.append(f"{phrase.noun}: {body}{more}")
        return " / ".join(parts) + "."

    def short(self) -> str:
        """The answer in a few words: the winner, the count, the extreme, or the last leaf's first row."""
        short = ""
        for step in self.plan.steps:
            run = self.runs[step.index]
            if run.condition and not any(self.executed(c) for c in self.plan.children(step.index)):
                short = run.condition["observed"]
            if run.comparison:
                winner = run.comparison["winner"]
                pick = run.comparison["picks"][winner] if winner is not None else None
                short = (
                    "같음" if pick is None else (pick["value"] if pick["kind"] == "label" else f"{pick['rank']}번째")
                )
            elif run.answer:
                answer = run.answer
                if answer["op"] == "count":
                    short = f"{answer['value']}건"
                elif answer["op"] in ("max", "min", "latest"):
                    short = answer.get("label") or answer["value"]
                else:
                    rows = [row for item in answer["items"] for row in item["rows"][:1] if row]
                    short = ", ".join(rows[-1].values()) if rows else short
        return short


def named_values(execution: Execution, tools: Mapping[Any, ToolMeta]) -> list[list[str]]:
    """Per value a request must name (entry values, chosen names, thresholds), the ways it may be written."""
    plan = execution.plan
    found = []
    for entry in execution.facts.get("entry", []):
        tool = tools[plan.steps[entry["step"]].tool]
        found.append(render_value(tool, entry["param"], entry["value"]))
    for selector in execution.facts.get("selectors", []):
        found.append([str(selector["value"])])
    return found


def compose(plan: Plan, execution: Execution, tools: Mapping[Any, ToolMeta]) -> Text:
    """The template request and answer of an executed walk."""
    composer = _Composer(plan, execution, tools)
    return Text(composer.request(), composer.answer(), TEMPLATE, composer.short())


# --- The LLM writer and judge ----------------------------------------------------------------------------

WRITER_SYSTEM = (
    "당신은 한국 공공데이터 API 도구 사용 학습 데이터를 만드는 작성자입니다. 실제로 실행된 도구 호출 체인과 "
    "그 결과가 주어집니다. 이 체인을 모두 거쳐야만 답할 수 있는 자연스러운 한국어 사용자 요청과, 관찰 결과에 "
    "근거한 한국어 답변을 쓰세요. 규칙: (1) must_mention의 값은 요청에 그대로(또는 주어진 다른 표기로) 넣는다. "
    "(2) must_not_mention의 값(호출 사이에 전달된 코드·ID, 답)은 요청에 절대 넣지 않는다. (3) 답변은 "
    'answer_facts의 값을 그대로 쓴다. JSON 객체 하나만 답하세요: {"request": "...", "answer": "..."}'
)

JUDGE_SYSTEM = (
    "당신은 도구 사용 학습 데이터의 품질 심사자입니다. 사용자 요청, 실행된 도구 호출과 관찰 결과, 답변이 "
    "주어집니다. 다음을 모두 만족하면 통과입니다: 요청이 자연스러운 한국어이고 체인의 모든 호출이 필요하다; "
    "요청에 호출 사이에서 전달된 값(must_not_mention)이 드러나지 않는다; 답변이 관찰 결과와 맞고 요청에 답한다. "
    'JSON 객체 하나만 답하세요: {"pass": true 또는 false, "reason": "한 문장"}'
)

_JSON_OBJECT = re.compile(r"\{.*\}", re.S)


def _parse_object(text: str) -> dict[str, Any]:
    match = _JSON_OBJECT.search(text or "")
    if not match:
        raise LLMError("the model's answer holds no JSON object")
    try:
        data = json.loads(match.group(0))
    except ValueError as exc:
        raise LLMError(f"the model's JSON does not parse: {exc}") from None
    if not isinstance(data, dict):
        raise LLMError("the model's JSON is not an object")
    return data


def brief(plan: Plan, execution: Execution, tools: Mapping[Any, ToolMeta], draft: Text) -> dict[str, Any]:
    """What the writer and the judge are shown: the chain, what to name and not to name, the facts."""
    steps = []
    for step in plan.steps:
        run = next(r for r in execution.steps if r.index == step.index)
        if not run.executed:
            continue
        tool = tools[step.tool]
        steps.append(
            {
                "tool": tool.name,
                "title": tool.label or phrase_for(tool).noun,
                "junction": step.junction or "ENTRY",
                "given": {
                    param_label(tool, p): render_value(tool, p, v)[0]
                    for p, v in step.args.items()
                    if not is_control_param(p)
                },
                "picks": run.picks,
                "condition": run.condition,
                "comparison": run.comparison,
            }
        )
    return {
        "steps": steps,
        "must_mention": [options[0] for options in named_values(execution, tools)],
        "must_not_mention": execution.facts.get("intermediate", [])[:40],
        "answer_facts": [f["value"] for f in execution.facts.get("answer", [])][:40],
        "draft_request": draft.request,
        "draft_answer": draft.answer,
    }


def llm_write(client: LLMClient, plan: Plan, execution: Execution, tools: Mapping[Any, ToolMeta]) -> Text:
    """The model's request and answer, written from the template draft under the same rules."""
    draft = compose(plan, execution, tools)
    data = _parse_object(
        client.chat(WRITER_SYSTEM, json.dumps(brief(plan, execution, tools, draft), ensure_ascii=False))
    )
    request, answer = str(data.get("request") or "").strip(), str(data.get("answer") or "").strip()
    if not request or not answer:
        raise LLMError("the model's JSON lacks a request or an answer")
    return Text(request, answer, LLM, draft.short, client.model)


def observation_summary(execution: Execution, limit: int = 5) -> list[dict[str, Any]]:
    return [
        {"name": c.name, "arguments": c.arguments, "total_count": c.total_count, "records": c.records[:limit]}
        for c in execution.calls
    ]


def llm_judge(client: LLMClient, item: Mapping[str, Any]) -> tuple[bool, str]:
    """(passed, reason) from the model, for a stored item: request, answer, calls, facts."""
    payload = {
        "request": item["request"],
        "answer": item["answer"],
        "calls": [
            {
                "name": c["name"],
                "arguments": c["arguments"],
                "records": (c.get("observation") or {}).get("records", [])[:5],
                "total_count": (c.get("observation") or {}).get("total_count"),
            }
            for c in item.get("calls", [])
        ][:20],
        "must_not_mention": (item.get("facts") or {}).get("intermediate", [])[:40],
    }
    data = _parse_object(client.chat(JUDGE_SYSTEM, json.dumps(payload, ensure_ascii=False, default=str)))
    verdict = data.get("pass")
    if not isinstance(verdict, bool):
        raise LLMError("the judge's JSON has no boolean 'pass'")
    return verdict, str(data.get("reason") or "")[:500]
