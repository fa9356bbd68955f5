"""Candidate links across a catalog: which output field of one tool could fill which input of another.

Every (field, parameter) pair the index brings together is scored from four signals, each in [0, 1]:
names (normalized, aliases), descriptions (the retriever), value shapes (after the binding's transform) and
observed value overlap. The index files target parameters under name, concept and token keys and asks the
retriever for each field's nearest parameter descriptions, so only plausible pairs are scored: the work grows
with the catalog, not with its square. Coordinate pairs (entX,entY -> nx,ny) are matched as pairs with a
projection. Plain data in, plain data out; the Django service loads tools and stores the result.
"""

from __future__ import annotations

import gc
import heapq
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from graphs.engine import domains, shapes, transforms
from graphs.engine.coords import CoordPair, coordinate_pairs
from graphs.engine.names import blocking_keys, concept_transforms, is_control_param, name_similarity, target_keys
from graphs.engine.retriever import Retriever, TfidfRetriever

NAME_CACHE = 200_000  # name pairs remembered while scoring; cleared when full to bound memory


@dataclass(frozen=True)
class ParamInfo:
    name: str
    required: bool = False
    description: str = ""
    examples: tuple[str, ...] = ()  # example, default and enum values
    observed: tuple[str, ...] = ()  # values of successful recorded calls


@dataclass(frozen=True)
class FieldInfo:
    path: str  # where the value sits in a record: "region_cd", "item.addr"
    description: str = ""
    examples: tuple[str, ...] = ()
    observed: tuple[str, ...] = ()  # values seen in recorded responses

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class ToolInfo:
    id: int | str
    name: str
    provider: str = ""
    title: str = ""
    params: tuple[ParamInfo, ...] = ()
    fields: tuple[FieldInfo, ...] = ()


@dataclass
class Candidate:
    source_tool: int | str
    source_field: str  # one path, or "x,y" for a coordinate pair
    target_tool: int | str
    target_param: str  # one name, or "x,y"
    transform: str
    score: float
    signals: dict[str, float] = field(default_factory=dict)
    proposer: str = "rules"

    @property
    def key(self) -> tuple:
        return (self.source_tool, self.source_field, self.target_tool, self.target_param, self.transform)


@dataclass(frozen=True)
class MatchConfig:
    min_score: float = 0.3  # as EDGE phase A: pairs below it are dropped
    per_target: int = 8  # best candidates kept per target parameter (or coordinate pair)
    per_provider: int = 3  # of which at most this many come from one source provider
    neighbours: int = 8  # nearest parameter descriptions asked of the retriever per field
    min_description: float = 0.2  # a retrieved neighbour below this similarity is not a candidate
    max_postings: int = 120  # keys filed under more targets are searched among each tool's nearest tools only
    tool_neighbours: int = 40  # how many nearest tools that is
    weight_name: float = 0.3
    weight_description: float = 0.25
    weight_shape: float = 0.3
    weight_overlap: float = 0.15
    # A pair whose shapes cannot fit keeps this share of its score (names alone do not make a link).
    shape_veto: float = 0.3


@dataclass
class _Side:
    tool: int  # index into tools
    name: str  # field path or parameter name
    short: str  # the last path segment (fields) or the name (parameters)
    doc: str
    samples: tuple[str, ...]
    observed: tuple[str, ...]
    shape: shapes.Shape
    # What transform inference needs to know of the samples, as one hashable key (see _profile).
    profile: tuple = ()
    domain: str = domains.UNKNOWN  # what kind of value it is (graphs/engine/domains.py)


def _samples(examples: Sequence[str], observed: Sequence[str], limit: int = 40) -> tuple[str, ...]:
    seen = dict.fromkeys(str(v) for v in (*observed, *examples) if v is not None and str(v).strip())
    return tuple(list(seen)[:limit])


def _profile(shape: shapes.Shape, samples: Sequence[str]) -> tuple:
    return (
        shape,
        all(v == v.upper() for v in samples),
        all(v == v.lower() for v in samples),
        all(v == v.strip() for v in samples),
        any(v.startswith("0") for v in samples),
    )


