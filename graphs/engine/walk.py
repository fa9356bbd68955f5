"""Typed walks over the verified graph: plans of tool calls joined by SEQ, FAN, DRV, SEM, CMP and COND junctions.

A plan names the tools, the verified bindings that link them and how each junction feeds the next call; it holds
no observed value (synthesis.py executes it and takes the values from what comes back). Junctions:

- SEQ: one record of the parent feeds one call;            - FAN: a few records feed separate calls;
- DRV: the parent's whole result set (every page) is reduced (max, min, latest, filter) to the record that feeds
  the call; a leaf may also reduce its own full result set for the answer (count, max, min, latest);
- SEM: one record feeds two tools that share the argument, run in parallel;
- CMP: two records feed two parallel calls whose results are compared;
- COND: a value of the parent's record decides which of two tools runs.

FAN, CMP and COND end a walk; SEQ, DRV and SEM continue it. Strategies: random walks with restarts, and
coverage-driven walks that take the least-used length, junction, edge and tool first. Walks are seeded: the same
graph, tools, configuration and seed give the same plans, in any process.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import networkx as nx

from graphs.engine import domains, transforms
from graphs.engine.names import is_control_param, normalize
from graphs.engine.sampling import rng_for

SEQ, FAN, DRV, SEM, CMP, COND = "SEQ", "FAN", "DRV", "SEM", "CMP", "COND"
JUNCTIONS = (SEQ, FAN, DRV, SEM, CMP, COND)
TERMINAL = frozenset({FAN, CMP, COND})
STRATEGIES = ("random", "coverage")
PICK_OPS = ("max", "min", "latest", "filter")  # DRV between calls: the full result set to one record
ANSWER_OPS = ("fields", "count", "max", "min", "latest")  # what a leaf reports; the last four read every page
REDUCING_ANSWERS = frozenset({"count", "max", "min", "latest"})
MAX_LENGTH = 12

# Page-number parameter pairs (page, size) and Seoul's 1-based inclusive index range.
PAGE_STYLES = (("pageNo", "numOfRows"), ("page", "perPage"), ("currentPage", "countPerPage"))
INDEX_STYLE = ("START_INDEX", "END_INDEX")


class WalkError(ValueError):
    """The graph or the configuration cannot give any plan (no tool to start from, a bad parameter)."""


# --- Tools as the walker sees them -------------------------------------------------------------------------

_DATE_VALUE = re.compile(r"^\d{4}(-?\d{2}(-?\d{2}([ T]?\d{2}(:?\d{2}(:?\d{2})?)?)?)?)$")
_NUMBER_VALUE = re.compile(r"^-?[\d,]*\.?\d+$")
_CODE_NAME = re.compile(r"(cd|code|id|no|seq|sn|key|ymd)$", re.I)
_LABEL_NAME = re.compile(r"(nm|name|title)$", re.I)
_CATEGORY_NAME = re.compile(r"(tp|gbn|se|type|secd|kind|grade)$", re.I)
_COORD_NAME = re.compile(
    r"^(x|y|lat|lon|lng|gpsx|gpsy|gpslati|gpslong|mapx|mapy|tmx|tmy|posx|posy|xpos|ypos|entx|enty|dmx|dmy|tm)$", re.I
)
_PARENS = re.compile(r"\s*\([^)]*\)")


def plain_description(text: str) -> str:
    """A description without its parenthesised notes: '계약년월 (YYYYMM)' -> '계약년월'."""
    return _PARENS.sub("", str(text or "")).strip()


def number_value(value: Any) -> float | None:
    """A record value as a number ('144,240' -> 144240.0), or None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    text = str(value).strip()
    if not text or not _NUMBER_VALUE.match(text):
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def date_value(value: Any) -> str | None:
    """A record value as a sortable date text ('2026-11-18 14:00' -> '202611181400'), or None."""
    text = str(value or "").strip()
    if not _DATE_VALUE.match(text):
        return None
    return re.sub(r"[^0-9]", "", text)


