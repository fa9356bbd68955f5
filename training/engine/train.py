"""The training process: SFT warm start, then GRPO with TRL over real tool execution. Never imports Django.

Started as `python -P training/engine/launch.py CONFIG.json` (launch.py keeps the app `datasets` off the path, so
`import datasets` is Hugging Face's). It reads the config (training/engine/presets.py builds it) and the export
file it names, and writes under the config's output_dir:

- metrics.jsonl: one JSON object per logged step ({"phase": "sft"|"grpo", "step", "loss", "reward",
  "rewards/<component>/mean", "kl", "tools/call_frequency", "tools/failure_frequency",
  "completions/mean_length", "tokens_per_s", ...}); each line is also printed as "METRIC {...}";
- progress lines "PROGRESS done/total phase" on stdout;
- sft/ (the warm-started model, with a DONE marker), grpo/checkpoint-N (TRL checkpoints: weights, optimizer,
  scheduler, RNG), final/ (the trained model and tokenizer, LoRA merged), result.json;
- failure.json ({"reason": one line, "error": type}) and exit code 1 when it fails.

Running it again on the same output_dir resumes: a finished SFT is skipped and GRPO continues from the last
checkpoint.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from training.engine.data import Example, load_examples, prompt_key
from training.engine.environment import episode_stats, executor_from_config, run_episodes
from training.engine.rewards import SCORERS, reward_weights

METRIC_PREFIX = "METRIC "
PROGRESS_PREFIX = "PROGRESS "
RESULT_PREFIX = "RESULT "
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRL_EXPERIMENTAL_SILENCE": "1",
}
# Progress bars redraw with "\r" on stderr, which shares the job's pipe: they would split the METRIC lines.
QUIET = {"TQDM_DISABLE": "1", "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}


class TrainingFailure(RuntimeError):
    """A failure with a reason a person can act on (as opposed to a crash inside a library)."""


class MetricsWriter:
    def __init__(self, path: Path):
        self.path = path
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, record: dict[str, Any]) -> None:
        clean = {k: v for k, v in record.items() if not (isinstance(v, float) and not math.isfinite(v))}
        line = json.dumps(clean, ensure_ascii=False, default=str)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
        print("\n" + METRIC_PREFIX + line, flush=True)  # on a line of its own, whatever was printed before


def progress(done: int, total: int, phase: str) -> None:
    print(f"\n{PROGRESS_PREFIX}{done}/{total} {phase}", flush=True)


def _callback(writer: MetricsWriter, phase: str, total_steps: int, extra: dict[str, list[float]] | None = None):
    from transformers import TrainerCallback

    class Metrics(TrainerCallback):
        def __init__(self):
            self.last_time = time.perf_counter()
            self.last_tokens = None

        def on_log(self, args, state, control, logs=None, **kwargs):
            logs = dict(logs or {})
            if "train_runtime" in logs:  # the closing summary, not a step
                return
            now = time.perf_counter()
            record: dict[str, Any] = {"phase": phase, "step": state.global_step, "t": time.time()}
            for key, value in logs.items():
                if isinstance(value, int | float):
                    record[key] = float(value)
            tokens = logs.get("num_tokens", state.num_input_tokens_seen or None)
            if tokens is not None and self.last_tokens is not None and now > self.last_time:
                record["tokens_per_s"] = (float(tokens) - self.last_tokens) / (now - self.last_time)
            self.last_tokens = float(tokens) if tokens is not None else None
            record["step_time_s"] = now - self.last_time
            self.last_time = now
            for key, values in (extra or {}).items():
                if values:
                    record[key] = sum(values) / len(values)
                    values.clear()
            writer.write(record)
            progress(state.global_step, total_steps, phase)

    return Metrics()


def _seed(seed: int) -> None:
    import numpy
    import torch

    random.seed(seed)
    numpy.random.seed(seed)
    torch.manual_seed(seed)


# ---------------------------------------------------------------------------------------------- SFT


def sft_rows(examples: list[Example], tokenizer) -> list[dict[str, str]]:
    """Prompt/completion text pairs, one per assistant turn: the conversation rendered up to the turn (tool results
    included), and the turn itself. Only assistant turns are learned; tool results are context, never targets."""
    rows = []
    for example in examples:
        for index, message in enumerate(example.messages):
            if message.get("role") != "assistant" or index == 0:
                continue
            prompt = tokenizer.apply_chat_template(
                example.messages[:index], tools=example.tools, add_generation_prompt=True, tokenize=False
            )
            full = tokenizer.apply_chat_template(example.messages[: index + 1], tools=example.tools, tokenize=False)
            if not full.startswith(prompt):
                raise TrainingFailure(
                    f"example {example.id}: the chat template does not render turn {index} after its prefix"
                )
            rows.append({"prompt": prompt, "completion": full[len(prompt) :]})
    return rows


def run_sft(config: dict[str, Any], examples: list[Example], base: Path, out: Path, writer: MetricsWriter) -> Path:
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    from datasets import Dataset

    sft = config["sft"]
    done = out / "DONE"
    if done.exists():
        print(f"SFT already finished in {out}; skipping it", flush=True)
        return out
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForCausalLM.from_pretrained(base, dtype=_dtype(config))
    cpu = config["device"] == "cpu"
    args = SFTConfig(
        output_dir=str(out / "trainer"),
        max_steps=sft["steps"],
        per_device_train_batch_size=sft["batch_size"],
        learning_rate=sft["learning_rate"],
        max_length=sft["max_length"],
        completion_only_loss=True,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=cpu,
        bf16=config["grpo"]["bf16"] and not cpu,
        gradient_checkpointing=config["grpo"]["gradient_checkpointing"],
        seed=config["seed"],
        dataloader_num_workers=0,
        lr_scheduler_type="constant",
        disable_tqdm=True,
    )
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list(sft_rows(examples, tokenizer)),
        processing_class=tokenizer,
        peft_config=_lora(config),
        callbacks=[_callback(writer, "sft", sft["steps"])],
    )
    trainer.train()
    _save(trainer.model, tokenizer, out)
    done.write_text("ok\n", encoding="utf-8")
    return out


def _dtype(config: dict[str, Any]):
    import torch

    return torch.bfloat16 if config["grpo"]["bf16"] and config["device"] != "cpu" else torch.float32


def _lora(config: dict[str, Any]):
    if not config.get("lora"):
        return None
    try:
        from peft import LoraConfig
    except ImportError:
        raise TrainingFailure("LoRA presets need peft (pip install -r requirements-gpu.txt)") from None
    lora = config["lora"]
    return LoraConfig(
        r=lora["r"],
        lora_alpha=lora["alpha"],
        lora_dropout=lora.get("dropout", 0.0),
        target_modules=lora["target_modules"],
        task_type="CAUSAL_LM",
    )


def _save(model, tokenizer, out: Path) -> None:
    if hasattr(model, "merge_and_unload"):  # a LoRA adapter: save a full model the benchmark can load
        model = model.merge_and_unload()
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


# --------------------------------------------------------------------------------------------- GRPO


def _hf_generate(trainer, tokenizer, temperature: float):
    import torch

    def generate(contexts: list[list[int]], max_new: int) -> list[list[int]]:
        model = trainer.accelerator.unwrap_model(trainer.model)
        width = max(len(c) for c in contexts)
        pad = tokenizer.pad_token_id
        ids = torch.tensor([[pad] * (width - len(c)) + c for c in contexts], device=model.device)
        mask = torch.tensor([[0] * (width - len(c)) + [1] * len(c) for c in contexts], device=model.device)
        was_training = model.training
        model.eval()
        try:
            with torch.no_grad():
                output = model.generate(
                    input_ids=ids,
                    attention_mask=mask,
                    do_sample=True,
                    temperature=temperature,
                    top_p=1.0,
                    top_k=0,
                    max_new_tokens=max_new,
                    pad_token_id=pad,
                    eos_token_id=tokenizer.eos_token_id,
                    use_cache=True,
                )
        finally:
            model.train(was_training)
        rows = []
        for row in output[:, width:].tolist():
            if tokenizer.eos_token_id in row:
                row = row[: row.index(tokenizer.eos_token_id) + 1]
            while row and row[-1] == pad:
                row.pop()
            rows.append(row)
        return rows

    return generate


def _vllm_generate(trainer):
    def generate(contexts: list[list[int]], max_new: int) -> list[list[int]]:
        _, completion_ids, _, _ = trainer.vllm_generation.generate(prompts=contexts, images=None, num_generations=1)
        return [list(c)[:max_new] for c in completion_ids]

    return generate


def make_rollout(examples: list[Example], tokenizer, executor, config: dict[str, Any], extra: dict[str, list[float]]):
    by_key = {}
    for example in examples:
        by_key.setdefault(example.key(), example)
    grpo = config["grpo"]

    def rollout(prompts: list, trainer) -> dict[str, Any]:
        chosen = [by_key[prompt_key(p)] for p in prompts]
        generate = (
            _vllm_generate(trainer) if grpo["use_vllm"] else _hf_generate(trainer, tokenizer, grpo["temperature"])
        )
        rollouts = run_episodes(
            chosen,
            tokenizer,
            generate,
            executor,
            max_completion_length=grpo["max_completion_length"],
            max_turns=grpo["max_turns"],
        )
        for key, value in episode_stats(rollouts).items():
            extra.setdefault(key, []).append(value)
        return {
            "prompt_ids": [r.prompt_ids for r in rollouts],
            "completion_ids": [r.completion_ids for r in rollouts],
            "logprobs": None,
            "env_mask": [r.env_mask for r in rollouts],
            "episode": [r.episode for r in rollouts],
        }

    return rollout


def reward_functions(names: list[str]):
    """One TRL reward function per component, named after it (TRL logs rewards/<name>/mean)."""

    def make(name: str):
        scorer = SCORERS[name]

        def reward(prompts, completions, episode, gold, **kwargs) -> list[float]:
            return [scorer(e, json.loads(g)) for e, g in zip(episode, gold, strict=True)]

        reward.__name__ = name
        return reward

    return [make(n) for n in names]


def last_complete_checkpoint(out: Path) -> str | None:
    """The newest checkpoint-N that was written to the end (trainer state, weights, optimizer). A process killed
    while saving (cancel) leaves a partial folder: it is removed, so the run resumes from the one before."""
    import shutil

    if not out.is_dir():
        return None
    folders = [p for p in out.glob("checkpoint-*") if p.is_dir() and p.name.split("-")[-1].isdigit()]
    for folder in sorted(folders, key=lambda p: int(p.name.split("-")[-1]), reverse=True):
        weights = any(folder.glob("*.safetensors")) or any(folder.glob("*.bin"))
        if (folder / "trainer_state.json").is_file() and weights and (folder / "optimizer.pt").is_file():
            return str(folder)
        print(f"removing the incomplete checkpoint {folder}", flush=True)
        shutil.rmtree(folder, ignore_errors=True)
    return None


def run_grpo(config: dict[str, Any], examples: list[Example], start: Path, out: Path, writer: MetricsWriter) -> Path:
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from datasets import Dataset

    grpo = config["grpo"]
    weights = reward_weights(config["reward"]["preset"], config["reward"].get("weights"))
    names = list(weights)
    tokenizer = AutoTokenizer.from_pretrained(start)
    model = AutoModelForCausalLM.from_pretrained(start, dtype=_dtype(config))
    executor = executor_from_config(config["tools"])
    executor.check(examples)
    cpu = config["device"] == "cpu"
    args = GRPOConfig(
        output_dir=str(out),
        max_steps=grpo["steps"],
        per_device_train_batch_size=grpo["batch_size"],
        gradient_accumulation_steps=grpo["gradient_accumulation_steps"],
        num_generations=grpo["num_generations"],
        max_completion_length=grpo["max_completion_length"],
        learning_rate=grpo["learning_rate"],
        temperature=grpo["temperature"],
        beta=grpo["beta"],
        reward_weights=[weights[n] for n in names],
        logging_steps=1,
        save_strategy="steps",
        save_steps=grpo["save_steps"],
        report_to="none",
        use_cpu=cpu,
        bf16=grpo["bf16"] and not cpu,
        gradient_checkpointing=grpo["gradient_checkpointing"],
        seed=config["seed"],
        dataloader_num_workers=0,
        disable_tqdm=True,
        remove_unused_columns=False,
        use_vllm=grpo["use_vllm"],
        vllm_mode=grpo["vllm_mode"],
        vllm_gpu_memory_utilization=grpo["vllm_gpu_memory_utilization"],
        vllm_importance_sampling_correction=False,  # the rollout returns no logprobs (tool tokens are not sampled)
    )
    extra: dict[str, list[float]] = {}
    dataset = Dataset.from_list(
        [{"prompt": e.prompt, "gold": json.dumps(e.gold, ensure_ascii=False)} for e in examples]
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=reward_functions(names),
        args=args,
        train_dataset=dataset,
        processing_class=tokenizer,
        peft_config=_lora(config),
        rollout_func=make_rollout(examples, tokenizer, executor, config, extra),
        callbacks=[_callback(writer, "grpo", grpo["steps"], extra)],
    )
    last = last_complete_checkpoint(out)
    if last:
        print(f"resuming GRPO from {last}", flush=True)
    try:
        trainer.train(resume_from_checkpoint=last)
    finally:
        executor.close()
    final = out.parent / "final"
    _save(trainer.model, tokenizer, final)
    return final


# ---------------------------------------------------------------------------------------------- main


def base_model(config: dict[str, Any], out: Path) -> Path:
    model = config["model"]
    if model.get("path"):
        return Path(model["path"])
    if model.get("build"):
        from training.engine.tiny import build_tiny_model

        target = out / "base"
        if not (target / "model.safetensors").exists():
            build_tiny_model(target, seed=0, size=model["build"])
        return target
    raise TrainingFailure("the config names no base model")


def train(config: dict[str, Any]) -> dict[str, Any]:
    os.environ.update(OFFLINE | QUIET)
    out = Path(config["output_dir"])
    out.mkdir(parents=True, exist_ok=True)
    (out / "failure.json").unlink(missing_ok=True)
    writer = MetricsWriter(out / "metrics.jsonl")
    _seed(config["seed"])
    examples = load_examples(config["dataset"])
    print(f"{len(examples)} trajectories from {config['dataset']}", flush=True)
    start = base_model(config, out)
    if config["sft"]["steps"] > 0:
        start = run_sft(config, examples, start, out / "sft", writer)
    final = run_grpo(config, examples, start, out / "grpo", writer)
    result = {"checkpoint": str(final), "base": str(base_model(config, out)), "examples": len(examples)}
    (out / "result.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(RESULT_PREFIX + json.dumps(result), flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -P training/engine/launch.py CONFIG.json", file=sys.stderr)
        return 2
    config_path = Path(argv[0])
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        print(f"cannot read config {config_path}: {error}", file=sys.stderr)
        return 2
    try:
        train(config)
    except Exception as error:  # every failure leaves its reason next to the outputs
        traceback.print_exc()
        reason = " ".join(f"{type(error).__name__}: {error}".split())[:500]
        failure = Path(config["output_dir"]) / "failure.json"
        failure.parent.mkdir(parents=True, exist_ok=True)
        failure.write_text(json.dumps({"reason": reason, "error": type(error).__name__}), encoding="utf-8")
        print(f"FAILED {reason}", flush=True)
        return 1
    return 0