@lru_cache(maxsize=65536)
def _inferred(source: tuple, target: tuple) -> tuple[str, ...]:
    """Transforms worth trying between two sample profiles: identity, and what the shapes suggest."""
    src, src_upper, src_lower, src_stripped, src_zero = source
    dst, dst_upper, dst_lower, dst_stripped, dst_zero = target
    found = ["identity"]
    if not src.is_known or not dst.is_known:
        return tuple(found)
    if "digits" in src.kinds and "digits" in dst.kinds and len(dst.lengths) == 1:
        (width,) = dst.lengths
        # A one-character slice of a code matches almost anything: it is never proposed.
        if width >= 2 and len(src.lengths) == 1 and min(src.lengths) > width:
            (length,) = src.lengths
            found += [f"slice:0:{width}", f"slice:{length - width}:{length}"]
        elif src.lengths and max(src.lengths) < width and dst_zero and not src_zero:
            # Zero padding only where the target's own values show leading zeros (bun 0012, not a date).
            found.append(f"zero_pad:{width}")
    if "date_ymd" in src.kinds and "date_ym" in dst.kinds:
        found.append("ymd_to_ym")
    if src.kinds & {"alnum", "prefixed_code", "yn"}:
        if dst_upper and not src_upper:
            found.append("upper")
        if dst_lower and not src_lower:
            found.append("lower")
    if not src_stripped and dst_stripped:
        found.append("strip")
    return tuple(found)


def infer_transforms(source: _Side, target: _Side) -> list[str]:
    return list(_inferred(source.profile, target.profile))


class _Shaped:
    """The source's samples after a transform: their shape and value set (cached per side and transform)."""

    def __init__(self):
        self._cache: dict[tuple[int, str], tuple[shapes.Shape, tuple[str, ...], tuple[str, ...]] | None] = {}
        self._interned: dict[shapes.Shape, shapes.Shape] = {}

    def get(self, index: int, side: _Side, spec: str):
        key = (index, spec)
        if key not in self._cache:
            self._cache[key] = self._apply(side, spec)
        return self._cache[key]

    def _apply(self, side: _Side, spec: str):
        if spec == "identity":
            return side.shape, side.samples, side.observed
        out, observed = [], []
        for value in side.samples:
            try:
                out.append(transforms.apply(spec, [value])[0])
            except transforms.TransformError:
                continue
        if side.samples and not out:
            return None  # the transform takes none of the values
        for value in side.observed:
            try:
                observed.append(transforms.apply(spec, [value])[0])
            except transforms.TransformError:
                continue
        shape = shapes.profile(out)
        return self._interned.setdefault(shape, shape), tuple(out), tuple(observed)


def _sides(tools: Sequence[ToolInfo]) -> tuple[list[_Side], list[_Side]]:
    # Equal shapes and profiles become one object each, so caches can key on identity (hashing is slow).
    interned: dict = {}

    def side(tool: int, name: str, short: str, description: str, examples, observed, kind: str) -> _Side:
        samples = _samples(examples, observed)
        shape = interned.setdefault(shapes.profile(samples), shapes.profile(samples))
        profile = _profile(shape, samples)
        profile = interned.setdefault(profile, profile)
        info = tools[tool]
        domain = domains.infer(name, provider=info.provider, side=kind, tool=info.name)
        return _Side(tool, name, short, f"{short} {description}", samples, tuple(observed), shape, profile, domain)

    sources, targets = [], []
    for index, tool in enumerate(tools):
        for f in tool.fields:
            sources.append(side(index, f.path, f.name, f.description, f.examples, f.observed, "field"))
        for p in tool.params:
            if not is_control_param(p.name):
                targets.append(side(index, p.name, p.name, p.description, p.examples, p.observed, "param"))
    return sources, targets