def field_kind(path: str, type_: str = "", description: str = "", example: Any = None) -> str:
    """What a record field holds, for choosing reductions, conditions, selectors and answers:
    flag, date, code, coord, number, label, category or text."""
    name = path.rsplit(".", 1)[-1]
    desc = plain_description(description)
    example_text = "" if example is None else str(example).strip()
    if "여부" in desc or name.lower().endswith("yn"):
        return "flag"
    if any(word in desc for word in ("좌표", "위도", "경도")) or _COORD_NAME.match(name):
        return "coord"
    if any(word in desc for word in ("일자", "일시", "날짜", "년월", "시각", "등록일", "작성일")) and (
        not example_text or _DATE_VALUE.match(example_text)
    ):
        return "date"
    if _CODE_NAME.search(name) or any(word in desc for word in ("코드", "번호", "ID", "아이디", "식별")):
        return "code"
    if type_ in ("number", "integer") or (example_text and number_value(example_text) is not None):
        return "number"
    if _LABEL_NAME.search(name) or desc.endswith(("명", "명칭", "이름", "제목")):
        return "label"
    if _CATEGORY_NAME.search(name) or any(word in desc for word in ("구분", "종류", "유형", "분류", "등급")):
        return "category"
    return "text"


@dataclass(frozen=True)
class FieldMeta:
    path: str
    type: str = ""
    description: str = ""
    example: Any = None

    @property
    def kind(self) -> str:
        return field_kind(self.path, self.type, self.description, self.example)

    @property
    def label(self) -> str:
        return plain_description(self.description) or self.path


@dataclass(frozen=True)
class ToolMeta:
    """One tool: its JSON Schema, record fields, inputs known to work as a walk's start, and phrasing hints."""

    id: Any
    name: str
    label: str = ""
    provider: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)
    fields: tuple[FieldMeta, ...] = ()
    entries: tuple[Mapping[str, str], ...] = ()
    answer_fields: tuple[str, ...] = ()  # preferred fields to report
    label_fields: tuple[str, ...] = ()  # preferred fields that name a record (a selector)
    measure_fields: tuple[str, ...] = ()  # numeric fields worth ranking; empty: every number
    compare_fields: tuple[str, ...] = ()  # numeric fields whose first record compares two results (else: counts)

    @property
    def properties(self) -> Mapping[str, Any]:
        return self.parameters.get("properties") or {}

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(self.parameters.get("required") or ())

    def field(self, path: str) -> FieldMeta | None:
        for meta in self.fields:
            if meta.path == path:
                return meta
        return None

    def fields_of(self, *kinds: str) -> list[FieldMeta]:
        return [meta for meta in self.fields if meta.kind in kinds]

    def example(self, param: str) -> str | None:
        prop = self.properties.get(param) or {}
        for key in ("example", "default"):
            if prop.get(key) not in (None, ""):
                return str(prop[key])
        enum = prop.get("enum") or ()
        return str(enum[0]) if enum else None

    @property
    def paging(self) -> tuple[str, str, str] | None:
        """(style, page parameter, size parameter) when the tool pages by number or by index range."""
        props = self.properties
        for page, size in PAGE_STYLES:
            if page in props and size in props:
                return "page", page, size
        if all(name in props for name in INDEX_STYLE):
            return "index", *INDEX_STYLE
        return None

    def measures(self) -> list[FieldMeta]:
        hinted = [m for m in (self.field(f) for f in self.measure_fields) if m is not None]
        return hinted or self.fields_of("number")

    def selector_fields(self, avoid: Iterable[str] = ()) -> list[str]:
        """Fields that name a record (hinted first), except the ones given."""
        avoid = set(avoid)
        names = [f for f in self.label_fields if self.field(f) and f not in avoid]
        names += [m.path for m in self.fields_of("label") if m.path not in avoid and m.path not in names]
        return names


