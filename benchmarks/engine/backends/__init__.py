"""Model backends of the agent runner: an OpenAI-compatible HTTP endpoint, in-process transformers, the oracle
and a scripted fake. Import a backend from its own module; this package imports none of them (the
transformers one needs torch)."""

from benchmarks.engine.backends.base import (
    Backend,
    BackendError,
    ModelRequest,
    ModelTurn,
    ParsedCall,
    SamplingParams,
)

__all__ = ["Backend", "BackendError", "ModelRequest", "ModelTurn", "ParsedCall", "SamplingParams"]
