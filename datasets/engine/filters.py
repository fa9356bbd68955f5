"""The three quality stages a synthesized trajectory must pass (APIGen): format, execution, semantic.

An item is plain data, as datasets.services builds it from a trajectory: `request`, `answer`, `calls` (seq,
name, arguments, observation), `schemas` (the OpenAI schemas of its tools) with `aliases`, `named` (per value
the request must name, the ways it may be written), `facts` (`intermediate`: values passed between calls;
`answer`: answer values, observed in a result or derived from results) and `units` (field -> unit).

- format: every call names a tool of the item, its arguments fit that tool's schema (required present, no
  unknown parameter, types, enums); request and answer are non-empty text.
- execution: every call succeeded with records; every observed answer value is in the calls' results; derived
  values (counts, maxima ...) recompute from the stored results; the answer text states a value of each
  answering step.
- semantic: an LLM judge when one is given; otherwise rules: the request names every entry value, chosen name
  and threshold, and leaks neither a value passed between calls nor the answer.

Text comparisons use the benchmark's normalisation (apis.engine.korean_text, as benchmarks.engine.checkers), so a filter and a checker
agree on what "the answer says 1,234" means.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from apis.engine.korean_text import find_word, normalize_text, numbers_match, read_quantities
from datasets.engine.naturalness import naturalness_problems

FORMAT, EXECUTION, SEMANTIC, NATURAL = "format", "execution", "semantic", "natural"
STAGES = (FORMAT, EXECUTION, SEMANTIC, NATURAL)
_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}

Judge = Callable[[Mapping[str, Any]], tuple[bool, str]]


@dataclass
class StageResult:
    passed: bool
    problems: list[str] = field(default_factory=list)
    by: str = "rules"
    advisory: bool = False  # reported, not gating (the naturalness stage on items of graph walks)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _result(problems: list[str], by: str = "rules") -> StageResult:
    return StageResult(not problems, problems[:20], by)


# --- format --------------------------------------------------------------------------------------------


def schema_problems(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> list[str]:
    """What is wrong with arguments against a function's parameter schema (flat JSON Schema objects)."""
    params = schema.get("parameters") or {}
    properties = params.get("properties") or {}
    problems = []
    for name in params.get("required") or ():
        if name not in arguments:
            problems.append(f"missing required argument {name}")
    for name, value in arguments.items():
        prop = properties.get(name)
        if prop is None:
            problems.append(f"unknown argument {name}")
            continue
        kind = prop.get("type")
        allowed = _TYPES.get(kind)
        if allowed and (not isinstance(value, allowed) or (kind in ("integer", "number") and isinstance(value, bool))):
            problems.append(f"{name} should be {kind}, got {type(value).__name__} {value!r}")
        enum = prop.get("enum")
        if enum and value not in enum and str(value) not in {str(e) for e in enum}:
            problems.append(f"{name}={value!r} is not one of {list(enum)}")
    return problems


def aliased(arguments: Mapping[str, Any], aliases: Mapping[str, str]) -> dict[str, Any]:
    """Arguments under the schema's names: a parameter a function-calling API would reject has an alias."""
    back = {original: alias for alias, original in (aliases or {}).items()}
    return {back.get(name, name): value for name, value in arguments.items()}


