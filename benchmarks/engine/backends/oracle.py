"""The oracle: replays a task's gold call graph, one parallel group per turn with every gold page (a group larger
than the runner's per-turn limit spreads over several turns), then answers with the gold answer text. Its scores are the benchmark's upper bound and a check that each task's gold
trajectory really works against the environment."""

from __future__ import annotations

import json

from benchmarks.engine.backends.base import Backend, ModelRequest, ModelTurn, ParsedCall


class OracleBackend(Backend):
    name = "oracle"
    model = "oracle"

    def __init__(self, *, max_calls_per_turn: int = 16):
        if max_calls_per_turn < 1:
            raise ValueError("max_calls_per_turn must be at least 1")
        self.max_calls_per_turn = max_calls_per_turn

    def turns(self, task) -> list[list[ParsedCall]]:
        """The oracle's tool-call turns: each parallel group with every page, cut to the per-turn limit."""
        turns = []
        for depth, layer in enumerate(task.layers()):
            calls = [
                ParsedCall(
                    f"oracle_{depth}_{call.id}_{page}", call.tool, dict(args), json.dumps(args, ensure_ascii=False)
                )
                for call in layer
                for page, args in enumerate(call.page_calls(), 1)
            ]
            turns.extend(calls[i : i + self.max_calls_per_turn] for i in range(0, len(calls), self.max_calls_per_turn))
        return turns

    async def complete(self, request: ModelRequest) -> ModelTurn:
        turns = self.turns(request.task)
        if request.step >= len(turns):
            return ModelTurn(content=f"정답: {request.task.answer.text}", finish_reason="stop")
        return ModelTurn(tool_calls=turns[request.step], finish_reason="tool_calls")