def _score(config: MatchConfig, name: float, description: float, shape: float, overlap: float) -> float:
    total = (
        config.weight_name * name
        + config.weight_description * description
        + config.weight_shape * shape
        + config.weight_overlap * overlap
    )
    if shape == 0.0:
        total *= config.shape_veto
    return round(total, 4)


def _tool_doc(tool: ToolInfo) -> str:
    return " ".join([tool.name, tool.title, *(f.name for f in tool.fields), *(p.name for p in tool.params)])


class _Index:
    """Target parameters filed under their keys. A key shared by more than max_postings targets (a popular
    name across a big catalog) is searched only among each source tool's nearest tools, so its cost stays
    bounded while a true link between related tools is still found."""

    def __init__(self, tools: Sequence[ToolInfo], targets: list[_Side], config: MatchConfig):
        hits: dict[str, list[int]] = defaultdict(list)
        for t_index, target in enumerate(targets):
            for key in target_keys(target.short):
                hits[key].append(t_index)
        self.small = {key: found for key, found in hits.items() if len(found) <= config.max_postings}
        self.big: dict[str, dict[int, list[int]]] = {}
        for key, found in hits.items():
            if len(found) > config.max_postings:
                by_tool: dict[int, list[int]] = defaultdict(list)
                for t_index in found:
                    by_tool[targets[t_index].tool].append(t_index)
                self.big[key] = by_tool
        self._near: dict[int, list[int]] = {}
        self._tools = tools
        self._config = config
        self._retriever: TfidfRetriever | None = None

    def near_tools(self, tool: int) -> list[int]:
        if tool not in self._near:
            if self._retriever is None:
                docs = [_tool_doc(t) for t in self._tools]
                self._retriever = TfidfRetriever(max_postings=self._config.max_postings)
                self._retriever.fit(docs, docs)
            found = self._retriever.neighbours(tool, self._config.tool_neighbours + 1)
            self._near[tool] = [t for t, _ in found if t != tool]
        return self._near[tool]

    def partners(self, source: _Side) -> set[int]:
        found: set[int] = set()
        for key in blocking_keys(source.short):
            found.update(self.small.get(key, ()))
            by_tool = self.big.get(key)
            if by_tool:
                for tool in self.near_tools(source.tool):
                    found.update(by_tool.get(tool, ()))
        return found


def generate_candidates(
    tools: Sequence[ToolInfo],
    *,
    config: MatchConfig = MatchConfig(),
    retriever: Retriever | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Candidate]:
    """Scored candidate links between every pair of distinct tools, best first per target parameter."""
    # Millions of small tuples and no reference cycles: the cyclic collector would rescan them over and
    # over (quadratic in a big catalog) for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _generate(tools, config, retriever, progress)
    finally:
        if collecting:
            gc.enable()


def _generate(tools, config, retriever, progress) -> list[Candidate]:
    sources, targets = _sides(tools)
    retriever = retriever or TfidfRetriever(max_postings=config.max_postings)
    retriever.fit([s.doc for s in sources], [t.doc for t in targets])
    index = _Index(tools, targets, config)
    scorer = _Scorer(config, retriever)
    provider_of = [tool.provider for tool in tools]
    axes = _axes(tools)
    best: dict[int, _TargetBest] = {}
    by_tool: dict[int, list[int]] = defaultdict(list)
    for s_index, source in enumerate(sources):
        by_tool[source.tool].append(s_index)
    for done, (tool_index, source_indexes) in enumerate(sorted(by_tool.items()), 1):
        provider = provider_of[tool_index]
        for s_index in source_indexes:
            source = sources[s_index]
            partners = index.partners(source)
            partners.update(t for t, _ in retriever.neighbours(s_index, config.neighbours, config.min_description))
            for t_index in partners:
                target = targets[t_index]
                if target.tool == source.tool:
                    continue
                # Only a value of the kind the parameter means: domains must join (or be unknown, penalized).
                if domains.match(source.domain, target.domain) is None:
                    continue
                # An easting never fills a northing: both sides are coordinates and their axes differ.
                axis = axes.get((source.tool, source.name, False))
                if axis and axes.get((target.tool, target.name, True), axis) != axis:
                    continue
                kept = best.get(t_index)
                if kept is None:
                    kept = best[t_index] = _TargetBest(config)
                scored = scorer.best(s_index, source, t_index, target, kept.floor(provider))
                if scored is not None:
                    kept.offer(provider, s_index, scored)
        if progress:
            progress(done, len(by_tool))

    found = []
    for t_index in sorted(best):
        target = targets[t_index]
        ranked = [_candidate(tools, sources[s_index], target, scored) for s_index, scored in best[t_index].ranked()]
        found.extend(ranked)
    provider_by_id = {tool.id: tool.provider for tool in tools}
    found.extend(_coordinate_candidates(tools, config, provider_by_id))
    return found