def check_format(item: Mapping[str, Any]) -> StageResult:
    problems = []
    for key in ("request", "answer"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            problems.append(f"{key} is empty")
    schemas = {s["function"]["name"]: s["function"] for s in item.get("schemas") or []}
    aliases = item.get("aliases") or {}
    if not item.get("calls"):
        problems.append("no calls")
    for call in item.get("calls") or []:
        schema = schemas.get(call["name"])
        if schema is None:
            problems.append(f"call {call['seq']}: {call['name']} is not among the item's tools")
            continue
        try:
            json.dumps(call["arguments"])
        except (TypeError, ValueError):
            problems.append(f"call {call['seq']}: arguments are not JSON")
            continue
        for problem in schema_problems(schema, aliased(call["arguments"], aliases.get(call["name"], {}))):
            problems.append(f"call {call['seq']} {call['name']}: {problem}")
    return _result(problems)


# --- execution -----------------------------------------------------------------------------------------


def _scalars(value: Any) -> Iterator[str]:
    """Every scalar inside a JSON value, as text (in no particular order: callers gather them in sets)."""
    stack = [value]
    while stack:  # an explicit stack, not nested generators: a result holds thousands of scalars
        current = stack.pop()
        if isinstance(current, Mapping):
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
        elif current is not None:
            yield str(current)


def observed_values(calls: Sequence[Mapping[str, Any]]) -> set[str]:
    """Every scalar the calls returned (record values, total counts), normalised."""
    found = set()
    for call in calls:
        observation = call.get("observation") or {}
        for text in _scalars(observation.get("records") or []):
            found.add(normalize_text(text))
        for key in ("total_count", "record_count"):
            if observation.get(key) is not None:
                found.add(normalize_text(str(observation[key])))
    return found


def _in_its_field(calls: Sequence[Mapping[str, Any]], fact: Mapping[str, Any], value: str) -> bool:
    """Whether a record of the fact's own step holds the value, verbatim, in the fact's field."""
    field_name = fact.get("field")
    for call in calls:
        if call.get("step") != fact.get("step"):
            continue
        for record in (call.get("observation") or {}).get("records") or []:
            found = record.get(field_name) if isinstance(record, Mapping) else None
            if found is not None and not isinstance(found, Mapping | list) and str(found).strip() == value:
                return True
    return False


def _not_returned(calls: Sequence[Mapping[str, Any]], facts: Sequence[Mapping[str, Any]]) -> set[str]:
    """The observed answer values no call returned verbatim (a record value, stripped, or a count): the cheap first
    look before normalising. Each is looked for where the fact says it was read first, then in every result."""
    missing = {
        value
        for fact in facts
        if fact["kind"] != "derived" and not _in_its_field(calls, fact, value := str(fact["value"]).strip())
    }
    for call in calls:
        observation = call.get("observation") or {}
        for key in ("total_count", "record_count"):
            if observation.get(key) is not None:
                missing.discard(str(observation[key]))
        for text in _scalars(observation.get("records") or []):
            if not missing:
                return missing
            missing.discard(text.strip())
    return missing


def _number(text: Any) -> float | None:
    try:
        return float(str(text).replace(",", "").strip())
    except ValueError:
        return None


def _recompute(fact: Mapping[str, Any], calls: Mapping[int, Mapping[str, Any]]) -> str | None:
    """A derived value recomputed from the stored results of the calls it names; None when they are missing."""
    chosen = [calls[seq] for seq in fact.get("calls") or [] if seq in calls]
    if not chosen:
        return None
    records = [r for c in chosen for r in (c.get("observation") or {}).get("records") or []]
    if fact["op"] == "count_where":  # records whose field equals a value, over every page of the step
        name, _, wanted = str(fact.get("field") or "").partition("=")
        first = chosen[0].get("observation") or {}
        counted = sum(int((c.get("observation") or {}).get("record_count") or 0) for c in chosen)
        if first.get("total_count") is not None and int(first["total_count"]) != counted:
            return None
        return str(sum(1 for r in records if normalize_text(str(r.get(name, ""))) == normalize_text(wanted)))
    if fact["op"] == "count":
        first = chosen[0].get("observation") or {}
        counted = sum(int((c.get("observation") or {}).get("record_count") or 0) for c in chosen)
        if first.get("total_count") is not None and int(first["total_count"]) != counted:
            return None
        return str(counted)
    values = [r.get(fact["field"]) for r in records]
    if fact["op"] == "latest":
        dates = ["".join(ch for ch in str(v) if ch.isdigit()) for v in values if v not in (None, "")]
        best = max(dates, default=None)
        return next(
            (
                str(v).strip()
                for v in values
                if v not in (None, "") and "".join(ch for ch in str(v) if ch.isdigit()) == best
            ),
            None,
        )
    numbers = [(n, str(v).strip()) for v in values if (n := _number(v)) is not None]
    if not numbers:
        return None
    pick = max(numbers, key=lambda nv: nv[0]) if fact["op"] == "max" else min(numbers, key=lambda nv: nv[0])
    return pick[1]


def _said(value: str, text: str, unit: str | None = None) -> bool:
    if find_word(value, text):
        return True
    number = _number(value)
    if number is None:
        return False
    return numbers_match(read_quantities(text), number, unit=unit) is not None


def check_execution(item: Mapping[str, Any]) -> StageResult:
    problems = []
    calls = item.get("calls") or []
    by_seq = {call["seq"]: call for call in calls}
    for call in calls:
        observation = call.get("observation") or {}
        if not observation.get("ok"):
            problems.append(f"call {call['seq']} {call['name']} failed: {observation.get('error_class') or 'not ok'}")
        elif not (observation.get("record_count") or observation.get("records")):
            problems.append(f"call {call['seq']} {call['name']} returned no records")
    facts = (item.get("facts") or {}).get("answer") or []
    unseen = _not_returned(calls, facts)
    seen: set[str] | None = None  # normalised values, computed only when a value is not there verbatim
    if not facts:
        problems.append("no answer values")
    for fact in facts:
        value = str(fact["value"])
        if fact["kind"] == "derived":
            again = _recompute(fact, by_seq)
            if again is None or normalize_text(again) != normalize_text(value):
                problems.append(
                    f"derived {fact.get('op')} value {value!r} does not recompute from the results ({again!r})"
                )
        elif value.strip() in unseen:
            if seen is None:
                seen = observed_values(calls)
            if normalize_text(value) not in seen:
                problems.append(f"answer value {value!r} is not in any result")
    answer = str(item.get("answer") or "")
    units = item.get("units") or {}
    for step in sorted({f["step"] for f in facts}):
        primary = [f for f in facts if f["step"] == step and f.get("field") != "total_count"] or [
            f for f in facts if f["step"] == step
        ]
        if not any(
            _said(str(f["value"]), answer, units.get(str(f.get("field"))))
            or any(find_word(str(f[k]), answer) for k in ("shown", "decoded") if f.get(k))
            for f in primary
        ):
            shown = ", ".join(repr(str(f["value"])) for f in primary[:3])
            problems.append(f"the answer states no value of step {step} ({shown} ...)")
    return _result(problems)


# --- semantic ------------------------------------------------------------------------------------------

_HANGUL = range(0xAC00, 0xD7A4)


def _inside_named(value: str, named: Sequence[Sequence[str]]) -> bool:
    return any(find_word(value, rendering) for options in named for rendering in options)


def _worth_checking(value: str) -> bool:
    text = normalize_text(value)
    return len(text) >= 2 and not (text.isdigit() and len(text) <= 2)


def check_semantic_rules(item: Mapping[str, Any]) -> StageResult:
    request = str(item.get("request") or "")
    problems = []
    if not any(ord(ch) in _HANGUL for ch in request):
        problems.append("the request is not Korean")
    named = item.get("named") or []
    for options in named:
        if options and not any(find_word(option, request) for option in options):
            problems.append(f"the request does not name {options[0]!r}")
    facts = item.get("facts") or {}
    for value in facts.get("intermediate") or []:
        value = str(value)
        if _worth_checking(value) and not _inside_named(value, named) and find_word(value, request):
            problems.append(f"the request leaks {value!r}, a value passed between calls")
    for fact in facts.get("answer") or []:
        value = str(fact["value"])
        if fact.get("field") == "total_count" or not _worth_checking(value) or _inside_named(value, named):
            continue
        if find_word(value, request):
            problems.append(f"the request gives away the answer value {value!r}")
    return _result(problems)


def check_semantic(item: Mapping[str, Any], judge: Judge | None = None, judge_name: str = "llm") -> StageResult:
    if judge is None:
        return check_semantic_rules(item)
    passed, reason = judge(item)
    return StageResult(passed, [] if passed else [reason or "the judge rejected it"], judge_name)


def check_natural(item: Mapping[str, Any]) -> StageResult:
    """The naturalness and coherence stage (datasets.engine.naturalness): gating for need-first items, whose facts
    say what every step is for; advisory for items of graph walks."""
    problems = naturalness_problems(item)
    result = StageResult(not problems, problems[:20])
    result.advisory = not (item.get("facts") or {}).get("need")
    return result


def run_filters(item: Mapping[str, Any], *, judge: Judge | None = None, judge_name: str = "llm") -> dict[str, dict]:
    """Every stage's result (all run, so a reviewer sees every problem), as stored on the trajectory."""
    return {
        FORMAT: check_format(item).to_dict(),
        EXECUTION: check_execution(item).to_dict(),
        SEMANTIC: check_semantic(item, judge, judge_name).to_dict(),
        NATURAL: check_natural(item).to_dict(),
    }


def _gating(results: Mapping[str, Mapping[str, Any]], stage: str) -> bool:
    result = results.get(stage)
    # The naturalness stage does not gate results stored before it existed, nor where it is advisory.
    return not (stage == NATURAL and (result is None or result.get("advisory")))


def passed(results: Mapping[str, Mapping[str, Any]]) -> bool:
    return all(results.get(stage, {}).get("passed") for stage in STAGES if _gating(results, stage))


def first_failure(results: Mapping[str, Mapping[str, Any]]) -> str | None:
    return next(
        (stage for stage in STAGES if _gating(results, stage) and not results.get(stage, {}).get("passed")), None
    )
