"""How varied a set of trajectories is: tools, providers, junction types, lengths, chain templates, generators.

Counts come with a normalised entropy (1.0: perfectly even over the kinds seen) and, when the graph's sizes are
given, the share of its tools and edges the set uses.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any


def evenness(counts: Mapping[Any, int]) -> float | None:
    """Shannon entropy over log(kinds): 1.0 when every kind is equally frequent; None below two kinds."""
    total = sum(counts.values())
    if len(counts) < 2 or total == 0:
        return None
    entropy = -sum((n / total) * math.log(n / total) for n in counts.values() if n)
    return round(entropy / math.log(len(counts)), 4)


def blank(request: str, named: Iterable[Iterable[str]]) -> str:
    """The request with every value it names blanked ('관악구 봉천동 인구 몇 명이야?' -> '○ ○ 인구 몇 명이야?'): two
    items share a blanked request when they share their wording, whatever places or dates they name."""
    text = str(request)
    renderings = sorted({str(v) for options in named for v in options if str(v).strip()}, key=len, reverse=True)
    for value in renderings:
        text = text.replace(value, "○")
    return text


def _sorted(counter: Counter) -> dict[str, int]:
    return {str(k): v for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))}


def diversity_report(
    items: Iterable[Mapping[str, Any]], *, graph_tools: int | None = None, graph_edges: int | None = None
) -> dict[str, Any]:
    """items: {tools, providers, junctions, length, template_id, generator, calls (count), edges (ids)}, and for
    need-first items domain, need, register and request_template (the request with its named values blanked)."""
    tools, providers, junctions, lengths, templates, generators, domains, needs = (Counter() for _ in range(8))
    registers, wordings = Counter(), Counter()
    edges: set[Any] = set()
    n = calls = 0
    for item in items:
        n += 1
        tools.update(set(item.get("tools") or ()))
        providers.update(set(item.get("providers") or ()))
        junctions.update(item.get("junctions") or ["(none)"])
        lengths[int(item.get("length") or 0)] += 1
        templates[item.get("template_id") or ""] += 1
        generators[item.get("generator") or ""] += 1
        if item.get("domain"):
            domains[item["domain"]] += 1
        if item.get("need"):
            needs[item["need"]] += 1
        if item.get("register"):
            registers[item["register"]] += 1
        if item.get("request_template"):
            wordings[item["request_template"]] += 1
        calls += int(item.get("calls") or 0)
        edges.update(item.get("edges") or ())
    report: dict[str, Any] = {
        "items": n,
        "tools": _sorted(tools),
        "providers": _sorted(providers),
        "junctions": _sorted(junctions),
        "lengths": {str(k): lengths[k] for k in sorted(lengths)},
        "generators": _sorted(generators),
        "templates": len(templates),
        "domains": _sorted(domains),
        "needs": _sorted(needs),
        "max_per_template": max(templates.values(), default=0),
        "registers": _sorted(registers),
        "request_templates": len(wordings),
        "max_per_request_template": max(wordings.values(), default=0),
        "top_request_templates": [{"request": t, "items": c} for t, c in wordings.most_common(5)],
        "top_templates": [{"template_id": t, "items": c} for t, c in templates.most_common(5)],
        "mean_length": round(sum(k * v for k, v in lengths.items()) / n, 2) if n else None,
        "mean_calls": round(calls / n, 2) if n else None,
        "evenness": {
            "tools": evenness(tools),
            "providers": evenness(providers),
            "junctions": evenness(junctions),
            "templates": evenness(templates),
            "domains": evenness(domains),
            "registers": evenness(registers),
        },
    }
    if graph_tools:
        report["tool_coverage"] = round(len(tools) / graph_tools, 4)
    if graph_edges:
        report["edge_coverage"] = round(len(edges) / graph_edges, 4)
    return report
