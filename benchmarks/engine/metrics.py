"""KOPA-Bench metrics: the three axes per episode, then pass@k, pass^k, intervals, efficiency and errors per
category. The definitions below are the reference; docs/bench.md explains them with examples.

Per episode (task t, seed s):

- RESPONSE: the task's checker accepts the final reply (benchmarks.engine.checkers). No reply (max steps,
  backend error, timeout) fails.
- ENVIRONMENT: every answer-bearing gold call g was retrieved. Retrieved means: some call the model made
  succeeded (status ok) with g's tool and arguments that match g (see "matching"), and, when g has all_pages
  (the default for answer-bearing calls), the records the model was shown cover every record the API holds
  for those arguments: the union of [start, start + delivered) over the matching calls contains
  [0, total_count), where start comes from the page the API says it served (page_no × num_of_rows) or from
  the call's paging arguments. A page size large enough for everything counts as well as fetching every
  page; records the environment did not deliver (its observation caps) do not count. Tasks without an
  answer-bearing call score 1. `coverage` is the share of answer-bearing calls retrieved.
- ACTION: over canonical calls. A model call matches gold call g when the tool is the same and every
  argument (the union of both sides' names, minus g's paging arguments and the file's ignore_args) has g's
  value or one of g's alternatives (canonical forms, benchmarks.engine.canonical). The predicted multiset
  holds every call the model made except those that failed for environmental reasons (env.*: the network,
  not the model); invalid calls are in it and never match. The pages of one call count as one call: a group
  of calls equal up to paging counts once, plus once more for each repeat of a page it already fetched.
  precision = matched / predicted, recall = matched / gold, F1 = 2PR / (P + R), with the matching a maximum
  bipartite matching; no predicted calls gives P = 1 only when gold is empty too. ACTION passes when F1 = 1.
  argument accuracy = gold arguments that the best same-tool call got right / gold arguments; binding
  accuracy = the same over arguments that a binding fills from an earlier call's output; order accuracy =
  dependency edges (p → d) whose first matching calls came in order (p in an earlier turn than d) / edges
  with both ends matched. Calls inside one parallel group (a layer of the gold graph) may come in any order.
- success = RESPONSE × ENVIRONMENT (× ACTION when require_action).

Over a run, per task with n seeds and c successes: pass@k = 1 − C(n−c, k)/C(n, k) (the unbiased
estimator), pass^k = C(c, k)/C(n, k) (τ-bench: all k tries succeed), both averaged over tasks; pass@1 =
pass^1 = mean c/n. Intervals (95 %): pass@k and pass^k by a percentile bootstrap over tasks (2,000 resamples,
fixed seed); per-axis pass rates by the Wilson score interval over episodes; pass@1 also as mean ± 1.96·sd/√S
over the S per-seed success rates (the paper's seed interval).

Efficiency: call ratio = min(1, gold requests / requests made), over successful episodes; redundant calls are
calls that repeat an earlier successful call exactly (same tool, same canonical arguments, page included).
Errors: invalid calls by kind (call.bad_json, call.unparsed, call.unknown_tool, call.invalid_arguments,
call.too_many), execution errors by class (struct.*, env.*), prerequisite skipped (the model called a gold
tool before any successful call matching one of the gold calls it depends on), first page only (an
all-pages gold call matched only by calls starting at record 0 and not covering total_count).
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from apis.engine.errors import is_environmental
from benchmarks.engine.accounting import EpisodeAccount, episode_account
from benchmarks.engine.canonical import canonical_args, value_matches
from benchmarks.engine.checkers import check_answer
from benchmarks.engine.runner import (
    STOP_ANSWER,
    STOP_BACKEND_ERROR,
    STOP_MAX_STEPS,
    STOP_TIMEOUT,
    CallRecord,
    EpisodeResult,
)
from benchmarks.engine.task import DEFAULT_PAGING, GoldCall, Paging, Task

# ---------------------------------------------------------------------------------------- estimators


def pass_at_k(n: int, c: int, k: int) -> float:
    """P(at least one of k tries drawn without replacement from n succeeds) = 1 − C(n−c, k)/C(n, k)."""
    _check_counts(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """P(all of k tries drawn without replacement from n succeed) = C(c, k)/C(n, k) (τ-bench's pass^k)."""
    _check_counts(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check_counts(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n:
        raise ValueError(f"successes must be between 0 and n={n}; got {c}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n={n}; got {k}")


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion; (0, 1) for no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def bootstrap_interval(
    values: Sequence[float], *, resamples: int = 2000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap of the mean, resampling the values (tasks) with replacement; fixed seed."""
    if not values:
        return 0.0, 1.0
    if len(set(values)) == 1:
        return float(values[0]), float(values[0])
    rng = random.Random(seed)
    size = len(values)
    means = sorted(sum(rng.choices(values, k=size)) / size for _ in range(resamples))
    tail = (1 - confidence) / 2
    low = means[int(math.floor(tail * (resamples - 1)))]
    high = means[int(math.ceil((1 - tail) * (resamples - 1)))]
    return low, high


def seed_interval(rates: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """(mean, low, high) of per-seed rates: mean ± z·sd/√S (sd with S−1); a single seed gives a zero width."""
    if not rates:
        return 0.0, 0.0, 1.0
    mean = sum(rates) / len(rates)
    if len(rates) < 2:
        return mean, mean, mean
    half = z * statistics.stdev(rates) / math.sqrt(len(rates))
    return mean, max(0.0, mean - half), min(1.0, mean + half)


# ------------------------------------------------------------------------------------- call matching


def judged_args(args: Mapping[str, Any] | None, paging: Paging, ignore: Iterable[str]) -> tuple:
    return canonical_args(args, ignore=(*paging.params, *ignore))


def call_matches(gold: GoldCall, name: str | None, args: Mapping[str, Any] | None, ignore: Iterable[str] = ()) -> bool:
    """Whether a model call (name, args) is gold call `gold` up to paging, ignored arguments and alternatives."""
    if name != gold.tool or args is None:
        return False
    skip = set(gold.paging.params) | set(ignore)
    names = (set(gold.args) | set(gold.alternatives) | set(args)) - skip
    return all(value_matches(gold.args.get(n), args.get(n), gold.alternatives.get(n)) for n in names)


def _args_correct(gold: GoldCall, args: Mapping[str, Any], names: Iterable[str]) -> int:
    return sum(value_matches(gold.args.get(n), args.get(n), gold.alternatives.get(n)) for n in names)


def _max_matching(adjacency: list[list[int]], right: int) -> int:
    """Size of a maximum bipartite matching (Kuhn's augmenting paths); adjacency[left] lists right nodes."""
    owner = [-1] * right

    def augment(node: int, seen: list[bool]) -> bool:
        for other in adjacency[node]:
            if not seen[other]:
                seen[other] = True
                if owner[other] == -1 or augment(owner[other], seen):
                    owner[other] = node
                    return True
        return False

    return sum(augment(node, [False] * right) for node in range(len(adjacency)))


# ------------------------------------------------------------------------------------------- scores


@dataclass
class ActionScore:
    precision: float
    recall: float
    f1: float
    matched: int
    predicted: int
    gold: int
    argument_accuracy: float | None
    binding_accuracy: float | None
    order_accuracy: float | None

    @property
    def passed(self) -> bool:
        return self.f1 >= 1.0 - 1e-12


@dataclass
class EnvironmentScore:
    passed: bool
    coverage: float
    calls: dict[str, str] = field(default_factory=dict)  # gold call id -> ok | not_retrieved | incomplete_pages


@dataclass
class Efficiency:
    calls: int  # requests the model made, invalid ones included
    gold_calls: int  # requests the gold trajectory makes, every page counted
    call_ratio: float
    redundant_calls: int
    steps: int
    gold_steps: int  # parallel groups plus the answering turn


@dataclass
class ErrorBreakdown:
    invalid_calls: int = 0
    invalid_by_kind: dict[str, int] = field(default_factory=dict)
    executed_calls: int = 0
    execution_errors: int = 0
    execution_by_class: dict[str, int] = field(default_factory=dict)
    prerequisite_skipped: int = 0
    first_page_only: int = 0
    incomplete_pages: int = 0


@dataclass
class EpisodeScore:
    task_id: str
    seed: int
    categories: tuple[str, ...]
    difficulty: str
    response: bool
    response_detail: str
    environment: EnvironmentScore
    action: ActionScore
    success: bool
    stop_reason: str
    efficiency: Efficiency
    errors: ErrorBreakdown
    account: EpisodeAccount

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["account"] = self.account.to_dict()
        data["action"]["passed"] = self.action.passed
        return data


def score_episode(task: Task, episode: EpisodeResult, *, require_action: bool = False) -> EpisodeScore:
    if episode.task_id != task.id:
        raise ValueError(f"episode of task {episode.task_id!r} scored against task {task.id!r}")
    calls = episode.calls
    response = _response(task, episode)
    environment, first_page_only, incomplete = _environment(task, calls)
    action = _action(task, calls)
    success = response[0] and environment.passed and (action.passed or not require_action)
    return EpisodeScore(
        task_id=task.id,
        seed=episode.seed,
        categories=task.categories,
        difficulty=task.difficulty,
        response=response[0],
        response_detail=response[1],
        environment=environment,
        action=action,
        success=success,
        stop_reason=episode.stop_reason,
        efficiency=_efficiency(task, episode),
        errors=_errors(task, calls, first_page_only, incomplete),
        account=episode_account(episode),
    )


def _response(task: Task, episode: EpisodeResult) -> tuple[bool, str]:
    if episode.answer is None:
        return False, f"no answer ({episode.stop_reason}{': ' + episode.error if episode.error else ''})"
    verdict = check_answer(task.answer, episode.answer)
    return verdict.passed, verdict.detail


def _start(call: CallRecord, paging: Paging) -> int:
    """Index of the first record a call was shown, from the page the API reports or the call's arguments."""
    args = call.arguments or {}
    if paging.style == "index":
        return max(0, _int(args.get(paging.start), 1) - 1)
    page = _int(call.page.get("page_no"), _int(args.get(paging.page), 1))
    size = _int(call.page.get("num_of_rows"), _int(args.get(paging.size), call.records_returned))
    return max(0, (page - 1) * size)


def _int(value: Any, default: int) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return default


def _covers(intervals: Iterable[tuple[int, int]], total: int) -> bool:
    reach = 0
    for start, end in sorted(intervals):
        if start > reach:
            return False
        reach = max(reach, end)
        if reach >= total:
            return True
    return reach >= total


def _environment(task: Task, calls: Sequence[CallRecord]) -> tuple[EnvironmentScore, int, int]:
    status: dict[str, str] = {}
    first_page_only = incomplete = 0
    for gold in task.calls:
        if not gold.answer_bearing:
            continue
        found = [c for c in calls if c.status == "ok" and call_matches(gold, c.name, c.arguments, task.ignore_args)]
        if not found:
            status[gold.id] = "not_retrieved"
            continue
        totals = [c.total_count for c in found if c.total_count is not None]
        total = max(totals) if totals else None
        if not gold.all_pages or not total:
            status[gold.id] = "ok"
            continue
        spans = [(_start(c, gold.paging), _start(c, gold.paging) + c.records_delivered) for c in found]
        if _covers(spans, total):
            status[gold.id] = "ok"
            continue
        status[gold.id] = "incomplete_pages"
        incomplete += 1
        if all(start == 0 for start, _ in spans):
            first_page_only += 1
    retrieved = sum(v == "ok" for v in status.values())
    score = EnvironmentScore(
        passed=retrieved == len(status),
        coverage=retrieved / len(status) if status else 1.0,
        calls=status,
    )
    return score, first_page_only, incomplete


def _paging_by_tool(task: Task) -> dict[str, Paging]:
    return {gold.tool: gold.paging for gold in reversed(task.calls)}


def _action(task: Task, calls: Sequence[CallRecord]) -> ActionScore:
    paging = _paging_by_tool(task)
    predicted = [c for c in calls if not (c.status == "error" and is_environmental(c.error_class))]
    # Entries of the predicted multiset: (name, args, valid). Pages of one logical call count once; a repeated
    # page counts again.
    groups: dict[tuple, list[CallRecord]] = {}
    entries: list[tuple[str | None, Mapping[str, Any] | None, bool]] = []
    for call in predicted:
        if call.status == "invalid":
            entries.append((call.name, call.arguments, False))
            continue
        key = (call.name, judged_args(call.arguments, paging.get(call.name, DEFAULT_PAGING), task.ignore_args))
        groups.setdefault(key, []).append(call)
    for group in groups.values():
        distinct = {canonical_args(c.arguments) for c in group}
        entries.extend([(group[0].name, group[0].arguments, True)] * (len(group) - len(distinct) + 1))
    adjacency = [
        [
            j
            for j, (name, args, valid) in enumerate(entries)
            if valid and call_matches(gold, name, args, task.ignore_args)
        ]
        for gold in task.calls
    ]
    matched = _max_matching(adjacency, len(entries))
    gold_count = len(task.calls)
    precision = matched / len(entries) if entries else (1.0 if gold_count == 0 else 0.0)
    recall = matched / gold_count if gold_count else (1.0 if not entries else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0

    valid = [c for c in calls if c.status != "invalid" and c.arguments is not None]
    args_right = args_total = bound_right = bound_total = 0
    for gold in task.calls:
        names = [n for n in gold.args if n not in gold.paging.params and n not in task.ignore_args]
        bound = [n for n in gold.bound_args if n in names]
        candidates = [c for c in valid if c.name == gold.tool]
        best = max(candidates, key=lambda c: (_args_correct(gold, c.arguments, names), c.ok), default=None)
        args_total += len(names)
        bound_total += len(bound)
        if best is not None:
            args_right += _args_correct(gold, best.arguments, names)
            bound_right += _args_correct(gold, best.arguments, bound)

    edges_ok = edges_total = 0
    for gold in task.calls:
        later = _first_step(gold, calls, task.ignore_args)
        for source_id in gold.depends_on:
            earlier = _first_step(task.call(source_id), calls, task.ignore_args)
            if later is not None and earlier is not None:
                edges_total += 1
                edges_ok += earlier < later
    return ActionScore(
        precision=precision,
        recall=recall,
        f1=f1,
        matched=matched,
        predicted=len(entries),
        gold=gold_count,
        argument_accuracy=args_right / args_total if args_total else None,
        binding_accuracy=bound_right / bound_total if bound_total else None,
        order_accuracy=edges_ok / edges_total if edges_total else None,
    )


def _first_step(gold: GoldCall, calls: Sequence[CallRecord], ignore: Iterable[str]) -> int | None:
    steps = [c.step for c in calls if c.status != "invalid" and call_matches(gold, c.name, c.arguments, ignore)]
    return min(steps) if steps else None


def _efficiency(task: Task, episode: EpisodeResult) -> Efficiency:
    calls = episode.calls
    made = len(calls)
    gold = task.gold_call_count
    ratio = min(1.0, gold / made) if made else (1.0 if gold == 0 else 0.0)
    seen_ok: set[tuple] = set()
    redundant = 0
    for call in calls:
        if call.status == "invalid":
            continue
        key = (call.name, canonical_args(call.arguments))
        if key in seen_ok:
            redundant += 1
        if call.ok:
            seen_ok.add(key)
    return Efficiency(
        calls=made,
        gold_calls=gold,
        call_ratio=ratio,
        redundant_calls=redundant,
        steps=len(episode.steps),
        gold_steps=len(task.layers()) + 1,
    )


def _errors(task: Task, calls: Sequence[CallRecord], first_page_only: int, incomplete: int) -> ErrorBreakdown:
    invalid = Counter(c.error_class or "call.invalid" for c in calls if c.status == "invalid")
    executed = [c for c in calls if c.status != "invalid"]
    failed = Counter(c.error_class or "unknown" for c in executed if not c.ok)
    skipped = 0
    for gold in task.calls:
        if not gold.depends_on:
            continue
        # The model's attempt at this gold call: the calls that match it, else calls of its tool that match no
        # other gold call. Counting every call of the tool made a chain through one tool (area_code2 for the
        # province, then again for its districts) look skipped, since the first call of the tool is the
        # prerequisite itself: the oracle showed 14 % "prerequisite skipped" at 100 % success (issue 18).
        tool_steps = [c.step for c in executed if call_matches(gold, c.name, c.arguments, task.ignore_args)]
        if not tool_steps:
            others = [g for g in task.calls if g is not gold and g.tool == gold.tool]
            tool_steps = [
                c.step
                for c in executed
                if c.name == gold.tool
                and not any(call_matches(g, c.name, c.arguments, task.ignore_args) for g in others)
            ]
        if not tool_steps:
            continue
        first = min(tool_steps)
        for source_id in gold.depends_on:
            source = task.call(source_id)
            if not any(
                c.ok and c.step < first and call_matches(source, c.name, c.arguments, task.ignore_args)
                for c in executed
            ):
                skipped += 1
    return ErrorBreakdown(
        invalid_calls=sum(invalid.values()),
        invalid_by_kind=dict(invalid),
        executed_calls=len(executed),
        execution_errors=sum(failed.values()),
        execution_by_class=dict(failed),
        prerequisite_skipped=skipped,
        first_page_only=first_page_only,
        incomplete_pages=incomplete,
    )


# --------------------------------------------------------------------------------------- aggregation


@dataclass
class Estimate:
    value: float
    low: float
    high: float
    method: str  # wilson | bootstrap | seeds | mean


@dataclass
class GroupReport:
    tasks: int
    episodes: int
    seeds_per_task: int  # the smallest n over the group's tasks
    response: Estimate
    environment: Estimate
    action: Estimate
    success: Estimate
    pass_at: dict[int, Estimate]
    pass_hat: dict[int, Estimate]
    pass1_seeds: Estimate
    action_detail: dict[str, float | None]
    efficiency: dict[str, float | None]
    errors: dict[str, Any]
    cost: dict[str, float]


@dataclass
class Report:
    overall: GroupReport
    categories: dict[str, GroupReport]
    difficulties: dict[str, GroupReport]
    ks: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def aggregate(tasks: Sequence[Task], scores: Sequence[EpisodeScore], *, ks: Sequence[int] = (1,)) -> Report:
    """The run's report: overall, per category tag and per difficulty. ks larger than a group's seeds per task
    are left out of that group's pass@k and pass^k."""
    by_id = {task.id: task for task in tasks}
    unknown = sorted({s.task_id for s in scores} - set(by_id))
    if unknown:
        raise ValueError(f"scores for tasks not in the task list: {', '.join(unknown)}")
    categories = sorted({c for s in scores for c in s.categories})
    difficulties = sorted({s.difficulty for s in scores})
    return Report(
        overall=group_report(by_id, scores, ks),
        categories={c: group_report(by_id, [s for s in scores if c in s.categories], ks) for c in categories},
        difficulties={d: group_report(by_id, [s for s in scores if s.difficulty == d], ks) for d in difficulties},
        ks=tuple(ks),
    )


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _rate(flags: Sequence[bool]) -> Estimate:
    hits = sum(flags)
    low, high = wilson_interval(hits, len(flags))
    return Estimate(hits / len(flags) if flags else 0.0, low, high, "wilson")


def group_report(tasks: Mapping[str, Task], scores: Sequence[EpisodeScore], ks: Sequence[int]) -> GroupReport:
    per_task: dict[str, list[EpisodeScore]] = {}
    for score in scores:
        per_task.setdefault(score.task_id, []).append(score)
    n_min = min((len(v) for v in per_task.values()), default=0)
    pass_at: dict[int, Estimate] = {}
    pass_hat: dict[int, Estimate] = {}
    for k in ks:
        if not 1 <= k <= n_min:
            continue
        at = [pass_at_k(len(v), sum(s.success for s in v), k) for v in per_task.values()]
        hat = [pass_hat_k(len(v), sum(s.success for s in v), k) for v in per_task.values()]
        pass_at[k] = Estimate(sum(at) / len(at), *bootstrap_interval(at), "bootstrap")
        pass_hat[k] = Estimate(sum(hat) / len(hat), *bootstrap_interval(hat), "bootstrap")
    by_seed: dict[int, list[bool]] = {}
    for score in scores:
        by_seed.setdefault(score.seed, []).append(score.success)
    seed_rates = [sum(v) / len(v) for v in by_seed.values()]
    pass1_seeds = Estimate(*seed_interval(seed_rates), "seeds")

    successful = [s for s in scores if s.success]
    executed = sum(s.errors.executed_calls for s in scores)
    issued = sum(s.efficiency.calls for s in scores)
    with_prerequisites = [s for s in scores if any(g.depends_on for g in tasks[s.task_id].calls)]
    paginated = [
        s for s in scores if any(g.answer_bearing and g.all_pages and g.pages > 1 for g in tasks[s.task_id].calls)
    ]
    invalid_kinds: Counter = Counter()
    failed_classes: Counter = Counter()
    for score in scores:
        invalid_kinds.update(score.errors.invalid_by_kind)
        failed_classes.update(score.errors.execution_by_class)
    turns = sum(s.account.model_turns for s in scores)
    episodes = len(scores)
    return GroupReport(
        tasks=len(per_task),
        episodes=episodes,
        seeds_per_task=n_min,
        response=_rate([s.response for s in scores]),
        environment=_rate([s.environment.passed for s in scores]),
        action=_rate([s.action.passed for s in scores]),
        success=_rate([s.success for s in scores]),
        pass_at=pass_at,
        pass_hat=pass_hat,
        pass1_seeds=pass1_seeds,
        action_detail={
            "precision": _mean(s.action.precision for s in scores),
            "recall": _mean(s.action.recall for s in scores),
            "f1": _mean(s.action.f1 for s in scores),
            "argument_accuracy": _mean(s.action.argument_accuracy for s in scores),
            "binding_accuracy": _mean(s.action.binding_accuracy for s in scores),
            "order_accuracy": _mean(s.action.order_accuracy for s in scores),
            "environment_coverage": _mean(s.environment.coverage for s in scores),
        },
        efficiency={
            "call_ratio_successful": _mean(s.efficiency.call_ratio for s in successful),
            "calls_per_episode": issued / episodes if episodes else None,
            "gold_calls_per_episode": _mean(s.efficiency.gold_calls for s in scores),
            "redundant_calls": sum(s.efficiency.redundant_calls for s in scores),
            "redundant_rate": sum(s.efficiency.redundant_calls for s in scores) / executed if executed else None,
            "steps_per_episode": _mean(s.efficiency.steps for s in scores),
        },
        errors={
            "invalid_call_rate": sum(invalid_kinds.values()) / issued if issued else None,
            "invalid_by_kind": dict(invalid_kinds),
            "execution_error_rate": sum(failed_classes.values()) / executed if executed else None,
            "execution_by_class": dict(failed_classes),
            "prerequisite_skip_rate": _share(with_prerequisites, lambda s: s.errors.prerequisite_skipped > 0),
            "first_page_only_rate": _share(paginated, lambda s: s.errors.first_page_only > 0),
            "max_steps_rate": _share(scores, lambda s: s.stop_reason == STOP_MAX_STEPS),
            "backend_error_rate": _share(scores, lambda s: s.stop_reason == STOP_BACKEND_ERROR),
            "timeout_rate": _share(scores, lambda s: s.stop_reason == STOP_TIMEOUT),
            "no_answer_rate": _share(scores, lambda s: s.stop_reason != STOP_ANSWER),
        },
        cost={
            "prompt_tokens_per_episode": sum(s.account.usage.prompt_tokens for s in scores) / episodes
            if episodes
            else 0.0,
            "completion_tokens_per_episode": sum(s.account.usage.completion_tokens for s in scores) / episodes
            if episodes
            else 0.0,
            "model_latency_per_turn_s": sum(s.account.model_latency_s for s in scores) / turns if turns else 0.0,
            "tool_latency_per_episode_s": sum(s.account.tool_latency_s for s in scores) / episodes if episodes else 0.0,
            "wall_per_episode_s": sum(s.account.wall_s for s in scores) / episodes if episodes else 0.0,
        },
    )


def _share(items: Sequence[EpisodeScore], predicate) -> float | None:
    return sum(1 for item in items if predicate(item)) / len(items) if items else None


def score_run(
    tasks: Sequence[Task], episodes: Sequence[EpisodeResult], *, ks: Sequence[int] = (1,), require_action: bool = False
) -> tuple[list[EpisodeScore], Report]:
    """Score every episode against its task and aggregate."""
    by_id = {task.id: task for task in tasks}
    missing = sorted({e.task_id for e in episodes} - set(by_id))
    if missing:
        raise ValueError(f"episodes of tasks not in the task list: {', '.join(missing)}")
    scores = [score_episode(by_id[e.task_id], e, require_action=require_action) for e in episodes]
    return scores, aggregate(tasks, scores, ks=ks)


def gold_binding_problems(task: Task, episode: EpisodeResult) -> list[str]:
    """For an oracle episode: each binding whose gold value is not what its transform makes of `field` in
    some record the source call returned. Empty when the task's gold graph is consistent with the environment."""
    import json

    problems = []
    for gold in task.calls:
        for binding in gold.bindings:
            source = task.call(binding.source)
            values = set()
            for call in episode.calls:
                if call.ok and call_matches(source, call.name, call.arguments, task.ignore_args):
                    try:
                        records = json.loads(call.observation).get("records") or []
                    except (json.JSONDecodeError, AttributeError):
                        records = []
                    for record in records:
                        if binding.field in record:
                            values.add(canonical_args({"v": binding.apply(record[binding.field])}))
            target = gold.args.get(binding.arg)
            # A list argument (NTS b_no) is bound element by element: each element must come from some record.
            items = target if isinstance(target, list) else [target]
            if any(canonical_args({"v": item}) not in values for item in items):
                problems.append(
                    f"{task.id}/{gold.id}: {binding.arg}={gold.args.get(binding.arg)!r} is not {binding.transform}"
                    f"({binding.field}) of any record {binding.source} returned"
                )
    return problems
