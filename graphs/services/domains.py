"""Value domains as the services see them: what a candidate's signals name, one name of a tool, and a cache of
every tool's and edge's domains with the reason two ends cannot join (the table is graphs/engine/domains.py)."""

from __future__ import annotations

from collections.abc import Sequence

from apis.models import Tool
from graphs.engine import domains as value_domains
from graphs.models import CandidateEdge
from graphs.selectors import tool_field_domains, tool_param_domains


def signal_domains(signals: dict) -> dict[str, list[str]]:
    """The domains of both ends that a candidate's signals name (graphs/engine/candidates.py)."""
    source, target = (signals or {}).get("domains") or ([], [])
    return {"source": list(source), "target": list(target)}


def tool_domain(tool: Tool, name: str, side: str) -> str:
    """The domain of one field (side "field") or parameter (side "param") of a tool."""
    return value_domains.infer(name, provider=tool.service.provider.code, side=side, tool=tool.function_name)


class DomainCache:
    """The domains of tools, inferred once per tool, and of the edges between them, for one verification run."""

    def __init__(self):
        self._domains: dict[int, tuple[dict[str, str], dict[str, str]]] = {}

    def tool_domains(self, tool: Tool) -> tuple[dict[str, str], dict[str, str]]:
        """({field path: domain}, {parameter: domain}) of a tool (graphs/engine/domains.py)."""
        if tool.pk not in self._domains:
            self._domains[tool.pk] = (tool_field_domains(tool), tool_param_domains(tool))
        return self._domains[tool.pk]

    def edge_domains(self, edge: CandidateEdge) -> tuple[list[str], list[str]]:
        """(domains of the source fields, domains of the target parameters) of an edge, in its order."""
        fields, _ = self.tool_domains(edge.source_tool)
        _, params = self.tool_domains(edge.target_tool)
        return [fields.get(f, value_domains.UNKNOWN) for f in edge.source_fields], [
            params.get(p, value_domains.UNKNOWN) for p in edge.target_params
        ]

    def domain_mismatch(self, edge: CandidateEdge, source: Sequence[str] | None = None) -> str | None:
        """Why a value of the edge's source cannot fill its target (None when the domains join)."""
        src, dst = self.edge_domains(edge)
        src = list(source) if source is not None else src
        if len(src) == 2:
            axes = [value_domains.axis(d) for d in src]
            if "" not in axes and axes != ["x", "y"]:
                return f"the source pair is ({src[0]}, {src[1]}): its axes would be swapped"
            groups = [value_domains.domain(d).group for d in (*src, *dst)]
            if edge.transform == "pair" and len(set(groups)) > 1 and "" not in groups:
                return f"a {groups[0]} pair is not a {groups[2]} pair"
            if edge.transform.startswith("project:"):
                _, frame_from, frame_to = edge.transform.split(":")
                if (groups[0] and groups[0] != frame_from) or (groups[2] and groups[2] != frame_to):
                    return f"{edge.transform} does not join a {groups[0]} pair to a {groups[2]} pair"
            return None
        joined = value_domains.match(src[0], dst[0])
        if joined is None:
            return value_domains.mismatch_reason(src[0], dst[0])
        if joined.transforms is not None and edge.transform not in joined.transforms:
            return f"{src[0]} -> {dst[0]} goes through {', '.join(joined.transforms)}, not {edge.transform}"
        return None
