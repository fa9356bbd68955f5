"""Need-first synthesis: a user need chosen first, then realised over verified edges, every call on purpose.

A `Need` names its domain, its junction type, the verified edges it travels (`Bind`: source tool and field(s)
-> target tool and parameter(s), through a transform, exactly as the graph snapshot holds them) and a program:
an async function that makes the calls the need requires through a `Ctx` and returns what the request and the
answer say. A need whose edges are not all verified in the snapshot is not available; nothing else is walked.

The Ctx records what the rest of the pipeline reads (graphs.engine.walk.Plan and the Execution of
datasets.engine.synthesis): one step per call group with its links and their edge ids, every call with its
arguments, bindings (where each value came from: the user, a constant of the need, an edge from an earlier
step, a stated transform) and observation, picks with their stated criterion, conditions with where their
threshold comes from, and the facts the filters check (values the request names, values passed between
calls, answer values, requested values, lists and how much of each the answer shows).

This module never imports Django; the caller injects `execute(tool, args)` (async), as for walks.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from datasets.engine.synthesis import Call, Discard, Execution, StepRun, _all, coerce, scalar_text
from graphs.engine import transforms
from graphs.engine.walk import Answer, Link, Plan, Step, ToolMeta

Execute = Callable[[ToolMeta, dict[str, Any]], Awaitable[Any]]
MAX_PAGES = 10
LIST_ALL = 10  # lists this long or shorter are given whole; longer ones as the top k with the total
TOP_K = 5


class Unavailable(Exception):
    """The need cannot run over this snapshot: an edge it travels is not verified, or a tool is missing."""


@dataclass(frozen=True)
class Bind:
    source: str
    fields: tuple[str, ...]
    target: str
    params: tuple[str, ...]
    transform: str = "identity"

    @classmethod
    def of(cls, source: str, fields: str, target: str, params: str, transform: str = "identity") -> Bind:
        return cls(source, tuple(fields.split(",")), target, tuple(params.split(",")), transform)

    @property
    def key(self) -> tuple:
        return (self.source, self.fields, self.target, self.params, self.transform)


@dataclass
class Outcome:
    """What the program found: slot values for the request, the answer text and a short answer."""

    slots: dict[str, Any]
    answer: str
    short: str = ""
    variant: str = ""  # which request family of the need fits (e.g. "open_now" / "by_hour")


@dataclass(frozen=True)
class Need:
    id: str
    domain: str
    junction: str
    binds: tuple[Bind, ...]
    program: Callable[[Ctx], Awaitable[Outcome]]
    tools: tuple[str, ...] = ()  # tools called without an edge into them (entry tools)
    weight: float = 1.0
    length: int = 1  # steps of a full run

    @property
    def tool_names(self) -> set[str]:
        return set(self.tools) | {b.source for b in self.binds} | {b.target for b in self.binds}


class Verified:
    """The snapshot's verified bindings by (source, fields, target, params, transform), and tools by name."""

    def __init__(self, graph, tools: Mapping[Any, ToolMeta], entry_tools: Mapping[Any, ToolMeta] | None = None):
        """entry_tools: catalog tools outside the graph that a need may call first (no edge leads into them)."""
        self.tools = {meta.name: meta for node, meta in tools.items() if node in graph}
        self.entry_only = {meta.name for meta in (entry_tools or {}).values()} - set(self.tools)
        for meta in (entry_tools or {}).values():
            self.tools.setdefault(meta.name, meta)
        self.edges: dict[tuple, tuple[int | None, float]] = {}
        self.invalid: dict[tuple, tuple[str, ...]] = {}  # per binding, values it never binds (a 동 part 00000)
        self.companions: dict[tuple, tuple[str, ...]] = {}  # per binding, B's parameters bound beside it (본번's 동)
        for a, b, data in graph.edges(data=True):
            if a not in tools or b not in tools:
                continue
            for binding in data.get("bindings") or ():
                if binding.get("status", "verified") != "verified":
                    continue
                fields = tuple(f.strip() for f in str(binding.get("field", "")).split(",") if f.strip())
                params = tuple(p.strip() for p in str(binding.get("param", "")).split(",") if p.strip())
                key = (tools[a].name, fields, tools[b].name, params, binding.get("transform") or "identity")
                self.edges[key] = (binding.get("edge_id"), float(binding.get("mean") or 0.0))
                self.invalid[key] = tuple(binding.get("invalid") or ())
                self.companions[key] = tuple(binding.get("companions") or ())

    def available(self, need: Need) -> bool:
        targets = {b.target for b in need.binds} | {b.source for b in need.binds}
        return (
            all(name in self.tools for name in need.tool_names)
            and not (targets & self.entry_only)
            and all(b.key in self.edges for b in need.binds)
        )

    def link(self, bind: Bind) -> Link:
        if bind.key not in self.edges:
            raise Unavailable(f"{bind.source}.{'+'.join(bind.fields)} -> {bind.target}.{'+'.join(bind.params)}")
        edge_id, mean = self.edges[bind.key]
        return Link(
            bind.fields,
            bind.params,
            bind.transform,
            edge_id,
            mean,
            self.invalid.get(bind.key, ()),
            self.companions.get(bind.key, ()),
        )


