"""Executes a walk's plan for real: every argument after the first call comes from what earlier calls returned.

The caller injects `execute(tool, args) -> result` (async; a NormalizedResult or anything with ok, records,
total_count, page, error_class, result_msg and optionally api_call_id), so this runs without Django: the site
passes the catalog's executor service (each call leaves an ApiCall), tests may pass a fake.

Rules worth knowing:
- A parent's record is chosen so that a request can name it: a record whose name field (nodenm, title, ...) is
  unique among the results, else the first usable one (its rank). DRV reduces every page of the parent instead.
- Required parameters without a binding come from the nearest earlier step with the same name (its record
  first, then its arguments), else from the tool's example (a constant of the plan).
- A step whose records are reduced (a DRV child, a counting or ranking answer) reads every page, in parallel
  after the first; more pages than max_pages, or a total the pages do not add up to, discards the walk.
- Any failed call, empty result, missing field or failed transform discards the walk with a reason
  (`Execution.reason`), so a run can count discards per reason.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graphs.engine import transforms
from graphs.engine.names import is_control_param, normalize
from graphs.engine.sampling import rng_for
from graphs.engine.walk import (
    CMP,
    COND,
    DRV,
    FAN,
    Plan,
    Step,
    ToolMeta,
    date_value,
    field_kind,
    number_value,
)

Execute = Callable[[ToolMeta, dict[str, Any]], Awaitable[Any]]

PAGE_SIZE = 50
MAX_PAGES = 20
MAX_RECORDS = 100  # records kept per call, as the benchmark's tool environment shows them
FIELDS_SHOWN = 3  # records an answer lists per call


class Discard(Exception):
    """The walk cannot become a trajectory; reason is a short class such as call.no_records."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass
class Call:
    step: int
    round: int
    name: str
    arguments: dict[str, Any]
    bindings: list[dict[str, Any]]
    order: tuple[int, int] = (0, 0)  # (branch, page) within the step
    branch: str = ""
    page: int | None = None  # page number when the step reads every page
    seq: int = 0
    ok: bool = False
    error_class: str | None = None
    http_status: int | None = None
    result_code: str | None = None
    result_msg: str | None = None
    total_count: int | None = None
    page_info: dict[str, Any] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    record_count: int = 0
    latency_ms: float = 0.0
    api_call_id: Any = None
    all_records: list[dict[str, Any]] = field(default_factory=list, repr=False)  # every record, uncapped

    def take(self, result: Any) -> Call:
        """Store what the executor answered (a NormalizedResult, or anything with its attributes)."""
        records = list(getattr(result, "records", None) or [])
        self.ok = bool(getattr(result, "ok", False))
        self.error_class = getattr(result, "error_class", None)
        self.http_status = getattr(result, "http_status", None)
        self.result_code = getattr(result, "result_code", None)
        self.result_msg = getattr(result, "result_msg", None)
        self.total_count = getattr(result, "total_count", None)
        self.page_info = dict(getattr(result, "page", None) or {})
        self.record_count = len(records)
        self.records = records[:MAX_RECORDS]
        self.latency_ms = float(getattr(result, "latency_ms", 0.0) or 0.0)
        self.api_call_id = getattr(result, "api_call_id", None)
        self.all_records = records
        return self

    def observation(self) -> dict[str, Any]:
        """What the tool returned, in the shape the benchmark's tool environment gives a model."""
        return {
            "ok": self.ok,
            "error_class": self.error_class,
            "http_status": self.http_status,
            "result_code": self.result_code,
            "result_msg": self.result_msg,
            "total_count": self.total_count,
            "page": self.page_info,
            "record_count": self.record_count,
            "records": self.records,
            "records_omitted": self.record_count - len(self.records),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "step": self.step,
            "round": self.round,
            "name": self.name,
            "branch": self.branch,
            "page": self.page,
            "arguments": self.arguments,
            "bindings": self.bindings,
            "observation": self.observation(),
            "latency_ms": self.latency_ms,
            "api_call_id": self.api_call_id,
        }


