"""GPU check: ~20 GRPO steps of a ~0.5B-parameter Qwen3-architecture model built from config (random weights,
the tiny tokenizer), with vLLM colocate generation, on synthesized holiday trajectories whose calls run against an
in-process sandbox. Prints the time and tokens/s of every step, then their medians.

    training/gpu_check.sh [OUT] [STEPS]      # on a CUDA box with requirements-gpu.txt installed

Where vLLM is not installed (a GPU box that cannot take its wheels), the check says so and generates with
transformers instead; its first line names the generator, so the figures are never read as vLLM's.

Started through launch.py (`--gpu-check`), so Hugging Face `datasets` is the one imported. Random weights emit
noise, so the rewards are near zero: this measures throughput and that the GPU path runs, not learning.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

VERSIONED = ("torch", "transformers", "trl", "datasets", "accelerate", "vllm")


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "var/training/gpu-check").resolve()
    steps = int(argv[1]) if len(argv) > 1 else 20
    import torch

    if not torch.cuda.is_available():
        print("no CUDA device: the GPU check needs a GPU and requirements-gpu.txt", file=sys.stderr)
        return 2
    from apis.sandbox.config import SandboxConfig
    from apis.sandbox.server import start_sandbox_server
    from training.engine.presets import build_config
    from training.engine.synthetic import write_holiday_export
    from training.engine.tiny import build_tiny_model
    from training.engine.train import train

    use_vllm = importlib.util.find_spec("vllm") is not None
    generator = "vLLM colocate" if use_vllm else "transformers generate (vLLM is not installed)"
    print(f"generation: {generator}", flush=True)
    print("versions: " + ", ".join(f"{name} {_version(name)}" for name in VERSIONED), flush=True)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    base = out / "qwen3-0.5b"
    if not (base / "config.json").exists():
        build_tiny_model(base, size="qwen3-0.5b")
    params = sum(p.numel() for p in __import__("transformers").AutoModelForCausalLM.from_pretrained(base).parameters())
    print(f"model: {params / 1e6:.0f}M parameters, built in {time.perf_counter() - started:.0f} s", flush=True)
    url, stop = start_sandbox_server(port=0, config=SandboxConfig(daily_quota=0))
    try:
        data = write_holiday_export(out / "data.jsonl", url, [(2026, m) for m in range(1, 13)], brief=True)
        run = out / "run"
        config = build_config(
            preset="qwen-4b-full",
            dataset=data,
            output_dir=run,
            base_model=str(base),
            overrides={
                "sft.steps": 0,
                "grpo.steps": steps,
                "grpo.batch_size": 16,
                "grpo.num_generations": 8,
                "grpo.max_completion_length": 512,
                "grpo.learning_rate": 1e-6,
                "grpo.save_steps": 10_000,
            },
            tools={"mode": "sandbox", "sandbox_url": url},
        )
        config["grpo"]["use_vllm"] = use_vllm
        (out / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        train(config)
    finally:
        stop()
    rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text(encoding="utf-8").splitlines()]
    grpo = [r for r in rows if r.get("phase") == "grpo"]
    print(f"{'step':>4} {'step_s':>8} {'tokens/s':>10} {'completion_len':>14} {'reward':>7} {'call_freq':>9}")
    for r in grpo:
        print(
            f"{r['step']:>4} {r.get('step_time_s', 0):8.2f} {r.get('tokens_per_s', float('nan')):10.0f}"
            f" {r.get('completions/mean_length', 0):14.1f} {r.get('reward', 0):7.3f} {r.get('tools/call_frequency', 0):9.2f}"
        )
    later = grpo[2:] or grpo  # the first steps include warm-up (vLLM's compilation, CUDA kernels)
    step_s = statistics.median(r["step_time_s"] for r in later)
    tokens = [r["tokens_per_s"] for r in later if "tokens_per_s" in r]
    print(
        f"median step time {step_s:.2f} s; median {statistics.median(tokens) if tokens else float('nan'):.0f} tokens/s"
    )
    print(f"generation: {generator}")
    print(f"GPU: {torch.cuda.get_device_name(0)}; peak memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
    return 0
