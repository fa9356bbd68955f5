"""What every backend takes and returns: one model turn for the conversation so far."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from benchmarks.engine.accounting import Usage

if TYPE_CHECKING:
    from benchmarks.engine.task import Task


class BackendError(Exception):
    """The backend could not produce a turn (server down, bad response, prompt too long). The message is safe
    to store: it never holds an API key."""


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 1024


@dataclass(frozen=True)
class ParsedCall:
    """A tool call as the backend read it. arguments is None when they could not be read (error says why)."""

    id: str
    name: str | None
    arguments: dict[str, Any] | None
    raw_arguments: str = ""
    error: str | None = None  # call.bad_json | call.unparsed: the call could not be read as a call


@dataclass
class ModelTurn:
    content: str = ""
    tool_calls: list[ParsedCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    finish_reason: str = ""
    raw: str = ""  # the generated text, for local backends


@dataclass(frozen=True)
class ModelRequest:
    task: Task
    messages: list[dict[str, Any]]  # OpenAI chat format
    tools: list[dict[str, Any]]  # OpenAI function schemas
    step: int  # 0-based model turn in the episode
    seed: int
    sampling: SamplingParams = SamplingParams()


class Backend:
    """Produce the next assistant turn. Implementations are async and safe to call from concurrent episodes."""

    name = "backend"
    model = ""

    async def complete(self, request: ModelRequest) -> ModelTurn:
        raise NotImplementedError

    async def aclose(self) -> None:
        return None

    async def __aenter__(self) -> Backend:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()