class _TargetBest:
    """One target parameter's best candidates: at most per_provider from each source provider, and the
    per_target best over all. floor() says how good a new pair must be to matter, so most pairs of a big
    catalog are dropped before their shapes are compared, and providers that cannot place are forgotten."""

    def __init__(self, config: MatchConfig):
        self.config = config
        self.heaps: dict[str, list[tuple]] = {}
        self._best: dict[str, tuple[float, int]] = {}  # provider -> its best (score, -source index)
        self._floor: tuple[float, int] = (0.0, -(10**12))

    def floor(self, provider: str) -> float:
        heap = self.heaps.get(provider)
        own = heap[0][0] if heap is not None and len(heap) >= self.config.per_provider else 0.0
        return max(own, self._floor[0])

    def offer(self, provider: str, s_index: int, scored: tuple) -> None:
        rank = (scored[0], -s_index)
        if rank < self._floor:
            return
        heap = self.heaps.setdefault(provider, [])
        entry = (scored[0], -s_index, s_index, *scored[1:])
        if len(heap) < self.config.per_provider:
            heapq.heappush(heap, entry)
        elif entry > heap[0]:
            heapq.heapreplace(heap, entry)
        else:
            return
        if rank > self._best.get(provider, (-1.0, 0)):
            self._best[provider] = rank
            if len(self._best) >= self.config.per_target and rank > self._floor:
                # With per_target providers ranked above a pair, that pair cannot be kept.
                self._floor = heapq.nlargest(self.config.per_target, self._best.values())[-1]
                if len(self.heaps) > self.config.per_target + 2:
                    for gone in [p for p, best in self._best.items() if best < self._floor]:
                        del self._best[gone]
                        del self.heaps[gone]

    def ranked(self) -> list[tuple[int, tuple]]:
        entries = sorted((e for heap in self.heaps.values() for e in heap), key=lambda e: (-e[0], e[2]))
        return [(entry[2], (entry[0], *entry[3:])) for entry in entries[: self.config.per_target]]