# --- Plans ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Link:
    """A verified binding: source field(s) of the parent's record -> target parameter(s), through a transform."""

    fields: tuple[str, ...]
    params: tuple[str, ...]
    transform: str = "identity"
    edge_id: int | None = None
    mean: float = 0.0
    # Per bound parameter, a pattern of values that name nothing of its kind (a 시군구 row's 동 part 00000): a
    # record whose value matches is never bound from (the edge was verified only on records that name a unit).
    invalid: tuple[str, ...] = ()
    # Other parameters of the target that must be bound from the same record (cat1 beside cat2).
    companions: tuple[str, ...] = ()

    def accepts(self, values: Sequence[str]) -> bool:
        """False when a value read through the link names nothing of the parameter's kind."""
        return not any(
            pattern and re.fullmatch(pattern, str(value).strip())
            for pattern, value in zip(self.invalid, values, strict=False)
        )


@dataclass(frozen=True)
class Reduction:
    op: str  # max | min | latest | filter (between calls); count | max | min | latest (a leaf's answer)
    field: str = ""


@dataclass(frozen=True)
class Answer:
    op: str = "fields"  # fields, or a reduction of the leaf's full result set
    fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    index: int
    tool: Any  # graph node id
    name: str
    parent: int | None = None
    junction: str = ""  # "" for the entry step
    links: tuple[Link, ...] = ()
    args: Mapping[str, str] = field(default_factory=dict)  # entry inputs, or constants of required parameters
    context: tuple[str, ...] = ()  # required parameters taken from earlier steps (same name) when executed
    pick: Reduction | None = None  # DRV: how the parent's full result set becomes one record
    fan: int = 1  # calls made with distinct parent records (FAN: 2-3, CMP: 2)
    compare: str = ""  # CMP: the numeric field compared, or "count"
    condition: str = ""  # COND: the parent field tested
    branch: str = ""  # COND: "then" or "else"
    answer: Answer | None = None  # leaves: what the answer reports


def _canonical(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]
    strategy: str = "random"
    seed: str = ""

    @property
    def junctions(self) -> list[str]:
        """Junction types in step order; a leaf that reduces its full result set adds a DRV."""
        found = [s.junction for s in self.steps if s.junction and s.branch != "else"]
        if any(s.answer and s.answer.op in REDUCING_ANSWERS for s in self.steps):
            found.append(DRV)
        return found

    @property
    def length(self) -> int:
        """Steps a full execution runs (one branch of a COND)."""
        return sum(1 for s in self.steps if s.branch != "else")

    def children(self, index: int) -> list[Step]:
        return [s for s in self.steps if s.parent == index]

    def needs_all_pages(self, index: int) -> bool:
        step = self.steps[index]
        if step.answer and step.answer.op in REDUCING_ANSWERS:
            return True
        return any(child.junction == DRV for child in self.children(index))

    @property
    def template(self) -> str:
        """The chain without any value: tools, junctions, bindings, reductions and answers."""
        parts = []
        for s in self.steps:
            links = ",".join(f"{'+'.join(k.fields)}>{'+'.join(k.params)}:{k.transform}" for k in s.links)
            text = f"{s.index}:{s.name}"
            if s.parent is not None:
                text += f"<{s.junction}{'/' + s.branch if s.branch else ''}@{s.parent}[{links}]"
            if s.pick:
                text += f"{{{s.pick.op}:{s.pick.field}}}"
            if s.fan > 1:
                text += f"x{s.fan}"
            if s.compare:
                text += f"?cmp:{s.compare}"
            if s.condition:
                text += f"?if:{s.condition}"
            if s.context:
                text += f"~{','.join(s.context)}"
            if s.args and s.parent is not None:
                text += f"={','.join(sorted(s.args))}"
            if s.answer:
                text += f"=>{s.answer.op}({','.join(s.answer.fields)})"
            parts.append(text)
        return " | ".join(parts)

    @property
    def template_id(self) -> str:
        return hashlib.sha256(self.template.encode("utf-8")).hexdigest()[:16]

    @property
    def edge_ids(self) -> list[int]:
        return sorted({k.edge_id for s in self.steps for k in s.links if k.edge_id is not None})

    def to_dict(self) -> dict[str, Any]:
        return json.loads(_canonical(asdict(self)))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Plan:
        steps = []
        for raw in data["steps"]:
            raw = dict(raw)
            raw["links"] = tuple(
                Link(
                    tuple(k["fields"]),
                    tuple(k["params"]),
                    k["transform"],
                    k.get("edge_id"),
                    k.get("mean", 0.0),
                    tuple(k.get("invalid") or ()),
                    tuple(k.get("companions") or ()),
                )
                for k in raw.get("links") or ()
            )
            raw["context"] = tuple(raw.get("context") or ())
            raw["pick"] = Reduction(**raw["pick"]) if raw.get("pick") else None
            answer = raw.get("answer")
            raw["answer"] = Answer(answer["op"], tuple(answer.get("fields") or ())) if answer else None
            steps.append(Step(**raw))
        return cls(tuple(steps), data.get("strategy", "random"), data.get("seed", ""))


