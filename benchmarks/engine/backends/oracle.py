"""The oracle: replays a task's gold call graph, one parallel group per turn with every gold page, then answers
with the gold answer text. Its scores are the benchmark's upper bound and a check that each task's gold
trajectory really works against the environment."""

from __future__ import annotations

import json

from benchmarks.engine.backends.base import Backend, ModelRequest, ModelTurn, ParsedCall


class OracleBackend(Backend):
    name = "oracle"
    model = "oracle"

    async def complete(self, request: ModelRequest) -> ModelTurn:
        layers = request.task.layers()
        if request.step >= len(layers):
            return ModelTurn(content=f"정답: {request.task.answer.text}", finish_reason="stop")
        calls = []
        for call in layers[request.step]:
            for page, args in enumerate(call.page_calls(), 1):
                raw = json.dumps(args, ensure_ascii=False)
                calls.append(ParsedCall(f"oracle_{request.step}_{call.id}_{page}", call.tool, dict(args), raw))
        return ModelTurn(tool_calls=calls, finish_reason="tool_calls")
