"""CPU research check: SFT-only against SFT+GRPO with the tiny-cpu model, on held-out synthesized items.

    .venv/bin/python -P training/research_check.py OUT [--seeds 0 1 2] [--sft-steps 30] [--grpo-steps 6]
        [--train VERSION.jsonl --heldout HELDOUT.jsonl]

Train: holiday trajectories synthesized against an in-process sandbox (templates count, first, none; 2026,
every month). Held out: the same templates for 2025 (other items, other answers). Per seed, one training process
(launch.py) writes sft/ (the SFT-only model) and final/ (after GRPO from it); both are scored on the held-out items
with greedy decoding through the same agent loop and sandbox: mean graded reward (0-4.5) and tool-call validity
(share of items that need a call where every call parsed). Intervals are 95 % over seeds (mean ± 1.96·sd/√S) and pooled Wilson intervals for validity. Writes OUT/report.json and
prints a table. A tiny model trained for minutes on a CPU: report what it shows, including no lift.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if p not in ("", ".", str(Path(__file__).resolve().parent), str(ROOT))]
sys.path.append(str(ROOT))  # after site-packages: Hugging Face `datasets`, not the app

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

from benchmarks.engine.metrics import wilson_interval  # noqa: E402
from training.engine import rewards  # noqa: E402
from training.engine.data import load_examples  # noqa: E402
from training.engine.environment import ToolExecutor, run_episodes  # noqa: E402
from training.engine.presets import build_config  # noqa: E402
from training.engine.synthetic import write_holiday_export  # noqa: E402


def seed_interval(values: list[float], z: float = 1.96) -> tuple[float, float, float]:
    """(mean, low, high): mean ± z·sd/√S over seeds, unclamped (rewards are not rates)."""
    mean = sum(values) / len(values)
    half = z * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, mean - half, mean + half


def _request(example) -> str:
    return next((m.get("content") or "" for m in example.prompt if m.get("role") == "user"), "")


def evaluate(model_dir: Path, examples, sandbox_url: str) -> dict:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()

    def generate(contexts, max_new):
        out = []
        for context in contexts:
            with torch.no_grad():
                ids = model.generate(
                    torch.tensor([context]),
                    do_sample=False,
                    max_new_tokens=max_new,
                    eos_token_id=tokenizer.eos_token_id,
                    pad_token_id=tokenizer.pad_token_id,
                )
            out.append(ids[0, len(context) :].tolist())
        return out

    executor = ToolExecutor("sandbox", sandbox_url=sandbox_url)
    weights = rewards.reward_weights("graded")
    try:
        rollouts = run_episodes(examples, tokenizer, generate, executor, max_completion_length=160, max_turns=3)
    finally:
        executor.close()
    totals, valid, needs = [], 0, 0
    for example, rollout in zip(examples, rollouts, strict=True):
        totals.append(rewards.total(rewards.score(rollout.episode, example.gold), weights))
        if example.gold["calls"]:
            needs += 1
            valid += rewards.tool_call_valid(rollout.episode)
    return {"mean_reward": sum(totals) / len(totals), "valid": valid, "needs_call": needs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--sft-steps", type=int, default=30)
    parser.add_argument("--grpo-steps", type=int, default=6)
    parser.add_argument(
        "--sft-max-length",
        type=int,
        help="SFT sequence limit in tokens (default: the tiny-cpu preset's). A row longer than this loses its "
        "completion to truncation, so long tool prompts (EDGE trajectories) need more than the holiday ones.",
    )
    parser.add_argument(
        "--train",
        type=Path,
        help="train on this OpenAI JSONL instead: a frozen dataset version's (its export's openai/train.jsonl, or "
        "/trajectories/versions/<id>/openai.jsonl). The held-out items stay the synthesized 2025 holiday ones, so "
        "the version should hold trajectories of those templates. Default: synthesized 2026 holiday trajectories.",
    )
    parser.add_argument(
        "--heldout",
        type=Path,
        help="score on this OpenAI JSONL instead of the synthesized 2025 holiday items: held-out trajectories of "
        "the same templates as --train (e.g. a later synthesis run's export, kept out of the version). Lines whose "
        "request is also in --train are dropped, so nothing trained on is scored.",
    )
    options = parser.parse_args()
    for flag in ("train", "heldout"):
        if getattr(options, flag) is not None and not getattr(options, flag).is_file():
            parser.error(f"--{flag} {getattr(options, flag)} is not a file")
    from apis.sandbox.config import SandboxConfig
    from apis.sandbox.server import start_sandbox_server

    out = options.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    url, stop = start_sandbox_server(port=0, config=SandboxConfig(daily_quota=0))
    results = {"sft": [], "grpo": []}
    started = time.time()
    try:
        train_file = options.train.resolve() if options.train else None
        if train_file is None:
            train_file = write_holiday_export(out / "train.jsonl", url, [(2026, m) for m in range(1, 13)], brief=True)
        if options.heldout is not None:
            held_file = options.heldout.resolve()
            trained = {_request(e) for e in load_examples(train_file)}
            held = [e for e in load_examples(held_file) if _request(e) not in trained]
            if not held:
                parser.error(f"every held-out line of {held_file} is also in {train_file}")
        else:
            held_file = write_holiday_export(
                out / "heldout.jsonl", url, [(2025, m) for m in range(1, 13, 3)], brief=True
            )
            held = load_examples(held_file)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE")}
        for seed in options.seeds:
            run = out / f"seed-{seed}"
            config = build_config(
                preset="tiny-cpu",
                dataset=train_file,
                output_dir=run,
                overrides={
                    "seed": seed,
                    "sft.steps": options.sft_steps,
                    "sft.batch_size": 4,
                    "sft.learning_rate": 1e-2,
                    **({"sft.max_length": options.sft_max_length} if options.sft_max_length else {}),
                    "grpo.steps": options.grpo_steps,
                    "grpo.batch_size": 8,
                    "grpo.num_generations": 4,
                    "grpo.max_completion_length": 128,
                    "grpo.save_steps": 1000,
                },
                tools={"mode": "sandbox", "sandbox_url": url},
            )
            (run.parent / f"seed-{seed}.json").write_text(json.dumps(config), encoding="utf-8")
            log = (out / f"seed-{seed}.log").open("w", encoding="utf-8")
            code = subprocess.call(
                [sys.executable, "-P", str(ROOT / "training/engine/launch.py"), str(out / f"seed-{seed}.json")],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            if code:
                print(f"seed {seed}: training failed (see {out}/seed-{seed}.log)")
                return 1
            for name, folder in (("sft", run / "sft"), ("grpo", run / "final")):
                scored = evaluate(folder, held, url)
                results[name].append({"seed": seed, **scored})
                print(f"seed {seed} {name}: {scored}", flush=True)
    finally:
        stop()
    report = {
        "held_out_items": len(held),
        "heldout": str(held_file),
        "seeds": options.seeds,
        "train": str(train_file),
        "config": {
            **vars(options),
            "out": str(out),
            "train": str(options.train or ""),
            "heldout": str(options.heldout or ""),
        },
    }
    what = f"from {held_file.name}" if options.heldout else "(2025; templates count, first, none)"
    print(f"\n{len(held)} held-out items {what}, greedy decoding, {len(options.seeds)} seeds")
    print(f"{'model':<10} {'mean reward (95% CI over seeds)':<36} {'tool-call validity (pooled Wilson 95%)'}")
    for name, rows in results.items():
        mean, low, high = seed_interval([r["mean_reward"] for r in rows])
        valid, needs = sum(r["valid"] for r in rows), sum(r["needs_call"] for r in rows)
        v_low, v_high = wilson_interval(valid, needs)
        report[name] = {
            "runs": rows,
            "mean_reward": [mean, low, high],
            "validity": [valid / needs if needs else None, v_low, v_high],
        }
        print(f"{name:<10} {mean:.3f} [{low:.3f}, {high:.3f}]{'':<14} {valid}/{needs} [{v_low:.2f}, {v_high:.2f}]")
    report["wall_s"] = time.time() - started
    (out / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