# --- Configuration and usage ---------------------------------------------------------------------------


@dataclass(frozen=True)
class WalkConfig:
    min_length: int = 1
    max_length: int = 6
    strategy: str = "random"
    junctions: tuple[str, ...] = JUNCTIONS
    restarts: int = 25
    max_visits: int = 2  # times one tool may appear in a plan
    fan: tuple[int, int] = (2, 3)
    reduce_answer: float = 0.25  # random strategy: chance a leaf reduces its full result set (when DRV is allowed)

    def checked(self) -> WalkConfig:
        if self.strategy not in STRATEGIES:
            raise WalkError(f"unknown strategy {self.strategy!r}; expected one of {', '.join(STRATEGIES)}")
        unknown = [j for j in self.junctions if j not in JUNCTIONS]
        if unknown or not self.junctions:
            raise WalkError(
                f"junctions must be a non-empty subset of {', '.join(JUNCTIONS)}; got {list(self.junctions)}"
            )
        if not 1 <= self.min_length <= self.max_length <= MAX_LENGTH:
            raise WalkError(f"lengths must satisfy 1 <= min_length <= max_length <= {MAX_LENGTH}")
        low, high = self.fan
        if not 2 <= low <= high <= 5:
            raise WalkError("fan must be a range within 2..5")
        return self


@dataclass
class Usage:
    """How often lengths, junctions, edges and tools were used; the coverage strategy takes the least used."""

    lengths: Counter = field(default_factory=Counter)  # target lengths asked for
    junctions: Counter = field(default_factory=Counter)
    edges: Counter = field(default_factory=Counter)
    tools: Counter = field(default_factory=Counter)

    def add(self, plan: Plan) -> None:
        self.junctions.update(plan.junctions)
        for step in plan.steps:
            self.tools[step.tool] += 1
            if step.parent is not None:
                self.edges[(plan.steps[step.parent].tool, step.tool)] += 1


# --- Links and requirements ----------------------------------------------------------------------------