class _Scorer:
    """Scores one (field, parameter) pair under its best transform, with the pieces shared across pairs cached."""

    def __init__(self, config: MatchConfig, retriever: Retriever):
        self.config = config
        self.retriever = retriever
        self.shaped = _Shaped()
        self._names: dict[tuple[str, str], tuple[float, tuple[str, ...]]] = {}
        # Shapes live as long as the scorer, so their ids key the compatibility cache (hashing a Shape is slow).
        self._fits: dict[tuple[int, int], float] = {}
        self._specs: dict[tuple[int, int], tuple[str, ...]] = {}

    def best(self, s_index: int, source: _Side, t_index: int, target: _Side, floor: float = 0.0):
        """(total, spec, name, description, shape, overlap) of the best transform; None below min_score or
        when even perfect shapes and overlap could not lift the pair above `floor`."""
        key = (source.short, target.short)
        named = self._names.get(key)
        if named is None:
            if len(self._names) > NAME_CACHE:
                self._names.clear()
            named = self._names[key] = (
                name_similarity(source.short, target.short),
                concept_transforms(source.short, target.short),
            )
        name, linked = named
        joined = domains.match(source.domain, target.domain)
        if joined is None:
            return None
        description = max(0.0, self.retriever.similarity(s_index, t_index))
        config = self.config
        ceiling = config.weight_name * name + config.weight_description * description + config.weight_shape
        if source.observed and target.observed:
            ceiling += config.weight_overlap
        ceiling *= joined.factor
        if ceiling < max(floor, config.min_score):
            return None
        if joined.transforms is not None:
            specs = joined.transforms  # the domain table's registered transform, not a guess from shapes
        elif linked:
            specs = linked
        else:
            pair = (id(source.profile), id(target.profile))
            specs = self._specs.get(pair)
            if specs is None:
                specs = self._specs[pair] = _inferred(source.profile, target.profile)
        chosen = None
        for spec in specs:
            applied = self.shaped.get(s_index, source, spec)
            if applied is None:
                continue
            shape_after, _, observed_after = applied
            fit = (id(shape_after), id(target.shape))
            shape = self._fits.get(fit)
            if shape is None:
                shape = self._fits[fit] = shapes.compatibility(shape_after, target.shape)
            # Only values seen in real calls count: shared spec examples would make every pair look linked.
            overlap = shapes.overlap(observed_after, target.observed) if observed_after and target.observed else 0.0
            total = round(_score(self.config, name, description, shape, overlap) * joined.factor, 4)
            if chosen is None or total > chosen[0]:
                chosen = (total, spec, name, description, shape, overlap)
        if chosen is None or chosen[0] < self.config.min_score:
            return None
        return chosen


def _candidate(tools: Sequence[ToolInfo], source: _Side, target: _Side, scored: tuple) -> Candidate:
    total, spec, name, description, shape, overlap = scored
    joined = domains.match(source.domain, target.domain)
    return Candidate(
        source_tool=tools[source.tool].id,
        source_field=source.name,
        target_tool=tools[target.tool].id,
        target_param=target.name,
        transform=spec,
        score=total,
        signals={
            "name": round(name, 4),
            "description": round(description, 4),
            "shape": round(shape, 4),
            "overlap": round(overlap, 4),
            "total": total,
            "domains": [[source.domain], [target.domain]],
            "domain_factor": joined.factor if joined else 0.0,
        },
    )


def _diverse(ranked: list[Candidate], config: MatchConfig, provider_of: dict) -> list[Candidate]:
    """The best per_target, at most per_provider of them from one source provider: seven near-identical
    MOLIT services must not crowd the 법정동 code out of LAWD_CD's list."""
    kept: list[Candidate] = []
    per_provider: dict[str, int] = defaultdict(int)
    for candidate in ranked:
        provider = provider_of.get(candidate.source_tool, "")
        if per_provider[provider] >= config.per_provider:
            continue
        per_provider[provider] += 1
        kept.append(candidate)
        if len(kept) >= config.per_target:
            break
    return kept


def _axes(tools: Sequence[ToolInfo]) -> dict[tuple[int, str, bool], str]:
    """(tool index, field path or parameter name, is a parameter) -> "x" or "y" for members of coordinate pairs.
    A value passed through no projection keeps its axis: tmX -> tmY is a swap, never a link, however lenient
    the target (AirKorea answers the nearest stations for any point)."""
    axes: dict[tuple[int, str, bool], str] = {}
    for index, tool in enumerate(tools):
        for of_params in (False, True):
            for pair, _ in _pairs(tool, of_params=of_params):
                axes[(index, pair.x, of_params)] = "x"
                axes[(index, pair.y, of_params)] = "y"
    return axes


def _pairs(tool: ToolInfo, *, of_params: bool) -> list[tuple[CoordPair, str]]:
    if of_params:
        samples = {p.name: _samples(p.examples, p.observed) for p in tool.params if not is_control_param(p.name)}
        docs = {p.name: p.description for p in tool.params}
    else:
        samples = {f.path: _samples(f.examples, f.observed) for f in tool.fields}
        docs = {f.path: f.description for f in tool.fields}
    return [
        (pair, f"{pair.x} {pair.y} {docs.get(pair.x, '')} {docs.get(pair.y, '')}") for pair in coordinate_pairs(samples)
    ]