@dataclass
class StepRun:
    index: int
    executed: bool = False
    picks: list[dict[str, Any]] = field(default_factory=list)  # how the parent's record(s) were chosen
    condition: dict[str, Any] | None = None  # COND tested on this step's record: value, test, outcome
    comparison: dict[str, Any] | None = None  # CMP: the two metrics and which is larger
    answer: dict[str, Any] | None = None  # a leaf's answer facts

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "executed": self.executed,
            "picks": self.picks,
            "condition": self.condition,
            "comparison": self.comparison,
            "answer": self.answer,
        }


@dataclass
class Execution:
    plan: Plan
    ok: bool = False
    reason: str = ""
    detail: str = ""
    calls: list[Call] = field(default_factory=list)
    steps: list[StepRun] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def length(self) -> int:
        return sum(1 for s in self.steps if s.executed)

    @property
    def junctions(self) -> list[str]:
        executed = {s.index for s in self.steps if s.executed}
        found = [s.junction for s in self.plan.steps if s.junction and s.index in executed]
        if any(s.answer and s.answer.op != "fields" and s.index in executed for s in self.plan.steps):
            found.append(DRV)
        if COND in [s.junction for s in self.plan.steps] and COND not in found:
            found.append(COND)  # the condition was tested even when no branch ran
        return found

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "reason": self.reason,
            "detail": self.detail,
            "plan": self.plan.to_dict(),
            "calls": [c.to_dict() for c in self.calls],
            "steps": [s.to_dict() for s in self.steps],
            "facts": self.facts,
        }


# --- Values --------------------------------------------------------------------------------------------


def scalar_text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    text = str(value)
    return text if text.strip() else None


