"""Training presets and the run config the training process reads (plain Python, no Django, no torch).

A run's config is a preset's defaults with the user's overrides merged in (`build_config`), written as JSON next
to the run's outputs. `check_config` refuses a malformed config, and `check_checkpoint` a base-model folder that
is missing or is not a transformers checkpoint, so a bad run never reaches the GPU queue.

Presets:
- `tiny-cpu`: a small Qwen3-architecture model and byte-level BPE tokenizer built from config
  (training/engine/tiny.py, no base folder needed), SFT warm start so tool calls occur, then GRPO; CPU, minutes.
- `qwen-4b-lora`, `qwen-9b-lora`, `qwen-4b-full`, `qwen-9b-full`: a Qwen-family checkpoint from a local folder the
  user names, bf16, gradient checkpointing, vLLM colocate generation (requirements-gpu.txt); LoRA (peft) or
  full fine-tuning.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from training.engine.rewards import RewardError, reward_weights

_GRPO_BASE = {
    "steps": 200,
    "learning_rate": 1e-6,
    "batch_size": 8,  # prompts x generations per device step; a multiple of num_generations
    "num_generations": 8,
    "max_completion_length": 2048,
    "max_turns": 4,
    "temperature": 1.0,
    "beta": 0.04,
    "save_steps": 50,
    "gradient_accumulation_steps": 1,
    "use_vllm": True,
    "vllm_mode": "colocate",
    "vllm_gpu_memory_utilization": 0.35,
    "gradient_checkpointing": True,
    "bf16": True,
}
_SFT_BASE = {"steps": 0, "learning_rate": 1e-5, "batch_size": 4, "max_length": 8192}

PRESETS: dict[str, dict[str, Any]] = {
    "tiny-cpu": {
        "description": "Tiny Qwen3-architecture model built from config; CPU; SFT warm start then GRPO.",
        "device": "cpu",
        "model": {"build": "tiny", "family": "tiny-qwen3"},
        "sft": {"steps": 120, "learning_rate": 5e-3, "batch_size": 8, "max_length": 1536},
        "grpo": {
            **_GRPO_BASE,
            "steps": 20,
            "learning_rate": 1e-4,
            "batch_size": 4,
            "num_generations": 4,
            "max_completion_length": 256,
            "max_turns": 3,
            "save_steps": 10,
            "use_vllm": False,
            "gradient_checkpointing": False,
            "bf16": False,
        },
        "lora": None,
    },
}
for _size, _lr_full, _lr_lora in (("4b", 1e-6, 1e-5), ("9b", 5e-7, 5e-6)):
    for _kind in ("lora", "full"):
        PRESETS[f"qwen-{_size}-{_kind}"] = {
            "description": f"Qwen-family {_size.upper()} checkpoint from a local folder; {_kind}; bf16; vLLM colocate.",
            "device": "cuda",
            "model": {"build": None, "family": "Qwen"},
            "sft": {**_SFT_BASE},
            "grpo": {**_GRPO_BASE, "learning_rate": _lr_lora if _kind == "lora" else _lr_full},
            "lora": (
                {"r": 16, "alpha": 32, "dropout": 0.05, "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj"]}
                if _kind == "lora"
                else None
            ),
        }

OVERRIDABLE = {
    "seed": int,
    "sft.steps": int,
    "sft.learning_rate": float,
    "sft.batch_size": int,
    "sft.max_length": int,
    "grpo.steps": int,
    "grpo.learning_rate": float,
    "grpo.batch_size": int,
    "grpo.num_generations": int,
    "grpo.max_completion_length": int,
    "grpo.max_turns": int,
    "grpo.temperature": float,
    "grpo.beta": float,
    "grpo.save_steps": int,
    "grpo.gradient_accumulation_steps": int,
    "grpo.vllm_gpu_memory_utilization": float,
    "reward.preset": str,
    "reward.weights": dict,
}
WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.json", "tokenizer.model")


class ConfigError(ValueError):
    """A preset, override or base model that cannot start a run; the message says what to fix."""


def preset_choices() -> list[tuple[str, str]]:
    return [(name, f"{name}: {preset['description']}") for name, preset in PRESETS.items()]


def check_checkpoint(path: str | Path) -> dict[str, Any]:
    """The checkpoint's config.json, or ConfigError saying why the folder is not a usable checkpoint."""
    folder = Path(path)
    if not str(path).strip():
        raise ConfigError("this preset needs a base model: the path of a local checkpoint folder")
    if not folder.is_absolute():
        raise ConfigError(f"base model path {str(path)!r} must be absolute")
    if not folder.is_dir():
        raise ConfigError(f"base model folder {folder} does not exist")
    config_file = folder / "config.json"
    if not config_file.is_file():
        raise ConfigError(f"{folder} has no config.json: not a transformers checkpoint")
    try:
        config = json.loads(config_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(f"{config_file} is not valid JSON ({error})") from None
    if not isinstance(config, dict) or not config.get("model_type"):
        raise ConfigError(f"{config_file} has no model_type")
    if not any((folder / name).is_file() for name in WEIGHT_FILES) and not list(folder.glob("*.safetensors")):
        raise ConfigError(f"{folder} has no weights (model.safetensors or pytorch_model.bin)")
    if not any((folder / name).is_file() for name in TOKENIZER_FILES):
        raise ConfigError(f"{folder} has no tokenizer (tokenizer.json or tokenizer_config.json)")
    return config


def _set(config: dict[str, Any], dotted: str, value: Any) -> None:
    caster = OVERRIDABLE.get(dotted)
    if caster is None:
        raise ConfigError(f"unknown override {dotted!r}; allowed: {', '.join(sorted(OVERRIDABLE))}")
    if caster is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{dotted} must be an object")
    else:
        if isinstance(value, bool) or (caster is not str and not isinstance(value, int | float | str)):
            raise ConfigError(f"{dotted} must be a number")
        try:
            value = caster(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{dotted} must be {'a whole number' if caster is int else 'a number'}") from None
    section, _, key = dotted.rpartition(".")
    (config[section] if section else config)[key] = value


def check_config(config: Mapping[str, Any]) -> None:
    grpo, sft = config["grpo"], config["sft"]
    for name in ("steps", "batch_size", "num_generations", "max_completion_length", "max_turns", "save_steps"):
        if grpo[name] < 1:
            raise ConfigError(f"grpo.{name} must be at least 1")
    if grpo["num_generations"] < 2:
        raise ConfigError("grpo.num_generations must be at least 2 (GRPO compares generations of one prompt)")
    if grpo["batch_size"] % grpo["num_generations"]:
        raise ConfigError("grpo.batch_size must be a multiple of grpo.num_generations")
    if grpo["learning_rate"] <= 0 or sft["learning_rate"] <= 0:
        raise ConfigError("learning rates must be positive")
    if grpo["beta"] < 0 or not 0 < grpo["temperature"] <= 2:
        raise ConfigError("grpo.beta must be >= 0 and grpo.temperature in (0, 2]")
    if sft["steps"] < 0 or sft["batch_size"] < 1 or sft["max_length"] < 16:
        raise ConfigError("sft.steps must be >= 0, sft.batch_size >= 1, sft.max_length >= 16")
    try:
        reward_weights(config["reward"]["preset"], config["reward"].get("weights"))
    except RewardError as error:
        raise ConfigError(str(error)) from None


def build_config(
    *,
    preset: str,
    dataset: str | Path,
    output_dir: str | Path,
    base_model: str = "",
    overrides: Mapping[str, Any] | None = None,
    tools: Mapping[str, Any] | None = None,
    run_id: int | None = None,
    dataset_written_later: bool = False,
) -> dict[str, Any]:
    """The full run config: the preset, the overrides (dotted keys), paths and the tool environment.

    dataset_written_later: the data file is written by the job before the process starts (a frozen version's
    items), so it need not exist yet."""
    if preset not in PRESETS:
        raise ConfigError(f"unknown preset {preset!r}; expected one of {', '.join(PRESETS)}")
    chosen = copy.deepcopy(PRESETS[preset])
    model = dict(chosen["model"])
    if model["build"]:
        if base_model:
            check_checkpoint(base_model)
        model["path"] = str(base_model or "")
    else:
        check_checkpoint(base_model)
        model["path"] = str(base_model)
    dataset = Path(dataset)
    if not dataset_written_later and not dataset.is_file():
        raise ConfigError(f"dataset file {dataset} does not exist")
    config = {
        "run_id": run_id,
        "preset": preset,
        "device": chosen["device"],
        "seed": 0,
        "dataset": str(dataset),
        "output_dir": str(output_dir),
        "model": model,
        "sft": chosen["sft"],
        "grpo": chosen["grpo"],
        "lora": chosen["lora"],
        "reward": {"preset": "graded", "weights": {}},
        "tools": dict(tools or {"mode": "replay"}),
    }
    for dotted, value in (overrides or {}).items():
        _set(config, dotted, value)
    check_config(config)
    return config