def _coordinate_candidates(tools: Sequence[ToolInfo], config: MatchConfig, provider_of: dict) -> list[Candidate]:
    """Pairs in different frames linked by a projection; pairs in the same frame are plain field links."""
    sources = [
        (i, pair, doc)
        for i, tool in enumerate(tools)
        for pair, doc in _pairs(tool, of_params=False)
        if _pair_in_frame(tool, pair, "field")
    ]
    targets = [
        (i, pair, doc)
        for i, tool in enumerate(tools)
        for pair, doc in _pairs(tool, of_params=True)
        if _pair_in_frame(tool, pair, "param")
    ]
    if not sources or not targets:
        return []
    retriever = TfidfRetriever(max_postings=config.max_postings)
    retriever.fit([doc for _, _, doc in sources], [doc for _, _, doc in targets])
    values = {(i, pair.names): _pair_samples(tools[i], pair) for i, pair, _ in sources}
    found = []
    for t_index, (target_tool, target_pair, _) in enumerate(targets):
        ranked = []
        for s_index, (source_tool, source_pair, _) in enumerate(sources):
            if source_tool == target_tool:
                continue
            # Values that only mean something together bind together: a pair in the same frame is one
            # two-field edge ("pair"), never two single fields from different records.
            if source_pair.frame == target_pair.frame:
                spec = "pair"
            else:
                spec = f"project:{source_pair.frame}:{target_pair.frame}"
            samples = values[(source_tool, source_pair.names)]
            projected = 0
            for x, y in samples:
                try:
                    transforms.apply(spec, [x, y])
                    projected += 1
                except transforms.TransformError:
                    pass
            shape = projected / len(samples) if samples else 0.5
            description = max(0.0, retriever.similarity(s_index, t_index))
            # Both sides are coordinates of a named frame: the names agree on what the values are.
            total = _score(config, 0.6, description, shape, 0.0)
            if total >= config.min_score:
                ranked.append(
                    Candidate(
                        source_tool=tools[source_tool].id,
                        source_field=source_pair.names,
                        target_tool=tools[target_tool].id,
                        target_param=target_pair.names,
                        transform=spec,
                        score=total,
                        signals={
                            "name": 0.6,
                            "description": round(description, 4),
                            "shape": round(shape, 4),
                            "overlap": 0.0,
                            "total": total,
                            "domains": [
                                list(domains.pair_domains(source_pair.frame)),
                                list(domains.pair_domains(target_pair.frame)),
                            ],
                            "domain_factor": 1.0,
                        },
                    )
                )
        ranked.sort(key=lambda c: (-c.score, str(c.source_tool)))
        # Positions come in many frames from few tools each: a pair keeps twice the usual number of sources.
        found.extend(_diverse(ranked, replace(config, per_target=2 * config.per_target), provider_of))
    return found


def _pair_in_frame(tool: ToolInfo, pair: CoordPair, side: str) -> bool:
    """A pair found by its values is bound only when the domain table does not say otherwise: a known domain
    must be the frame's coordinate of that axis (AirKorea's dmX/dmY, whose axes swap with ver, never are)."""
    expected = domains.pair_domains(pair.frame or "")
    for name, want in zip((pair.x, pair.y), expected, strict=True):
        found = domains.infer(name, provider=tool.provider, side=side, tool=tool.name)
        if found != domains.UNKNOWN and found != want:
            return False
    return True


def _pair_samples(tool: ToolInfo, pair: CoordPair) -> list[tuple[str, str]]:
    by_path = {f.path: _samples(f.examples, f.observed) for f in tool.fields}
    return list(zip(by_path.get(pair.x, ()), by_path.get(pair.y, ()), strict=False))
