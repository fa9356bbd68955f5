"""A local checkpoint run in this process with transformers: the tokenizer's chat template renders the
conversation with tools (apply_chat_template(tools=...)), the model generates, and Hermes `<tool_call>` blocks
(or the Qwen3.5 XML form) are read back as calls.

torch and transformers are imported inside LocalChatModel.load(), never at module import, so the web and
queue processes can import this module. One model serves one generation at a time (a lock), which is what a
CPU or a single local GPU can do anyway; for concurrency, serve the checkpoint with vLLM instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.engine.accounting import Usage
from benchmarks.engine.backends.base import Backend, BackendError, ModelRequest, ModelTurn
from benchmarks.engine.backends.parsing import parse_tool_calls

CHAT_TEMPLATES = Path(__file__).resolve().parent.parent / "chat_templates"


def chat_template(name: str) -> str:
    """A chat template shipped in benchmarks/engine/chat_templates (e.g. "qwen3", TRL's, byte for byte)."""
    return (CHAT_TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8")


class LocalChatModel:
    def __init__(
        self,
        path: str | Path,
        *,
        device: str = "cpu",
        dtype: str | None = None,
        chat_template: str | None = None,
        template_kwargs: Mapping[str, Any] | None = None,
        max_prompt_tokens: int | None = None,
        num_threads: int | None = None,
    ):
        self.path = str(path)
        self.device = device
        self.dtype = dtype
        self.chat_template = chat_template
        self.template_kwargs = dict(template_kwargs or {})
        self.max_prompt_tokens = max_prompt_tokens
        self.num_threads = num_threads  # CPU threads for torch; 1 avoids oversubscription on a shared box
        self.tokenizer = None
        self.model = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return Path(self.path).name

    def load(self) -> LocalChatModel:
        if self.model is not None:
            return self
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if self.num_threads:
            torch.set_num_threads(self.num_threads)
        tokenizer = AutoTokenizer.from_pretrained(self.path)
        if self.chat_template is not None:
            tokenizer.chat_template = self.chat_template
        if not tokenizer.chat_template:
            raise BackendError(f"{self.path}: the tokenizer has no chat template; pass chat_template=")
        dtype = getattr(torch, self.dtype) if self.dtype else None
        model = (
            AutoModelForCausalLM.from_pretrained(self.path, dtype=dtype)
            if dtype
            else AutoModelForCausalLM.from_pretrained(self.path)
        )
        model.to(self.device)
        model.eval()
        self.tokenizer, self.model = tokenizer, model
        return self

    def render(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None) -> str:
        """The prompt text the chat template makes of the conversation and tools (ending in the assistant cue)."""
        self.load()
        return self.tokenizer.apply_chat_template(
            template_messages(messages),
            tools=list(tools) if tools else None,
            add_generation_prompt=True,
            tokenize=False,
            **self.template_kwargs,
        )

    def generate(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        *,
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int = 0,
        id_prefix: str = "call",
    ) -> ModelTurn:
        import torch

        with self._lock:
            started = time.perf_counter()
            prompt = self.render(messages, tools)
            encoded = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
            prompt_tokens = int(encoded["input_ids"].shape[1])
            if self.max_prompt_tokens and prompt_tokens > self.max_prompt_tokens:
                raise BackendError(f"the prompt has {prompt_tokens} tokens; this model takes {self.max_prompt_tokens}")
            encoded = {k: v.to(self.device) for k, v in encoded.items()}
            sampling: dict[str, Any] = {"do_sample": False}
            if temperature > 0:
                torch.manual_seed(seed)
                sampling = {"do_sample": True, "temperature": temperature, "top_p": top_p}
            with torch.no_grad():
                output = self.model.generate(
                    **encoded,
                    max_new_tokens=max_new_tokens,
                    pad_token_id=self.tokenizer.pad_token_id,
                    eos_token_id=self.tokenizer.eos_token_id,
                    **sampling,
                )
            new_ids = output[0, prompt_tokens:].tolist()
            text = self.tokenizer.decode(new_ids, skip_special_tokens=False)
            latency = time.perf_counter() - started
        text = _cut_at_end(text, [self.tokenizer.eos_token, self.tokenizer.pad_token])
        content, calls = parse_tool_calls(text, id_prefix=id_prefix)
        return ModelTurn(
            content=content,
            tool_calls=calls,
            usage=Usage(prompt_tokens, len(new_ids)),
            latency_s=latency,
            finish_reason="tool_calls" if calls else ("stop" if len(new_ids) < max_new_tokens else "length"),
            raw=text,
        )


def _cut_at_end(text: str, markers: Sequence[str | None]) -> str:
    cut = len(text)
    for marker in markers:
        if marker and marker in text:
            cut = min(cut, text.index(marker))
    return text[:cut]


def template_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-format messages as chat templates want them: tool-call arguments as objects, not JSON text."""
    out = []
    for message in messages:
        message = dict(message)
        if message.get("tool_calls"):
            calls = []
            for call in message["tool_calls"]:
                function = dict(call.get("function") or {})
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    # Unreadable text stays text: the template writes it verbatim, as the model produced it.
                    with contextlib.suppress(json.JSONDecodeError):
                        function["arguments"] = json.loads(arguments) if arguments.strip() else {}
                calls.append({**call, "function": function})
            message["tool_calls"] = calls
        if message.get("content") is None:
            message["content"] = ""
        out.append(message)
    return out


class TransformersBackend(Backend):
    name = "transformers"

    def __init__(self, model: LocalChatModel | str | Path, **model_options: Any):
        self.local = model if isinstance(model, LocalChatModel) else LocalChatModel(model, **model_options)
        self.model = self.local.name

    async def complete(self, request: ModelRequest) -> ModelTurn:
        try:
            return await asyncio.to_thread(
                self.local.generate,
                request.messages,
                request.tools,
                max_new_tokens=request.sampling.max_tokens,
                temperature=request.sampling.temperature,
                top_p=request.sampling.top_p,
                seed=request.seed * 100_003 + request.step,
                id_prefix=f"call_{request.step}",
            )
        except BackendError:
            raise
        except (OSError, ValueError, RuntimeError) as error:  # a missing checkpoint, a template error, OOM
            raise BackendError(f"{type(error).__name__}: {error}") from None