@dataclass
class Result:
    """One step's outcome: its index, its calls, and every record (all pages merged)."""

    step: int
    calls: list[Call]
    records: list[dict[str, Any]]

    @property
    def total(self) -> int:
        first = self.calls[0]
        return first.total_count if first.total_count is not None else len(self.records)

    @property
    def seqs(self) -> list[Call]:
        return self.calls


class Ctx:
    def __init__(
        self,
        need: Need,
        verified: Verified,
        execute: Execute,
        rng: random.Random,
        clock: str,
        usage: Counter | None = None,
        memo: dict | None = None,
    ):
        self.need = need
        # The run's answers to reference lookups (Ctx.call with reuse=True, scouts): one request per arguments a run.
        self.memo = memo
        self.usage = usage if usage is not None else Counter()  # the run's entry values so far, shared by its needs
        self.verified = verified
        self.execute = execute
        self.rng = rng
        self.clock = clock  # ISO time the need is asked at (the sandbox's clock, or now)
        self.steps: list[Step] = []
        self.runs: list[StepRun] = []
        self.calls: list[Call] = []
        self.rounds: dict[int, int] = {}
        self.named: list[list[str]] = []  # per value the request must name, the ways it may be written
        self.entry: list[dict[str, Any]] = []
        self.selectors: list[dict[str, Any]] = []
        self.answer_facts: list[dict[str, Any]] = []
        self.requested: list[dict[str, Any]] = []  # values the request asks for: {label, value(s)}
        self.lists: list[dict[str, Any]] = []  # {step, total, shown, criterion}
        self.fed: set[int] = set()  # steps whose values a later call used
        # Per step, the records (step, id) its call was fed from: a companion may come from the bound value's own
        # record or from the record that record's call was asked with (a trade's district, for its 본번).
        self.origins: dict[int, set[tuple[int, int]]] = {}

    # -- choosing

    def choice(self, options: Sequence[Any]) -> Any:
        if not options:
            raise Discard("need.no_choice", "nothing to choose from")
        return options[self.rng.randrange(len(options))]

    def spread(self, kind: str, options: Sequence[Any]) -> Any:
        """An entry value (a district, a stop word, a site) the run spreads over a need's items: the one of `options`
        the need used least so far in the run (ties: the seed), so that no district or stop gathers its items."""
        if not options:
            raise Discard("need.no_choice", "nothing to choose from")
        keys = [f"{self.need.id}:{kind}:{option}" for option in options]
        least = min(self.usage[k] for k in keys)
        chosen = self.choice([o for o, k in zip(options, keys, strict=True) if self.usage[k] == least])
        self.usage[f"{self.need.id}:{kind}:{chosen}"] += 1
        return chosen

    def name(self, value: Any, *renderings: str, kind: str = "entry") -> str:
        """A value the user knows and the request names (renderings: other ways it may be written)."""
        text = str(value).strip()
        self.named.append([text, *[r for r in renderings if r and r != text]])
        self.entry.append({"value": text, "kind": kind})
        return text

    # -- calling

    async def scout(self, tool: str, args: Mapping[str, Any]) -> list[dict[str, Any]]:
        """What exists in the world, read to choose what the user knows (a hospital's or a housing complex's name):
        not a step of the trajectory, never recorded, and nothing it returns reaches a call but through the
        request's own words."""
        meta = self.verified.tools.get(tool)
        if meta is None:
            raise Unavailable(f"tool {tool} is not in the snapshot")
        try:
            result = await self._executed(meta, dict(coerce(meta, dict(args))), reuse=True)
        except Exception as exc:
            raise Discard("executor.refused", f"{tool} (scout): {exc}") from None
        return list(Call(0, 0, meta.name, dict(args), [], (0, 1), "", None).take(result).all_records)

    async def call(
        self,
        tool: str,
        args: Mapping[str, Any] | None = None,
        *,
        feed: Sequence[tuple[Bind, Result, Mapping[str, Any]]] = (),
        derived: Sequence[tuple[str, Any, str, Result | None]] = (),
        junction: str = "",
        all_pages: bool = False,
        page_size: int = 100,
        stop: Callable[[list[dict[str, Any]]], bool] | None = None,
        answer: Sequence[str] = (),
        allow_empty: bool = False,
        reuse: bool = False,
    ) -> Result:
        """One step: `args` are values the user gave or constants the need fixes; `feed` binds fields of a
        chosen record of an earlier step through a verified edge; `derived` are (param, value, how, from step)
        for values an explicit, reproducible rule gives (a date from the clock, a holiday's weekday code). reuse: the
        step reads reference data that does not change within a run (a district's codes, a month's trades, a year's
        holidays, a district's places): a page asked before in the run with the same arguments is answered by that
        earlier call's observation (and its ApiCall) instead of a second request."""
        meta = self.verified.tools.get(tool)
        if meta is None:
            raise Unavailable(f"tool {tool} is not in the snapshot")
        arguments: dict[str, Any] = {}
        bindings: list[dict[str, Any]] = []
        links = []
        parents = []
        origin_of: dict[str, tuple[int, int]] = {}  # parameter -> the record it was bound from
        checks: list[tuple[Bind, Link, tuple[int, int]]] = []
        for bind, source, record in feed:
            if bind.target != tool:
                raise ValueError(f"bind into {bind.target} used for {tool}")
            link = self.verified.link(bind)
            links.append(link)
            values = [scalar_text(record.get(f)) for f in bind.fields]
            if any(v is None for v in values):
                raise Discard("binding.missing_field", f"{bind.source}.{'+'.join(bind.fields)} is empty")
            try:
                out = transforms.apply(bind.transform, [str(v).strip() for v in values])  # type: ignore[arg-type]
            except transforms.TransformError as exc:
                raise Discard("binding.transform", f"{bind.transform}: {exc}") from None
            if not link.accepts(out):
                raise Discard("binding.invalid_value", f"{bind.target}.{'+'.join(bind.params)}={'+'.join(out)}")
            origin = (source.step, id(record))
            checks.append((bind, link, origin))
            for param, value in zip(bind.params, out, strict=True):
                arguments[param] = value
                origin_of[param] = origin
                bindings.append(
                    {
                        "param": param,
                        "value": value,
                        "source": "edge",
                        "from_step": source.step,
                        "fields": list(bind.fields),
                        "source_values": [str(v) for v in values],
                        "transform": bind.transform,
                        "edge_id": link.edge_id,
                    }
                )
            self.fed.add(source.step)
            parents.append(source.step)
        for param, value, how, source in derived:
            arguments[param] = value
            bindings.append(
                {
                    "param": param,
                    "value": value,
                    "source": "derived",
                    "rule": how,
                    "from_step": source.step if source else None,
                }
            )
            if source is not None:
                self.fed.add(source.step)
                parents.append(source.step)
        for param, value in (args or {}).items():
            if param in arguments:
                continue
            arguments[param] = value
            bindings.append({"param": param, "value": value, "source": "entry" if not feed else "constant"})
        for param, value in list(arguments.items()):  # one value bound into an array parameter: a one-item array
            if (meta.properties.get(param) or {}).get("type") == "array" and not isinstance(value, list):
                arguments[param] = [value]
        for bind, link, origin in checks:
            # A 본번 names a lot only inside its 시군구 and 동: those go beside it, read from its record (or from the
            # record its call was asked with), never from another record or a constant.
            allowed = {origin} | self.origins.get(origin[0], set())
            stray = [c for c in link.companions if origin_of.get(c) not in allowed]
            if stray:
                raise ValueError(
                    f"{bind.source}.{'+'.join(bind.fields)} -> {tool}.{'+'.join(bind.params)} needs "
                    f"{', '.join(stray)} bound from the same record"
                )
        parent = max(parents) if parents else None
        index = len(self.steps)
        self.origins[index] = set(origin_of.values())
        round_ = 0 if parent is None else self.rounds[parent] + 1
        self.steps.append(
            Step(
                index=index,
                tool=meta.id,
                name=meta.name,
                parent=parent,
                junction=junction or ("" if parent is None else "SEQ"),
                links=tuple(links),
                args={k: str(v) for k, v in (args or {}).items() if not isinstance(v, list | dict)},
                answer=Answer("fields", tuple(answer)) if answer else None,
            )
        )
        run = StepRun(index, executed=True)
        self.runs.append(run)
        paging = _paging(meta, page_size) if all_pages else {}
        one = functools.partial(self._one, reuse=reuse)
        first = await one(index, round_, meta, {**arguments, **paging(1)} if paging else arguments, bindings, 1)
        calls = [first]
        records = list(first.all_records)
        if not first.ok:
            raise Discard(f"call.{first.error_class or 'failed'}", f"{tool}: {first.result_msg or ''}")
        if paging and first.total_count and first.total_count > len(records):
            pages = -(-first.total_count // max(1, len(records)))
            if pages > MAX_PAGES:
                raise Discard("need.too_many_pages", f"{tool}: {first.total_count} records")
            if stop is None:  # every page is read: the rest in parallel, once the first gave the total
                more_pages = await _all(
                    *(
                        one(index, round_ + 1, meta, {**arguments, **paging(number)}, bindings, number)
                        for number in range(2, pages + 1)
                    )
                )
                round_ += 1
            else:  # pages in order, until the need has what it reads (later pages hold nothing it asks for)
                more_pages = []
                for number in range(2, pages + 1):
                    if stop(records + [r for page in more_pages for r in page.all_records]):
                        break
                    round_ += 1
                    more_pages.append(await one(index, round_, meta, {**arguments, **paging(number)}, bindings, number))
            for number, more in enumerate(more_pages, 2):
                if not more.ok:
                    raise Discard(f"call.{more.error_class or 'failed'}", f"{tool} page {number}")
                calls.append(more)
                records.extend(more.all_records)
        self.rounds[index] = round_
        if not records and not allow_empty:
            raise Discard("call.no_records", f"{tool} {arguments}")
        return Result(index, calls, records)

    async def _one(self, step, round_, meta, arguments, bindings, page, *, reuse: bool = False) -> Call:
        args = coerce(meta, arguments)
        call = Call(step, round_, meta.name, args, list(bindings), (0, page), "", page if page > 1 else None)
        self.calls.append(call)
        try:
            result = await self._executed(meta, dict(args), reuse=reuse)
        except Exception as exc:
            raise Discard("executor.refused", f"{meta.name}: {exc}") from None
        return call.take(result)

    async def _executed(self, meta, args: dict[str, Any], *, reuse: bool) -> Any:
        """The executor's answer; for reference data (reuse) the run's earlier answer to the same arguments, when the
        run has a memo and that answer was ok."""
        if not reuse or self.memo is None:
            return await self.execute(meta, args)
        key = (meta.name, tuple(sorted((k, str(v)) for k, v in args.items())))
        if key in self.memo:
            return self.memo[key]
        result = await self.execute(meta, args)
        if getattr(result, "ok", False):
            self.memo[key] = result
        return result

    # -- what was chosen, tested and answered

    def pick(
        self,
        result: Result,
        record: Mapping[str, Any],
        *,
        criterion: str,
        field: str,
        value: Any = None,
        among: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        """A record chosen for a stated reason: named (the user named it), nearest, max/min/latest, match.

        A named pick is unambiguous or it is not made: when another record of `among` (the records left once what
        the request states narrowed them; by default every record of the step) has the same name, nothing tells
        which one the user means, and the item is discarded rather than the first one taken by position."""
        shown = record.get(field) if value is None else value
        if criterion == "named":
            own = str(record.get(field, "")).strip()
            same = [r for r in (result.records if among is None else among) if str(r.get(field, "")).strip() == own]
            if len(same) > 1:
                raise Discard("need.ambiguous", f"{len(same)} records named {own!r} ({field})")
        pick = {
            "kind": criterion,
            "criterion": criterion,
            "field": field,
            "value": str(shown),
            "over": len(result.records),
        }
        categories = {str(r.get("category")) for r in result.records if "category" in r}
        if criterion in ("max", "min") and categories:
            pick["categories"] = sorted(categories)  # a ranking over several forecast categories mixes units
        self.runs[result.step].picks.append(pick)
        if criterion == "named":
            self.selectors.append({"step": result.step, "kind": "label", "field": field, "value": str(shown)})

    def condition(
        self, result: Result, *, field: str, op: str, value: Any, source: str, kept: int, of: int, outcome: str = ""
    ) -> None:
        """A test whose threshold comes from the domain (a grade table, POP >= 60) or from the user."""
        self.runs[result.step].condition = {
            "field": field,
            "op": op,
            "value": str(value),
            "source": source,
            "kept": kept,
            "of": of,
            "outcome": outcome,
        }

    def compare(self, result: Result, *, metric: str, values: Sequence[Any], winner: int | None) -> None:
        self.runs[result.step].comparison = {"metric": metric, "values": [str(v) for v in values], "winner": winner}

    def answer(self, result: Result, field: str, value: Any, *, decoded: str = "", shown: str = "") -> Any:
        """An answer value read from a record of the step (decoded: the label the answer shows for a code;
        shown: how the answer writes it, e.g. 0930 as 9:30)."""
        text = str(value).strip()
        fact = {"value": text, "kind": "observed", "step": result.step, "field": field}
        if decoded:
            fact["decoded"] = decoded
        if shown:
            fact["shown"] = shown
        self.answer_facts.append(fact)
        return value

    def derived(self, result: Result, op: str, field: str, value: Any) -> Any:
        """A value computed from every record of the step (count, max, min, latest), which the filter recomputes."""
        self.answer_facts.append(
            {
                "value": str(value).strip(),
                "kind": "derived",
                "step": result.step,
                "op": op,
                "field": field,
                "calls": [c.seq for c in result.calls],
            }
        )
        return value

    def asked(self, label: str, *values: Any) -> None:
        """A value the request asks for; the answer must state one of the given renderings."""
        self.requested.append({"label": label, "values": [str(v) for v in values if str(v).strip()]})

    def listed(self, result: Result, *, total: int, shown: int, criterion: str) -> None:
        self.lists.append({"step": result.step, "total": total, "shown": shown, "criterion": criterion})

    def show(self, rows: Sequence[Any], *, result: Result, criterion: str, k: int = TOP_K) -> tuple[list[Any], int]:
        """Rows an answer lists: all when LIST_ALL or fewer, else the first k (already ordered by the criterion)."""
        total = len(rows)
        shown = list(rows) if total <= LIST_ALL else list(rows[:k])
        self.listed(result, total=total, shown=len(shown), criterion=criterion)
        return shown, total

    # -- the pieces the pipeline stores

    def plan(self) -> Plan:
        return Plan(tuple(self.steps), strategy="need", seed=self.need.id)

    def execution(self) -> Execution:
        intermediate: list[str] = []
        named = {v.lower() for options in self.named for v in options}
        for call in self.calls:
            for b in call.bindings:
                if b["source"] in ("edge", "derived"):
                    values = [*b.get("source_values", []), b["value"]]
                    for v in values:
                        text = str(v)
                        if text.lower() not in named and text not in intermediate:
                            intermediate.append(text)
        execution = Execution(self.plan(), ok=True, calls=self.calls, steps=self.runs)
        execution.facts = {
            "need": self.need.id,
            "domain": self.need.domain,
            "entry": self.entry,
            "selectors": self.selectors,
            "intermediate": intermediate,
            "answer": self.answer_facts,
            "named": self.named,
            "requested": self.requested,
            "lists": self.lists,
            "fed": sorted(self.fed),
            "picks": [{"step": run.index, **pick} for run in self.runs for pick in run.picks],
            "conditions": [{"step": run.index, **run.condition} for run in self.runs if run.condition],
            "comparisons": [{"step": run.index, **run.comparison} for run in self.runs if run.comparison],
        }
        return execution


def _paging(meta: ToolMeta, size: int):
    paging = meta.paging
    if paging is None:
        return None
    style, first, second = paging
    maximum = (meta.properties.get(second) or {}).get("maximum")
    if isinstance(maximum, int | float) and maximum > 0:
        size = min(size, int(maximum))

    def page(number: int) -> dict[str, str]:
        if style == "index":
            return {first: str((number - 1) * size + 1), second: str(number * size)}
        return {first: str(number), second: str(size)}

    return page


@dataclass
class Realised:
    need: Need
    plan: Plan
    execution: Execution
    outcome: Outcome | None = None
    register: str = ""
    request: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


async def realise(
    need: Need,
    verified: Verified,
    execute: Execute,
    *,
    seed: str,
    clock: str,
    usage: Counter | None = None,
    memo: dict | None = None,
) -> Realised:
    """Run the need's program; a failure leaves an Execution with ok False and the reason. `usage`: the run's entry
    values so far (Ctx.spread), shared by every need of the run; `memo`: the run's answers to reference lookups."""
    rng = random.Random(f"need:{need.id}:{seed}")
    ctx = Ctx(need, verified, execute, rng, clock, usage, memo)
    outcome = None
    try:
        outcome = await need.program(ctx)
        execution = ctx.execution()
    except Discard as discard:
        execution = ctx.execution()
        execution.ok = False
        execution.reason, execution.detail = discard.reason, discard.detail
    for seq, call in enumerate(sorted(ctx.calls, key=lambda c: (c.round, c.step, c.order)), 1):
        call.seq = seq
    if execution.ok:  # derived facts name their calls by seq, known only now
        for fact in execution.facts["answer"]:
            if fact["kind"] == "derived":
                fact["calls"] = [c.seq for c in ctx.calls if c.step == fact["step"]]
    execution.calls = sorted(ctx.calls, key=lambda c: c.seq)
    return Realised(need, ctx.plan(), execution, outcome, extra={"rng": rng})