def coerce(tool: ToolMeta, args: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments in the types the tool's schema states (integer, number), as a model's call would carry them."""
    out: dict[str, Any] = {}
    for name, value in args.items():
        kind = (tool.properties.get(name) or {}).get("type")
        if isinstance(value, list | dict):
            out[name] = value
            continue
        text = str(value).strip()
        if kind == "integer" and text.lstrip("-").isdigit() and str(int(text)) == text:
            out[name] = int(text)
        elif kind == "number" and number_value(text) is not None and "," not in text:
            number = float(text)
            out[name] = int(number) if number.is_integer() and "." not in text else number
        else:
            out[name] = value if isinstance(value, str) else text
    return out


def fallback_fields(
    tool: ToolMeta, record: Mapping[str, Any], *, avoid: Sequence[str] = (), limit: int = 3
) -> list[str]:
    """Fields of this very record worth reporting, when the planned ones are empty in it (records of one tool
    may differ by type, as TourAPI's intro records do)."""
    chosen = []
    for name, value in record.items():
        text = scalar_text(value)
        if text is None or name in avoid:
            continue
        meta = tool.field(name)
        kind = meta.kind if meta else field_kind(name, "", "", text)
        if kind not in ("code", "coord"):
            chosen.append(name)
        if len(chosen) == limit:
            break
    return chosen


def nice_threshold(value: float, *, above: bool) -> float:
    """A round number at or below the value (above=False) or above it: 45 -> 40 / 50, 1.3 -> 1 / 2."""
    if value == 0:
        return 1.0 if above else 0.0
    magnitude = 10 ** math.floor(math.log10(abs(value)))
    base = math.floor(value / magnitude) * magnitude
    threshold = base + magnitude if above else base
    return round(threshold, 10)


def format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.10g}"


# --- The run of one plan -------------------------------------------------------------------------------


class _Run:
    def __init__(
        self,
        plan: Plan,
        tools: Mapping[Any, ToolMeta],
        execute: Execute,
        rng: random.Random,
        page_size: int,
        max_pages: int,
    ):
        self.plan = plan
        self.tools = tools
        self.execute = execute
        self.rng = rng
        self.page_size = min(page_size, MAX_RECORDS)
        self.max_pages = max_pages
        self.calls: list[Call] = []
        self.steps = [StepRun(s.index) for s in plan.steps]
        self.records: dict[int, list[list[dict[str, Any]]]] = {}  # step -> records per call (all pages merged)
        self.step_calls: dict[int, list[Call]] = {}
        self.end_round: dict[int, int] = {}
        self.subjects: dict[tuple[int, str], tuple[dict[str, Any], dict[str, Any]]] = {}
        self.fed: dict[int, dict[str, Any]] = {}  # step -> the parent record that fed it

    # -- driving

    async def run(self) -> None:
        await self._step(self.plan.steps[0], [({}, {"kind": "entry"})])
        queue = [0]
        while queue:
            parent = queue.pop(0)
            children = self.plan.children(parent)
            if not children:
                continue
            if children[0].junction == COND:
                children = self._branch(self.plan.steps[parent], children)
            await _all(*(self._child(child) for child in children))
            queue.extend(child.index for child in children)

    async def _child(self, step: Step) -> None:
        parent = self.plan.steps[step.parent]  # type: ignore[index]
        if step.junction in (FAN, CMP):
            inputs = self._several(parent, step)
        elif step.junction == DRV:
            inputs = [self._reduced(parent, step)]
        else:
            inputs = [self._subject(parent)]
        await self._step(step, inputs)

    async def _step(self, step: Step, inputs: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
        tool = self.tools[step.tool]
        run = self.steps[step.index]
        run.picks = [pick for _, pick in inputs if pick.get("kind") != "entry"]
        start = 0 if step.parent is None else self.end_round[step.parent] + 1
        all_pages = self.plan.needs_all_pages(step.index)
        planned = []
        for branch, (record, _) in enumerate(inputs):
            if step.parent is not None:
                self.fed[step.index] = record
            args, bindings = self._arguments(step, tool, record)
            if all_pages:
                paging = self._page_args(tool, 1)
                args.update(paging)
                bindings += [{"param": k, "value": v, "source": "paging"} for k, v in paging.items()]
            label = str(branch + 1) if len(inputs) > 1 else ""
            planned.append(
                self._call(
                    step, tool, coerce(tool, args), bindings, start, (branch, 1), label, 1 if all_pages else None
                )
            )
        calls = list(await _all(*planned))
        for call in calls:
            self._check(step, call)
        end = start
        merged = []
        for call in calls:
            records = call.records
            if all_pages:
                more, last_round = await self._rest(step, tool, call, start)
                records = records + more
                end = max(end, last_round)
            merged.append(records)
        self.records[step.index] = merged
        self.step_calls[step.index] = calls
        self.end_round[step.index] = end
        run.executed = True
        if step.fan == 2 and step.compare:
            run.comparison = self._compare(step, calls, merged, run.picks)

    async def _call(
        self,
        step: Step,
        tool: ToolMeta,
        args: dict[str, Any],
        bindings: list[dict[str, Any]],
        round_: int,
        order: tuple[int, int],
        branch: str,
        page: int | None,
    ) -> Call:
        call = Call(step.index, round_, tool.name, args, bindings, order, branch, page)
        self.calls.append(call)
        try:
            result = await self.execute(tool, dict(args))
        except Exception as exc:  # the executor refused the call (a missing key, a bad mode)
            raise Discard("executor.refused", f"{tool.name}: {exc}") from None
        return call.take(result)

    def _check(self, step: Step, call: Call) -> None:
        where = "entry" if step.parent is None else "call"
        if not call.ok:
            raise Discard(f"{where}.{call.error_class or 'failed'}", f"{call.name}: {call.result_msg or ''}".strip())
        if not call.record_count:
            raise Discard(f"{where}.no_records", f"{call.name} {call.arguments}")
        call.records = call.all_records[:MAX_RECORDS]

    # -- paging

    def _page_args(self, tool: ToolMeta, page: int) -> dict[str, str]:
        paging = tool.paging
        if paging is None:
            return {}
        style, first, second = paging
        size = self.page_size
        maximum = (tool.properties.get(second) or {}).get("maximum")
        if isinstance(maximum, int | float) and maximum > 0:
            size = min(size, int(maximum))
        if style == "index":
            return {first: str((page - 1) * size + 1), second: str(page * size)}
        return {first: str(page), second: str(size)}

    async def _rest(self, step: Step, tool: ToolMeta, first: Call, start: int) -> tuple[list[dict], int]:
        """The records of every page after the first, fetched in parallel; (records, last round)."""
        fetched = first.all_records
        total = first.total_count
        if not first.page_info.get("has_more") and (total is None or total <= len(fetched)):
            return [], start
        if tool.paging is None:
            raise Discard("paging.unsupported", f"{tool.name} has more records but no paging parameters")
        size = len(fetched)
        if total is None:
            return await self._sequential(step, tool, first, start)
        pages = math.ceil(total / size) if size else 1
        if pages > self.max_pages:
            raise Discard(
                "paging.too_many_pages", f"{tool.name}: {total} records need {pages} pages (max {self.max_pages})"
            )
        planned = []
        for number in range(2, pages + 1):
            args = {**first.arguments, **coerce(tool, self._page_args(tool, number))}
            bindings = [b for b in first.bindings if b["source"] != "paging"]
            bindings += [{"param": k, "value": v, "source": "paging"} for k, v in self._page_args(tool, number).items()]
            planned.append(
                self._call(step, tool, args, bindings, start + 1, (first.order[0], number), first.branch, number)
            )
        calls = list(await _all(*planned))
        records = []
        for call in calls:
            self._check(step, call)
            records.extend(call.all_records)
        if len(fetched) + len(records) != total:
            raise Discard("paging.incomplete", f"{tool.name}: {len(fetched) + len(records)} of {total} records")
        return records, start + 1

    async def _sequential(self, step: Step, tool: ToolMeta, first: Call, start: int) -> tuple[list[dict], int]:
        records: list[dict] = []
        size = len(first.all_records)
        round_ = start
        for number in range(2, self.max_pages + 1):
            round_ += 1
            page_args = self._page_args(tool, number)
            args = {**first.arguments, **coerce(tool, page_args)}
            bindings = [b for b in first.bindings if b["source"] != "paging"]
            bindings += [{"param": k, "value": v, "source": "paging"} for k, v in page_args.items()]
            call = await self._call(step, tool, args, bindings, round_, (first.order[0], number), first.branch, number)
            if not call.ok:
                self._check(step, call)
            page = call.all_records
            call.records = page[:MAX_RECORDS]
            records.extend(page)
            if len(page) < size:
                return records, round_
        raise Discard("paging.too_many_pages", f"{tool.name}: more than {self.max_pages} pages")

    # -- choosing parent records

    def _parent_records(self, parent: Step) -> list[dict[str, Any]]:
        return self.records[parent.index][0]

    def _usable(self, parent: Step, children: Sequence[Step]) -> list[int]:
        """Indices of the parent's records that every child's links can bind from."""
        records = self._parent_records(parent)
        usable = []
        reasons = []
        for index, record in enumerate(records):
            try:
                for child in children:
                    self._bind_links(child, record)
            except Discard as discard:
                reasons.append(discard.reason)
                continue
            usable.append(index)
        if not usable:
            links = "; ".join(f"{'+'.join(k.fields)}->{'+'.join(k.params)}" for c in children for k in c.links)
            # A transform that failed on a present value says more than a missing field elsewhere.
            reason = "binding.transform" if "binding.transform" in reasons else "binding.missing_field"
            raise Discard(reason, f"no record of {parent.name} binds {links}")
        return usable

    def _label_field(self, parent: Step, children: Sequence[Step], usable: list[int]) -> str | None:
        """A field that names records uniquely enough to pick from, other than the fields passed on."""
        tool = self.tools[parent.tool]
        avoid = {f for c in children for k in c.links for f in k.fields}
        records = self._parent_records(parent)
        for name in tool.selector_fields(avoid):
            values = [scalar_text(r.get(name)) for r in records]
            counts: dict[str, int] = {}
            for value in values:
                if value is not None:
                    counts[value.strip()] = counts.get(value.strip(), 0) + 1
            if sum(1 for i in usable if values[i] is not None and counts[values[i].strip()] == 1) >= 2:
                return name
        return None

    def _unique_labelled(self, parent: Step, name: str, usable: list[int]) -> list[int]:
        records = self._parent_records(parent)
        values = [(scalar_text(r.get(name)) or "").strip() for r in records]
        counts: dict[str, int] = {}
        for value in values:
            counts[value] = counts.get(value, 0) + 1
        return [i for i in usable if values[i] and counts[values[i]] == 1]

    def _subject(self, parent: Step) -> tuple[dict[str, Any], dict[str, Any]]:
        """The one record of the parent that feeds its SEQ, SEM and COND children (chosen once)."""
        key = (parent.index, "subject")
        if key not in self.subjects:
            children = [c for c in self.plan.children(parent.index) if c.junction not in (DRV, FAN, CMP)]
            usable = self._usable(parent, children)
            records = self._parent_records(parent)
            name = self._label_field(parent, children, usable)
            if name is not None:
                labelled = self._unique_labelled(parent, name, usable)
                index = labelled[self.rng.randrange(min(len(labelled), 20))]
                pick = {
                    "kind": "label",
                    "field": name,
                    "value": scalar_text(records[index][name]).strip(),
                    "record": index,
                }
            else:
                index = usable[0]
                pick = {"kind": "rank", "rank": index + 1, "record": index}
            self.subjects[key] = (records[index], pick)
        return self.subjects[key]

    def _several(self, parent: Step, step: Step) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """n records with distinct bound values for FAN and CMP: named ones when a name field allows."""
        usable = self._usable(parent, [step])
        records = self._parent_records(parent)
        distinct: list[int] = []
        seen = set()
        for index in usable:
            bound = tuple(sorted(self._bind_links(step, records[index])[0].items()))
            if bound not in seen:
                seen.add(bound)
                distinct.append(index)
        if len(distinct) < step.fan:
            raise Discard(
                f"{step.junction.lower()}.too_few_values", f"{len(distinct)} distinct value(s) of {parent.name}"
            )
        name = self._label_field(parent, [step], distinct)
        labelled = self._unique_labelled(parent, name, distinct) if name else []
        if len(labelled) >= step.fan:
            chosen = sorted(self.rng.sample(labelled[:20], step.fan))
            return [
                (
                    records[i],
                    {"kind": "label", "field": name, "value": scalar_text(records[i][name]).strip(), "record": i},
                )
                for i in chosen
            ]
        chosen = distinct[: step.fan]
        return [(records[i], {"kind": "rank", "rank": i + 1, "record": i}) for i in chosen]

    def _reduced(self, parent: Step, step: Step) -> tuple[dict[str, Any], dict[str, Any]]:
        """DRV: the parent's full result set reduced to the record that feeds the step."""
        pick = step.pick
        usable = self._usable(parent, [step])
        records = self._parent_records(parent)
        over = len(records)
        if pick.op in ("max", "min", "latest"):
            read = date_value if pick.op == "latest" else number_value
            scored = [(read(records[i].get(pick.field)), i) for i in usable]
            scored = [(v, i) for v, i in scored if v is not None]
            if not scored:
                raise Discard("reduce.no_values", f"no {pick.field} value among {parent.name} records")
            best = (
                max(scored, key=lambda vi: (vi[0], -vi[1]))
                if pick.op != "min"
                else min(scored, key=lambda vi: (vi[0], vi[1]))
            )
            index = best[1]
            raw = scalar_text(records[index].get(pick.field))
            return records[index], {
                "kind": "reduce",
                "op": pick.op,
                "field": pick.field,
                "value": raw,
                "record": index,
                "over": over,
            }
        values = sorted(
            {scalar_text(records[i].get(pick.field)).strip() for i in usable if scalar_text(records[i].get(pick.field))}
        )
        if not values:
            raise Discard("reduce.no_values", f"no {pick.field} value among {parent.name} records")
        wanted = values[self.rng.randrange(len(values))]
        matches = [i for i in range(over) if (scalar_text(records[i].get(pick.field)) or "").strip() == wanted]
        index = next(i for i in matches if i in usable)
        return records[index], {
            "kind": "reduce",
            "op": "filter",
            "field": pick.field,
            "value": wanted,
            "record": index,
            "over": over,
            "matches": len(matches),
            "rank": matches.index(index) + 1,
        }

    def _branch(self, parent: Step, children: list[Step]) -> list[Step]:
        """COND: test the parent's record and keep the branch the value selects (none when else is missing)."""
        record, pick = self._subject(parent)
        name = children[0].condition
        raw = scalar_text(record.get(name))
        if raw is None:
            raise Discard("condition.no_value", f"{parent.name} record has no {name}")
        number = number_value(raw)
        want_then = self.rng.random() < 0.5
        if number is not None:
            threshold = nice_threshold(number, above=not want_then)
            outcome = "then" if number >= threshold else "else"
            condition = {
                "field": name,
                "op": ">=",
                "value": format_number(threshold),
                "observed": raw.strip(),
                "outcome": outcome,
            }
        else:
            observed = raw.strip()
            others = sorted(
                {(scalar_text(r.get(name)) or "").strip() for r in self._parent_records(parent)} - {observed, ""}
            )
            if not others and observed.upper() in ("Y", "N"):
                others = ["N" if observed.upper() == "Y" else "Y"]
            expected = observed if want_then or not others else others[self.rng.randrange(len(others))]
            outcome = "then" if expected == observed else "else"
            condition = {"field": name, "op": "==", "value": expected, "observed": observed, "outcome": outcome}
        condition["pick"] = pick
        self.steps[parent.index].condition = condition
        return [c for c in children if c.branch == outcome]

    def _compare(self, step: Step, calls: list[Call], merged: list[list[dict]], picks: list[dict]) -> dict[str, Any]:
        values, raws = [], []
        for call, records in zip(calls, merged, strict=True):
            if step.compare == "count":
                raw = call.total_count if call.total_count is not None else call.record_count
                values.append(float(raw))
                raws.append(str(raw))
                continue
            raw = scalar_text(records[0].get(step.compare)) if records else None
            number = number_value(raw)
            if number is None:
                raise Discard("cmp.not_numeric", f"{call.name} {step.compare}={raw!r}")
            values.append(number)
            raws.append(raw.strip())
        winner = None if values[0] == values[1] else (0 if values[0] > values[1] else 1)
        return {"metric": step.compare, "values": raws, "winner": winner, "picks": picks}

    # -- arguments

    def _bind_links(self, step: Step, record: Mapping[str, Any]) -> tuple[dict[str, str], list[dict[str, Any]]]:
        args: dict[str, str] = {}
        bindings = []
        for link in step.links:
            values = [scalar_text(record.get(f)) for f in link.fields]
            if any(v is None for v in values):
                raise Discard(
                    "binding.missing_field", f"{'+'.join(link.fields)} -> {step.name}.{'+'.join(link.params)}"
                )
            try:
                out = transforms.apply(link.transform, values)  # type: ignore[arg-type]
            except transforms.TransformError as exc:
                raise Discard("binding.transform", f"{link.transform}: {exc}") from None
            if not link.accepts(out):
                # A 시군구 row's 동 part 00000 names no 동: the edge holds only for records that name a unit.
                raise Discard("binding.invalid_value", f"{'+'.join(link.params)}={'+'.join(out)}")
            for param, value in zip(link.params, out, strict=True):
                args[param] = value
                bindings.append(
                    {
                        "param": param,
                        "value": value,
                        "source": "edge",
                        "from_step": step.parent,
                        "fields": list(link.fields),
                        "source_values": [str(v) for v in values],
                        "transform": link.transform,
                        "edge_id": link.edge_id,
                    }
                )
        return args, bindings

    def _context(self, step: Step, param: str) -> tuple[str, dict[str, Any]]:
        """A required parameter's value from the nearest earlier step with the same name: its record, then
        its arguments."""
        wanted = normalize(param)
        index: int | None = step.index
        while index is not None and self.plan.steps[index].parent is not None:
            ancestor = self.plan.steps[index].parent
            record = self.fed.get(index, {})
            for name, value in record.items():
                text = scalar_text(value)
                if text is not None and normalize(name) == wanted:
                    return text, {"source": "context", "from_step": ancestor, "field": name}
            for call in self.step_calls.get(ancestor, [])[:1]:
                for name, value in call.arguments.items():
                    if normalize(name) == wanted and not is_control_param(name):
                        origin = next((b for b in call.bindings if b["param"] == name), {})
                        return str(value), {
                            "source": "context",
                            "from_step": ancestor,
                            "param": name,
                            "origin": origin.get("source", ""),
                        }
            index = ancestor
        raise Discard("context.missing", f"{step.name}.{param} has no earlier value")

    def _arguments(self, step: Step, tool: ToolMeta, record: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict]]:
        args, bindings = self._bind_links(step, record) if step.parent is not None else ({}, [])
        for param in step.context:
            value, origin = self._context(step, param)
            args[param] = value
            bindings.append({"param": param, "value": value, **origin})
        for param, value in step.args.items():
            if param not in args:
                args[param] = value
                bindings.append(
                    {"param": param, "value": value, "source": "entry" if step.parent is None else "constant"}
                )
        return args, bindings

    # -- answers and facts

    def answers(self) -> None:
        executed = {s.index for s in self.steps if s.executed}
        for step in self.plan.steps:
            if step.answer is None or step.index not in executed:
                continue
            run = self.steps[step.index]
            tool = self.tools[step.tool]
            calls = self.step_calls[step.index]
            every_page = [c.seq for c in self.calls if c.step == step.index]
            merged = self.records[step.index]
            if step.answer.op == "fields":
                fields = list(step.answer.fields)
                shown = [r for records in merged for r in records[:FIELDS_SHOWN]]
                if not any(scalar_text(r.get(f)) for r in shown for f in fields):
                    fields = fallback_fields(tool, shown[0], avoid=[f for k in step.links for f in k.fields])
                items = []
                for call, records in zip(calls, merged, strict=True):
                    rows = [
                        {f: scalar_text(r.get(f)).strip() for f in fields if scalar_text(r.get(f))}
                        for r in records[:FIELDS_SHOWN]
                    ]
                    total = call.total_count if call.total_count is not None else call.record_count
                    items.append({"call": call.seq, "branch": call.branch, "total": total, "rows": rows})
                run.answer = {"op": "fields", "fields": fields, "items": items}
            elif step.answer.op == "count":
                run.answer = {"op": "count", "value": len(merged[0]), "calls": every_page}
            else:
                name = step.answer.fields[0]
                read = date_value if step.answer.op == "latest" else number_value
                records = merged[0]
                scored = [(read(r.get(name)), i) for i, r in enumerate(records) if read(r.get(name)) is not None]
                if not scored:
                    raise Discard("reduce.no_values", f"no {name} value among {step.name} records")
                if step.answer.op == "min":
                    value, index = min(scored, key=lambda vi: (vi[0], vi[1]))
                else:
                    value, index = max(scored, key=lambda vi: (vi[0], -vi[1]))
                record = records[index]
                label = next((f for f in tool.selector_fields() if scalar_text(record.get(f))), None)
                run.answer = {
                    "op": step.answer.op,
                    "field": name,
                    "value": scalar_text(record.get(name)).strip(),
                    "label_field": label,
                    "label": scalar_text(record.get(label)).strip() if label else None,
                    "over": len(records),
                    "calls": every_page,
                }

    def facts(self) -> dict[str, Any]:
        """What the request and answer may, must and must not say: entry values and selectors (named),
        values passed between calls (never named), answer values (observed in results, or derived)."""
        entry, selectors, intermediate, answer = [], [], [], []
        for call in self.calls:
            if call.page not in (None, 1):
                continue
            for b in call.bindings:
                if b["source"] in ("entry", "constant") and not is_control_param(b["param"]):
                    entry.append({"step": call.step, "param": b["param"], "value": str(b["value"])})
                elif b["source"] == "edge":
                    intermediate.extend(str(v) for v in b["source_values"])
                    intermediate.append(str(b["value"]))
                elif b["source"] == "context" and b.get("origin") in (None, "", "edge", "context"):
                    intermediate.append(str(b["value"]))
        for run in self.steps:
            for pick in run.picks:
                if pick["kind"] in ("label", "reduce") and pick.get("op") not in ("max", "min", "latest"):
                    selectors.append(
                        {"step": run.index, "kind": pick["kind"], "field": pick["field"], "value": pick["value"]}
                    )
            if run.condition:
                pick = run.condition["pick"]
                if pick["kind"] == "label":
                    selectors.append(
                        {"step": run.index, "kind": "label", "field": pick["field"], "value": pick["value"]}
                    )
                selectors.append(
                    {
                        "step": run.index,
                        "kind": "condition",
                        "field": run.condition["field"],
                        "value": run.condition["value"],
                    }
                )
                answer.append(
                    {
                        "value": run.condition["observed"],
                        "kind": "observed",
                        "step": run.index,
                        "field": run.condition["field"],
                    }
                )
            if run.comparison:
                for value in run.comparison["values"]:
                    check = {"op": "count"} if run.comparison["metric"] == "count" else {}
                    answer.append(
                        {
                            "value": value,
                            "kind": "observed",
                            "step": run.index,
                            "field": run.comparison["metric"],
                            **check,
                        }
                    )
            if run.answer:
                answer.extend(self._answer_values(run))
        named = {normalize_value(e["value"]) for e in entry} | {normalize_value(s["value"]) for s in selectors}
        seen: list[str] = []
        for value in intermediate:
            if normalize_value(value) not in named and value not in seen:
                seen.append(value)
        return {
            "entry": _unique(entry),
            "selectors": _unique(selectors),
            "intermediate": seen,
            "answer": _unique(answer),
        }

    def _answer_values(self, run: StepRun) -> list[dict[str, Any]]:
        facts = run.answer
        values = []
        if facts["op"] == "fields":
            for item in facts["items"]:
                values.append(
                    {"value": str(item["total"]), "kind": "observed", "step": run.index, "field": "total_count"}
                )
                for row in item["rows"]:
                    values.extend(
                        {"value": v, "kind": "observed", "step": run.index, "field": f} for f, v in row.items()
                    )
        elif facts["op"] == "count":
            values.append(
                {
                    "value": str(facts["value"]),
                    "kind": "derived",
                    "step": run.index,
                    "op": "count",
                    "calls": facts["calls"],
                }
            )
        else:
            values.append(
                {
                    "value": facts["value"],
                    "kind": "derived",
                    "step": run.index,
                    "op": facts["op"],
                    "field": facts["field"],
                    "calls": facts["calls"],
                }
            )
            if facts["label"]:
                values.append(
                    {"value": facts["label"], "kind": "observed", "step": run.index, "field": facts["label_field"]}
                )
        return values


async def _all(*coroutines: Awaitable[Any]) -> list[Any]:
    """Await every coroutine (none is left running in the background), then raise the first failure."""
    results = await asyncio.gather(*coroutines, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return list(results)


def normalize_value(value: Any) -> str:
    return " ".join(str(value).split()).lower()


def _unique(rows: list[dict]) -> list[dict]:
    found = []
    for row in rows:
        if row not in found:
            found.append(row)
    return found


async def execute_plan(
    plan: Plan,
    tools: Mapping[Any, ToolMeta],
    execute: Execute,
    *,
    seed: object = 0,
    page_size: int = PAGE_SIZE,
    max_pages: int = MAX_PAGES,
) -> Execution:
    """Run the plan's calls through `execute`; a failure discards it (Execution.ok False, with a reason)."""
    run = _Run(plan, tools, execute, rng_for("execute", seed, plan.template_id), page_size, max_pages)
    execution = Execution(plan)
    try:
        await run.run()
        run.calls.sort(key=lambda c: (c.round, c.step, c.order))
        for seq, call in enumerate(run.calls, 1):
            call.seq = seq
        run.answers()
        execution.facts = run.facts()
        execution.ok = True
    except Discard as discard:
        execution.reason, execution.detail = discard.reason, discard.detail
        run.calls.sort(key=lambda c: (c.round, c.step, c.order))
        for seq, call in enumerate(run.calls, 1):
            call.seq = seq
    execution.calls = run.calls
    execution.steps = run.steps
    return execution