def edge_links(
    graph: nx.DiGraph, a: Any, b: Any, given: Iterable[str] = (), args: Mapping[str, str] | None = None
) -> tuple[Link, ...]:
    """The bindings of edge a -> b, one per target parameter (the best posterior mean wins). `given` names the
    parameters of a's call and `args` the values known before it runs: a binding whose field means what it was
    verified as only without some of them (its `without`: TourAPI areaCode2's code is a 시군구 code once areaCode
    was given) or not with some values (its `unless`: select_stdg's stdgCd is no 동 code with lv 1 or 2; a value
    not known yet counts as one of them) is left out. A binding whose `companions` (cat1 beside cat2, sigunguCd
    beside bjdongCd) are bound neither by another link nor by its `companion_links` (how to read them from the
    same record; such a link has no edge id: it is no hop of its own) is left out too."""
    asked = {normalize(name) for name in given}
    known = {normalize(k): str(v) for k, v in (args or {}).items()}
    candidates = []
    companion_links: dict[int, Sequence[Mapping[str, Any]]] = {}
    for binding in graph.edges[a, b].get("bindings") or ():
        if asked & {normalize(name) for name in binding.get("without") or ()}:
            continue
        unless = {normalize(k): {str(v) for v in vs} for k, vs in (binding.get("unless") or {}).items()}
        if any(name in asked and known.get(name, next(iter(vs))) in vs for name, vs in unless.items()):
            continue
        fields = tuple(f.strip() for f in str(binding.get("field", "")).split(",") if f.strip())
        params = tuple(p.strip() for p in str(binding.get("param", "")).split(",") if p.strip())
        transform = binding.get("transform") or "identity"
        try:
            arity = transforms.arity(transform)
        except transforms.TransformError:
            continue
        if not fields or len(fields) != arity or len(params) != arity:
            continue
        link = Link(
            fields,
            params,
            transform,
            binding.get("edge_id"),
            float(binding.get("mean") or 0.0),
            tuple(binding.get("invalid") or ()),
            tuple(binding.get("companions") or ()),
        )
        candidates.append(link)
        companion_links[id(link)] = binding.get("companion_links") or ()
    candidates.sort(key=lambda k: (-k.mean, k.transform != "identity", k.params, k.fields))
    chosen: list[Link] = []
    taken: set[str] = set()
    for link in candidates:
        if taken & set(link.params):
            continue
        chosen.append(link)
        taken |= set(link.params)
    # A value that needs companions (cat2 its cat1) goes only where they are bound from the same record too:
    # by a link of their own, else as the binding's snapshot says to read them (an echo that held in trials).
    for link in list(chosen):
        for extra in companion_links.get(id(link), ()):
            param = str(extra.get("param", ""))
            if param and param not in taken and extra.get("field"):
                transform = extra.get("transform") or "identity"
                invalid = (str(extra.get("invalid") or ""),)
                chosen.append(Link((str(extra["field"]),), (param,), transform, None, link.mean, invalid))
                taken.add(param)
    while any(set(link.companions) - taken for link in chosen):
        chosen = [link for link in chosen if not set(link.companions) - taken]
        taken = {p for link in chosen for p in link.params}
    return tuple(sorted(chosen, key=lambda k: k.params))


def _ancestors(steps: Sequence[Step], index: int | None) -> list[Step]:
    found = []
    while index is not None:
        found.append(steps[index])
        index = steps[index].parent
    return found


def call_params(step: Step) -> frozenset[str]:
    """The parameters a step's call is made with: its arguments, the bound ones and those from context."""
    return frozenset(step.args) | {p for k in step.links for p in k.params} | frozenset(step.context)


def _provides(step: Step, tool: ToolMeta) -> set[str]:
    """Normalized names a step can hand to later steps: its arguments and its record fields."""
    names = {normalize(p) for p in step.args}
    names |= {normalize(p) for k in step.links for p in k.params}
    names |= {normalize(p) for p in step.context}
    names |= {normalize(m.path) for m in tool.fields}
    return names


def requirements(
    tool: ToolMeta, links: Sequence[Link], ancestors: Sequence[Step], tools: Mapping[Any, ToolMeta]
) -> tuple[dict[str, str], tuple[str, ...]] | None:
    """(constants, context parameters) that complete a call of `tool` fed by `links`; None when a required
    parameter has no source: no link, no earlier step with the same name, no example."""
    bound = {p for k in links for p in k.params}
    provided = set()
    for step in ancestors:
        provided |= _provides(step, tools[step.tool])
    constants: dict[str, str] = {}
    context: list[str] = []
    for name in tool.required:
        if name in bound:
            continue
        if not is_control_param(name) and normalize(name) in provided:
            context.append(name)
            continue
        example = tool.example(name)
        if example is None:
            return None
        constants[name] = example
    for name in domains.param_companions(bound, provider=tool.provider):
        # An optional parameter the bound ones only work with (HIRA's radius beside xPos, yPos).
        if name not in constants and (example := tool.example(name)) is not None:
            constants[name] = example
    return constants, tuple(context)


