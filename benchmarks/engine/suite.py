"""What a whole task suite covers: the figures the benchmark's design promises (issue: KOPA-Bench).

A task's *call-graph shape* is its gold call DAG with tool names forgotten: which calls feed which, which
calls read several pages, and which are lookups rather than answer-bearing. Two tasks share a shape when
their DAGs are isomorphic under those labels (Weisfeiler-Lehman hash), so "at least 60 shapes" means 60
structurally different plans, not 60 different tools.
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field
from statistics import mean
from typing import Any

import networkx as nx

from benchmarks.engine.task import Task, TaskSet

NO_TOOL_SHAPE = "no-call"


def call_graph_shape(task: Task) -> str:
    if not task.calls:
        return NO_TOOL_SHAPE
    graph = nx.DiGraph()
    for call in task.calls:
        pages = "n" if call.pages > 1 else "1"
        role = "a" if call.answer_bearing else "l"
        graph.add_node(call.id, label=f"{role}{pages}")
        for source in call.depends_on:
            graph.add_edge(source, call.id)
    with warnings.catch_warnings():
        # networkx 3.5 changed directed-graph hashes and warns about it on every call; ours are only compared
        # with each other in one process.
        warnings.simplefilter("ignore", UserWarning)
        return nx.weisfeiler_lehman_graph_hash(graph, node_attr="label", iterations=4)


def is_parallel(task: Task) -> bool:
    """True when some parallel group holds two or more calls (they can be issued in one turn)."""
    return any(len(layer) >= 2 for layer in task.layers())


def needs_every_page(task: Task) -> bool:
    return any(call.pages > 1 and call.answer_bearing and call.all_pages for call in task.calls)


def needs_prerequisite_lookup(task: Task) -> bool:
    """A lookup call whose output is bound into a later call's argument (the request does not give the code)."""
    bound_sources = {binding.source for call in task.calls for binding in call.bindings}
    return any(not call.answer_bearing and call.id in bound_sources for call in task.calls)


def needs_no_tool(task: Task) -> bool:
    return not task.calls


@dataclass
class SuiteStats:
    tasks: int
    providers: list[str]
    domains: list[str]
    mean_calls: float
    max_calls: int
    tasks_with_10_plus_calls: int
    parallel: int
    every_page: int
    prerequisite_lookup: int
    no_tool: int
    shapes: int
    difficulty: dict[str, int]
    categories: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def suite_stats(taskset: TaskSet, *, provider_of: dict[str, str], domain_prefix: str = "domain:") -> SuiteStats:
    """Figures of a suite. `provider_of` maps a function name to its provider; domains are the categories that
    start with `domain_prefix` (e.g. `domain:real-estate`)."""
    tasks = list(taskset)
    calls = [task.gold_call_count for task in tasks]
    providers = sorted({provider_of[call.tool] for task in tasks for call in task.calls if call.tool in provider_of})
    categories = Counter(category for task in tasks for category in task.categories)
    domains = sorted(c[len(domain_prefix) :] for c in categories if c.startswith(domain_prefix))
    return SuiteStats(
        tasks=len(tasks),
        providers=providers,
        domains=domains,
        mean_calls=round(mean(calls), 2) if calls else 0.0,
        max_calls=max(calls, default=0),
        tasks_with_10_plus_calls=sum(1 for count in calls if count >= 10),
        parallel=sum(1 for task in tasks if is_parallel(task)),
        every_page=sum(1 for task in tasks if needs_every_page(task)),
        prerequisite_lookup=sum(1 for task in tasks if needs_prerequisite_lookup(task)),
        no_tool=sum(1 for task in tasks if needs_no_tool(task)),
        shapes=len({call_graph_shape(task) for task in tasks}),
        difficulty=dict(Counter(task.difficulty for task in tasks)),
        categories=dict(sorted(categories.items())),
    )
