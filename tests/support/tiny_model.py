"""A tiny Qwen3 causal LM with a locally trained byte-level BPE tokenizer, built from a config (no hub access).

About 200k random weights and a 2k vocabulary: it produces noise, which is the point. End-to-end tests run
the real transformers path (chat template with tools, generation, Hermes parsing) in well under a second a
turn, and score near zero. The chat template is TRL's qwen3 template, kept byte for byte in
benchmarks/engine/chat_templates/qwen3.jinja (TRL recognises templates by exact text). The recipe itself
lives in training/engine/tiny.py (the tiny-cpu training preset builds the same model); this module caches it.

    .venv/bin/python -m tests.support.tiny_model /tmp/tiny-qwen3     # build one by hand
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks.engine.backends.transformers_local import chat_template
from training.engine.tiny import TOOL_TAGS, build_tiny_model, corpus  # noqa: F401  (re-exported)

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "var" / "test-cache"
BUILD_VERSION = 1  # bump when the recipe changes, so cached copies are rebuilt


def recipe_id() -> str:
    digest = hashlib.sha256(chat_template("qwen3").encode("utf-8")).hexdigest()[:8]
    return f"tiny-qwen3-v{BUILD_VERSION}-{digest}"


def cached_tiny_model(cache: Path = CACHE) -> Path:
    """The tiny model under var/test-cache, built once (into a temporary folder, then renamed into place)."""
    target = cache / recipe_id()
    if (target / "model.safetensors").exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="tiny-", dir=cache))
    try:
        build_tiny_model(staging)
        with contextlib.suppress(OSError):  # another process finished first; its copy is as good as ours
            staging.rename(target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target


if __name__ == "__main__":
    print(build_tiny_model(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())))