def entry_args(tool: ToolMeta, inputs: Mapping[str, Any]) -> dict[str, str] | None:
    """A start's arguments: the chosen inputs without paging or client parameters, required ones completed
    from examples; None when a required parameter has no value."""
    args = {
        str(k): str(v)
        for k, v in inputs.items()
        if v not in (None, "") and k in tool.properties and not (is_control_param(k) and k not in tool.required)
    }
    for name in tool.required:
        if name not in args:
            example = tool.example(name)
            if example is None:
                return None
            args[name] = example
    return args


# --- The walker ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Hop:
    junction: str
    targets: tuple[Any, ...]  # one tool, or two for SEM (both) and COND (then, else)

    @property
    def length(self) -> int:
        return 2 if self.junction == SEM else 1


class Walker:
    """Plans, one after another, from a graph of verified edges; seeded and reproducible."""

    def __init__(
        self,
        graph: nx.DiGraph,
        tools: Mapping[Any, ToolMeta],
        config: WalkConfig | None = None,
        *,
        seed: object = 0,
        usage: Usage | None = None,
    ):
        self.graph = graph
        self.tools = tools
        self.config = (config or WalkConfig()).checked()
        self.seed = str(seed)
        self.usage = usage or Usage()
        self.rng = rng_for("walk", self.seed, self.config.strategy)
        self.starts = [n for n in sorted(graph.nodes, key=str) if n in tools and self._start_inputs(tools[n])]
        if not self.starts:
            raise WalkError(
                "no tool in the graph can start a walk: none has inputs that complete its required parameters"
            )
        self._links: dict[tuple, tuple[Link, ...]] = {}
        self.count = 0

    # -- public

    def plans(self, n: int) -> list[Plan]:
        return [plan for plan in (self.next_plan() for _ in range(n)) if plan is not None]

    def next_plan(self) -> Plan | None:
        """The next plan, or None when no walk of at least min_length was found within the restarts."""
        self.count += 1
        target = self._target_length()
        # Counted when asked for, not when reached: a length the graph cannot give must not be asked forever.
        self.usage.lengths[target] += 1
        best: Plan | None = None
        for attempt in range(self.config.restarts):
            plan = self._walk(target, attempt)
            if plan is None:
                continue
            if best is None or abs(plan.length - target) < abs(best.length - target):
                best = plan
            if best.length == target:
                break
        if best is not None:
            self.usage.add(best)
        return best

    # -- choices

    def _least(self, options: Sequence[Any], counts: Counter, key=lambda o: o) -> Any:
        low = min(counts[key(o)] for o in options)
        tied = [o for o in options if counts[key(o)] == low]
        return tied[self.rng.randrange(len(tied))]

    def _target_length(self) -> int:
        lengths = list(range(self.config.min_length, self.config.max_length + 1))
        if self.config.strategy == "coverage":
            return self._least(lengths, self.usage.lengths)
        return lengths[self.rng.randrange(len(lengths))]

    def _start_inputs(self, tool: ToolMeta) -> list[dict[str, str]]:
        """Inputs a walk may start the tool with; ones that state something are preferred to bare defaults."""
        found = []
        for inputs in tool.entries or ({},):
            args = entry_args(tool, inputs)
            if args is not None and args not in found:
                found.append(args)
        stated = [args for args in found if any(not is_control_param(name) for name in args)]
        return stated or found

    def _pick_start(self, target: int, attempt: int) -> Any | None:
        pool = self.starts
        if target > 1:
            pool = [n for n in pool if self.graph.out_degree(n) > 0] or pool
        if self.config.strategy == "coverage" and attempt == 0:
            return self._least(pool, self.usage.tools)
        return pool[self.rng.randrange(len(pool))]

    def links(self, a: Any, b: Any, step: Step | None = None) -> tuple[Link, ...]:
        given = call_params(step) if step is not None else frozenset()
        args = frozenset(step.args.items()) if step is not None else frozenset()
        if (a, b, given, args) not in self._links:
            self._links[(a, b, given, args)] = edge_links(self.graph, a, b, given, dict(args))
        return self._links[(a, b, given, args)]

    # -- one walk

    def _walk(self, target: int, attempt: int) -> Plan | None:
        start = self._pick_start(target, attempt)
        tool = self.tools[start]
        inputs = self._start_inputs(tool)
        steps: list[Step] = [Step(0, start, tool.name, args=inputs[self.rng.randrange(len(inputs))])]
        current: int | None = 0
        length = 1
        while current is not None and length < target:
            hops = self._hops(steps, current, target - length)
            if not hops:
                break
            hop = self._choose_hop(steps[current].tool, hops)
            new_steps, current = self._expand(steps, current, hop)
            if new_steps is None:
                break
            steps.extend(new_steps)
            length += hop.length
        if length < self.config.min_length:
            return None
        return Plan(tuple(self._with_answers(steps)), self.config.strategy, f"{self.seed}:{self.count}")

    def _visits(self, steps: Sequence[Step], node: Any) -> int:
        return sum(1 for s in steps if s.tool == node)

    def _fits(self, steps: Sequence[Step], current: int, node: Any) -> bool:
        if node not in self.tools or self._visits(steps, node) >= self.config.max_visits:
            return False
        parent = steps[current].parent
        if parent is not None and steps[parent].tool == node:
            return False  # straight back to where the value came from
        links = self.links(steps[current].tool, node, steps[current])
        return bool(links) and requirements(self.tools[node], links, _ancestors(steps, current), self.tools) is not None

    def _hops(self, steps: Sequence[Step], current: int, remaining: int) -> list[_Hop]:
        here = steps[current].tool
        tool = self.tools[here]
        targets = [b for b in sorted(self.graph.successors(here), key=str) if self._fits(steps, current, b)]
        if not targets:
            return []
        allowed = set(self.config.junctions)
        hops: list[_Hop] = []
        for b in targets:
            if SEQ in allowed:
                hops.append(_Hop(SEQ, (b,)))
            if DRV in allowed and (tool.measures() or tool.fields_of("date", "category", "flag")):
                hops.append(_Hop(DRV, (b,)))
            if remaining == 1:
                if FAN in allowed:
                    hops.append(_Hop(FAN, (b,)))
                if CMP in allowed:
                    hops.append(_Hop(CMP, (b,)))
                if COND in allowed and (tool.measures() or tool.fields_of("flag", "category")):
                    others = [c for c in targets if c != b]
                    hops.append(_Hop(COND, (b, others[0] if others else None)))
        if SEM in allowed and remaining >= 2:
            for i, b in enumerate(targets):
                for c in targets[i + 1 :]:
                    shared = {f for k in self.links(here, b, steps[current]) for f in k.fields} & {
                        f for k in self.links(here, c, steps[current]) for f in k.fields
                    }
                    if shared:
                        hops.append(_Hop(SEM, (b, c)))
        return hops

    def _choose_hop(self, here: Any, hops: list[_Hop]) -> _Hop:
        kinds = sorted({h.junction for h in hops}, key=JUNCTIONS.index)
        if self.config.strategy == "coverage":
            kind = self._least(kinds, self.usage.junctions)
            options = [h for h in hops if h.junction == kind]
            return self._least(options, self.usage.edges, key=lambda h: (here, h.targets[0]))
        kind = kinds[self.rng.randrange(len(kinds))]
        options = [h for h in hops if h.junction == kind]
        weights = [0.2 + self.graph.edges[here, h.targets[0]].get("best_mean", 0.5) for h in options]
        return self.rng.choices(options, weights=weights)[0]

    def _expand(self, steps: Sequence[Step], current: int, hop: _Hop) -> tuple[list[Step] | None, int | None]:
        """The steps a hop adds, and the step the walk continues from (None: the walk ends)."""
        here = steps[current].tool
        ancestors = _ancestors(steps, current)
        new: list[Step] = []
        for offset, node in enumerate(t for t in hop.targets if t is not None):
            tool = self.tools[node]
            links = self.links(here, node, steps[current])
            constants, context = requirements(tool, links, ancestors, self.tools)  # type: ignore[misc]
            step = Step(len(steps) + offset, node, tool.name, current, hop.junction, links, constants, context)
            if hop.junction == DRV:
                pick = self._pick_reduction(self.tools[here])
                if pick is None:
                    return None, None
                step = replace(step, pick=pick)
            elif hop.junction == FAN:
                low, high = self.config.fan
                step = replace(step, fan=low + self.rng.randrange(high - low + 1))
            elif hop.junction == CMP:
                metrics = [f for f in tool.compare_fields if tool.field(f)] + ["count"]
                step = replace(step, fan=2, compare=metrics[self.rng.randrange(len(metrics))])
            elif hop.junction == COND:
                tested = self.tools[here].measures() + self.tools[here].fields_of("flag", "category")
                step = replace(
                    step,
                    condition=tested[self.rng.randrange(len(tested))].path,
                    branch="then" if offset == 0 else "else",
                )
            new.append(step)
        if hop.junction in TERMINAL:
            return new, None
        return new, new[-1].index

    def _pick_reduction(self, tool: ToolMeta) -> Reduction | None:
        options = [Reduction(op, m.path) for m in tool.measures() for op in ("max", "min")]
        options += [Reduction("latest", m.path) for m in tool.fields_of("date")]
        options += [Reduction("filter", m.path) for m in tool.fields_of("category", "flag")]
        if not options:
            return None
        return options[self.rng.randrange(len(options))]

    # -- answers

    def _with_answers(self, steps: list[Step]) -> list[Step]:
        parents = {s.parent for s in steps}
        done = []
        for step in steps:
            if step.index in parents:
                done.append(step)
                continue
            done.append(replace(step, answer=self._answer(step)))
        return done

    def _answer(self, step: Step) -> Answer:
        tool = self.tools[step.tool]
        fields = answer_fields(tool, avoid=[p for k in step.links for p in k.fields])
        if step.junction in TERMINAL or DRV not in self.config.junctions:
            return Answer("fields", fields)
        if self.config.strategy == "coverage":
            reduce = self.usage.junctions[DRV] <= min(self.usage.junctions[j] for j in self.config.junctions)
        else:
            reduce = self.rng.random() < self.config.reduce_answer
        if not reduce:
            return Answer("fields", fields)
        options = [Answer("count")]
        options += [Answer(op, (m.path,)) for m in tool.measures() for op in ("max", "min")]
        options += [Answer("latest", (m.path,)) for m in tool.fields_of("date")]
        return options[self.rng.randrange(len(options))]


def answer_fields(tool: ToolMeta, *, avoid: Iterable[str] = (), limit: int = 3) -> tuple[str, ...]:
    """Up to `limit` fields worth reporting: the tool's hints, else labels, numbers, dates and texts in order."""
    avoid = set(avoid)
    chosen = [f for f in tool.answer_fields if tool.field(f) and f not in avoid]
    if not chosen:
        for kinds in (("label",), ("number", "date", "category", "flag", "text")):
            chosen += [m.path for m in tool.fields_of(*kinds) if m.path not in avoid and m.path not in chosen]
    return tuple(chosen[:limit])
