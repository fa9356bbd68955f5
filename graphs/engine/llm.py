"""The optional LLM scorer and proposer, and embeddings, through an OpenAI-compatible endpoint.

Configured by settings.KOPA_EDGE (KOPA_EDGE_LLM_URL, KOPA_EDGE_LLM_MODEL, KOPA_EDGE_LLM_KEY,
KOPA_EDGE_EMBEDDING_MODEL): nothing here runs unless a URL and a model are set. The scorer asks for a
feasibility in [0, 1] and, optionally, a better transform from the registry for each rule candidate; the
final score is the mean of the rules' score and the model's (EDGE phase A drops pairs below 0.3). The
proposer suggests bindings for required parameters that the rules found no source for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import httpx

from graphs.engine import transforms
from graphs.engine.candidates import Candidate, ToolInfo
from graphs.engine.retriever import EmbeddingRetriever

SCORE_BATCH = 12
_JSON_ARRAY = re.compile(r"\[.*\]", re.S)


class LLMError(Exception):
    """The endpoint failed or answered something that is not the JSON asked for."""


class LLMClient:
    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "",
        embedding_model: str = "",
        timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.embedding_model = embedding_model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(timeout=timeout, headers=headers, transport=transport)

    def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._http.post(f"{self.base_url}{path}", json=payload)
            response.raise_for_status()
            return response.json()
        except (httpx.HTTPError, ValueError) as exc:
            raise LLMError(f"{path}: {type(exc).__name__}: {exc}") from None

    def chat(self, system: str, user: str) -> str:
        data = self._post(
            "/chat/completions",
            {
                "model": self.model,
                "temperature": 0,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            },
        )
        try:
            return data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError("chat answer without choices[0].message.content") from None

    def embed(self, texts: list[str]) -> list[list[float]]:
        data = self._post("/embeddings", {"model": self.embedding_model, "input": texts})
        try:
            rows = sorted(data["data"], key=lambda row: row["index"])
            return [row["embedding"] for row in rows]
        except (KeyError, TypeError):
            raise LLMError("embedding answer without data[].embedding") from None


def client_from_settings(config: Mapping[str, Any]) -> LLMClient | None:
    if not config.get("llm_url") or not config.get("llm_model"):
        return None
    return LLMClient(
        config["llm_url"],
        config["llm_model"],
        api_key=config.get("llm_key") or "",
        embedding_model=config.get("embedding_model") or "",
    )


def embedding_retriever_from_settings(config: Mapping[str, Any]) -> EmbeddingRetriever | None:
    if not config.get("llm_url") or not config.get("embedding_model"):
        return None
    client = LLMClient(
        config["llm_url"],
        config.get("llm_model") or "",
        api_key=config.get("llm_key") or "",
        embedding_model=config["embedding_model"],
    )
    return EmbeddingRetriever(client.embed)


_SCORER_SYSTEM = (
    "You judge links between Korean public-API tools. A link says: a value of the source tool's record field, "
    "after the transform, can be passed as the target tool's parameter and the call will find data. Answer "
    'only a JSON array with one object per pair: {"i": <pair number>, "feasibility": <0..1>, '
    '"transform": <a transform spec or null>}. Transforms: '
    + "; ".join(
        f"{t.name}{''.join(':' + p for p in t.params)} = {t.description}" for t in transforms.TRANSFORMS.values()
    )
)


def _describe_field(tool: ToolInfo, names: str) -> str:
    rows = {f.path: f for f in tool.fields}
    parts = []
    for name in names.split(","):
        f = rows.get(name)
        example = f" e.g. {f.examples[0]}" if f and f.examples else ""
        parts.append(f"{name} ({f.description if f else ''}{example})")
    return ", ".join(parts)


def _describe_param(tool: ToolInfo, names: str) -> str:
    rows = {p.name: p for p in tool.params}
    parts = []
    for name in names.split(","):
        p = rows.get(name)
        example = f" e.g. {p.examples[0]}" if p and p.examples else ""
        parts.append(f"{name} ({p.description if p else ''}{example})")
    return ", ".join(parts)


def _parse_array(text: str) -> list[dict[str, Any]]:
    match = _JSON_ARRAY.search(text or "")
    if not match:
        raise LLMError("the model's answer holds no JSON array")
    try:
        data = json.loads(match.group(0))
    except ValueError as exc:
        raise LLMError(f"the model's JSON does not parse: {exc}") from None
    return [row for row in data if isinstance(row, dict)]


def rescore(
    client: LLMClient, candidates: Sequence[Candidate], tools: Mapping[Any, ToolInfo], *, min_score: float
) -> tuple[list[Candidate], int]:
    """Candidates with the model's feasibility mixed in (mean of rules and model); those below min_score go.

    Returns (kept candidates, how many the model scored). A pair the model skipped keeps its rules score.
    """
    kept: list[Candidate] = []
    scored = 0
    for start in range(0, len(candidates), SCORE_BATCH):
        batch = list(candidates[start : start + SCORE_BATCH])
        lines = []
        for i, c in enumerate(batch):
            source, target = tools[c.source_tool], tools[c.target_tool]
            lines.append(
                f"{i}. {source.name} ({source.title}) field {_describe_field(source, c.source_field)} "
                f"--[{c.transform}]--> {target.name} ({target.title}) parameter {_describe_param(target, c.target_param)}"
            )
        answers = {row.get("i"): row for row in _parse_array(client.chat(_SCORER_SYSTEM, "\n".join(lines)))}
        for i, candidate in enumerate(batch):
            row = answers.get(i)
            if row is None:
                kept.append(candidate)
                continue
            try:
                feasibility = min(1.0, max(0.0, float(row.get("feasibility"))))
            except (TypeError, ValueError):
                kept.append(candidate)
                continue
            scored += 1
            transform = candidate.transform
            suggested = row.get("transform")
            if isinstance(suggested, str) and suggested != transform:
                try:
                    if transforms.arity(suggested) == transforms.arity(transform):
                        transform = suggested
                except transforms.TransformError:
                    pass
            total = round((candidate.score + feasibility) / 2, 4)
            if total >= min_score:
                signals = {**candidate.signals, "llm": round(feasibility, 4), "total": total}
                kept.append(replace(candidate, transform=transform, score=total, signals=signals))
    return kept, scored


_PROPOSER_SYSTEM = (
    "You link Korean public-API tools. Given a target tool's parameter and candidate source tools with their "
    "record fields, name the fields whose values (after a transform) can fill the parameter. Answer only a JSON "
    'array of {"source": <tool name>, "field": <field path>, "transform": <spec>, "feasibility": <0..1>}; '
    "an empty array if none fits. Transforms: " + ", ".join(transforms.TRANSFORMS)
)


def propose(
    client: LLMClient, target: ToolInfo, param: str, sources: Sequence[ToolInfo], *, min_score: float
) -> list[Candidate]:
    """The model's bindings for one target parameter from the given source tools (checked against them)."""
    listing = "\n".join(
        f"- {s.name} ({s.title}): " + ", ".join(f"{f.path} ({f.description})" for f in s.fields[:40]) for s in sources
    )
    prompt = f"Target: {target.name} ({target.title}) parameter {_describe_param(target, param)}\nSources:\n{listing}"
    by_name = {s.name: s for s in sources}
    found = []
    for row in _parse_array(client.chat(_PROPOSER_SYSTEM, prompt)):
        source = by_name.get(row.get("source"))
        field_path = row.get("field")
        spec = row.get("transform") or "identity"
        if source is None or source.id == target.id or field_path not in {f.path for f in source.fields}:
            continue
        try:
            if transforms.arity(spec) != 1:
                continue
            feasibility = min(1.0, max(0.0, float(row.get("feasibility", 0))))
        except (transforms.TransformError, TypeError, ValueError):
            continue
        if feasibility >= min_score:
            found.append(
                Candidate(
                    source_tool=source.id,
                    source_field=field_path,
                    target_tool=target.id,
                    target_param=param,
                    transform=spec,
                    score=round(feasibility, 4),
                    signals={"llm": round(feasibility, 4), "total": round(feasibility, 4)},
                    proposer="llm",
                )
            )
    return found
