"""The training engine without TRL: export files, the sandbox/replay environment, the agent loop, presets, and
the training process's import isolation (checked in a subprocess)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from training.engine import rewards
from training.engine.data import DataError, load_examples
from training.engine.environment import (
    ToolEnvironmentError,
    ToolExecutor,
    episode_stats,
    run_episodes,
    tool_turn_text,
)
from training.engine.presets import ConfigError, build_config, check_checkpoint
from training.engine.synthetic import TOOL, write_holiday_export

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def export_file(tmp_path_factory, sandbox_server_url):
    return write_holiday_export(tmp_path_factory.mktemp("export") / "train.jsonl", sandbox_server_url, [(2026, 5)])


def test_examples_from_an_export(export_file):
    count, first, none = load_examples(export_file)
    assert count.prompt[-1] == {"role": "user", "content": "2026년 5월 공휴일은 몇 개야?"}
    assert count.prompt[0]["role"] == "system" and len(count.prompt) == 2
    assert count.clock == "2026-11-18T14:20:00+09:00"
    assert count.tool_names == [TOOL]
    assert count.gold["calls"] == [
        {"name": TOOL, "arguments": {"solYear": "2026", "solMonth": "05"}, "alternatives": {}}
    ]
    assert [r["dateName"] for r in count.gold["records"][0]][:2] == ["노동절", "어린이날"]
    assert count.gold["answer"].endswith("정답: 4개")
    assert first.gold["answer"].endswith("정답: 노동절")
    assert none.gold["calls"] == [] and none.gold["answer"].endswith("정답: 6월")


def test_the_datasets_exporters_lines_are_read(tmp_path):
    """Lines written by the app's exporter (openai and hf shapes) load as the same example."""
    from datasets.engine.export import hf_record, openai_record

    item = {
        "id": 7,
        "request": "2026년 5월 공휴일은 몇 개야?",
        "answer": "4개입니다.",
        "short_answer": "4개",
        "clock": "2026-11-18T14:20:00+09:00",
        "calls": [
            {
                "seq": 0,
                "round": 0,
                "name": TOOL,
                "arguments": {"solYear": "2026", "solMonth": "05"},
                "observation": {"ok": True, "records": [{"dateName": "노동절"}], "record_count": 1},
            }
        ],
        "schemas": [{"type": "function", "function": {"name": TOOL, "parameters": {"type": "object"}}}],
    }
    for build in (openai_record, hf_record):
        path = tmp_path / f"{build.__name__}.jsonl"
        path.write_text(json.dumps(build(item), ensure_ascii=False) + "\n", encoding="utf-8")
        (example,) = load_examples(path)
        assert example.gold["calls"][0]["arguments"] == {"solYear": "2026", "solMonth": "05"}
        assert example.gold["records"] == [[{"dateName": "노동절"}]]
        assert example.gold["answer"].endswith("정답: 4개")
        assert example.clock == "2026-11-18T14:20:00+09:00"


def test_bad_export_files_say_where(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        load_examples(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"messages": [{"role": "system", "content": "x"}]}\nnot json\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.jsonl:1: ValueError: no user message; bad.jsonl:2: JSONDecodeError"):
        load_examples(bad)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match="no trajectories"):
        load_examples(empty)


def test_replay_and_sandbox_execution(export_file, sandbox_server_url):
    count = load_examples(export_file)[0]
    replay = ToolExecutor("replay")
    hit = replay.execute(count, TOOL, {"solYear": 2026, "solMonth": "05", "pageNo": 1})
    assert hit.ok and hit.records == count.gold["records"][0]
    assert replay.execute(count, TOOL, {"solYear": "2025", "solMonth": "05"}).error_class == "replay.miss"
    assert replay.execute(count, "other_tool", {}).error_class == "call.unknown_tool"
    sandbox = ToolExecutor("sandbox", sandbox_url=sandbox_server_url)
    try:
        real = sandbox.execute(count, TOOL, {"solYear": "2026", "solMonth": "12"})
        assert real.ok and [r["dateName"] for r in real.records] == ["기독탄신일"]
        assert sandbox.execute(count, TOOL, {"solYear": "2026", "solMonth": "05"}).records == count.gold["records"][0]
    finally:
        sandbox.close()
    with pytest.raises(ToolEnvironmentError, match="sandbox URL"):
        ToolExecutor("sandbox")


def test_agent_loop_executes_calls_and_masks_tool_tokens(export_file, sandbox_server_url):
    """A scripted model calls the tool, reads the result and answers: every reward component is earned."""
    from transformers import AutoTokenizer

    from tests.support.tiny_model import cached_tiny_model

    tokenizer = AutoTokenizer.from_pretrained(cached_tiny_model())
    count = load_examples(export_file)[0]
    call = '<tool_call>\n{"name": "get_rest_de_info", "arguments": {"solYear": "2026", "solMonth": "05"}}\n</tool_call>'
    script = [call, "5월 공휴일은 4개입니다.\n정답: 4개"]
    seen = []

    def generate(contexts, max_new):
        seen.append(tokenizer.decode(contexts[0]))
        text = script[len(seen) - 1]
        return [tokenizer.encode(text, add_special_tokens=False) + [tokenizer.eos_token_id]]

    executor = ToolExecutor("sandbox", sandbox_url=sandbox_server_url)
    try:
        (rollout,) = run_episodes([count], tokenizer, generate, executor, max_completion_length=2048, max_turns=4)
    finally:
        executor.close()
    assert "<tools>" in seen[0] and '"get_rest_de_info"' in seen[0]
    assert "<tool_response>" in seen[1] and "어린이날" in seen[1]
    assert len(rollout.completion_ids) == len(rollout.env_mask)
    env_text = tokenizer.decode([t for t, m in zip(rollout.completion_ids, rollout.env_mask, strict=True) if m == 0])
    assert env_text.startswith("\n<|im_start|>user\n<tool_response>") and "어린이날" in env_text
    model_text = tokenizer.decode([t for t, m in zip(rollout.completion_ids, rollout.env_mask, strict=True) if m == 1])
    assert "<tool_call>" in model_text and "<tool_response>" not in model_text
    assert rollout.episode["answer"].endswith("정답: 4개")
    assert rewards.score(rollout.episode, count.gold) == {name: 1.0 for name in rewards.COMPONENTS}
    stats = episode_stats([rollout])
    assert stats["tools/call_frequency"] == 1.0 and stats["tools/failure_frequency"] == 0.0
    # The env text is what the chat template renders for a tool message.
    rendered = tokenizer.apply_chat_template(
        [*count.prompt, count.messages[2], count.messages[3]],
        tools=count.tools,
        tokenize=False,
        add_generation_prompt=True,
    )
    assert rendered.endswith(tool_turn_text([count.messages[3]["content"]]))


def test_presets_refuse_bad_checkpoints_and_overrides(tmp_path, export_file):
    with pytest.raises(ConfigError, match="does not exist"):
        check_checkpoint(tmp_path / "nope")
    with pytest.raises(ConfigError, match="no config.json"):
        check_checkpoint(tmp_path)
    (tmp_path / "config.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        check_checkpoint(tmp_path)
    (tmp_path / "config.json").write_text('{"model_type": "qwen3"}', encoding="utf-8")
    with pytest.raises(ConfigError, match="no weights"):
        check_checkpoint(tmp_path)
    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(ConfigError, match="no tokenizer"):
        check_checkpoint(tmp_path)
    (tmp_path / "tokenizer.json").write_text("{}", encoding="utf-8")
    assert check_checkpoint(tmp_path)["model_type"] == "qwen3"
    with pytest.raises(ConfigError, match="needs a base model"):
        build_config(preset="qwen-9b-lora", dataset=export_file, output_dir=tmp_path / "o")
    config = build_config(
        preset="qwen-9b-lora", dataset=export_file, output_dir=tmp_path / "o", base_model=str(tmp_path)
    )
    assert config["grpo"]["use_vllm"] and config["lora"]["r"] == 16 and config["grpo"]["bf16"]
    with pytest.raises(ConfigError, match="unknown override"):
        build_config(preset="tiny-cpu", dataset=export_file, output_dir=tmp_path, overrides={"grpo.nope": 1})
    with pytest.raises(ConfigError, match="multiple of grpo.num_generations"):
        build_config(preset="tiny-cpu", dataset=export_file, output_dir=tmp_path, overrides={"grpo.batch_size": 3})
    with pytest.raises(ConfigError, match="unknown reward preset"):
        build_config(preset="tiny-cpu", dataset=export_file, output_dir=tmp_path, overrides={"reward.preset": "x"})
    with pytest.raises(ConfigError, match="dataset file"):
        build_config(preset="tiny-cpu", dataset=tmp_path / "none.jsonl", output_dir=tmp_path)


@pytest.mark.slow
def test_training_process_imports_neither_django_nor_the_app_datasets():
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE")}
    result = subprocess.run(
        [sys.executable, "-P", str(ROOT / "training/engine/launch.py"), "--import-report"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["django"] == [] and report["app_modules"] == []
    assert "site-packages" in report["datasets_file"]
    assert not Path(report["datasets_file"]).resolve().is_relative_to((ROOT / "datasets").resolve())


def test_failure_frequency_counts_unreadable_and_failed_calls(export_file):
    from transformers import AutoTokenizer

    from tests.support.tiny_model import cached_tiny_model

    tokenizer = AutoTokenizer.from_pretrained(cached_tiny_model())
    count = load_examples(export_file)[0]
    blocks = [
        "{not json",
        '{"name": "get_rest_de_info", "arguments": {"solYear": "2025", "solMonth": "05"}}',  # replay.miss
        '{"name": "get_rest_de_info", "arguments": {"solYear": "2026", "solMonth": "05"}}',
    ]
    text = "".join(f"<tool_call>\n{b}\n</tool_call>" for b in blocks)

    def generate(contexts, max_new):
        return [tokenizer.encode(text, add_special_tokens=False) + [tokenizer.eos_token_id]]

    (rollout,) = run_episodes(
        [count], tokenizer, generate, ToolExecutor("replay"), max_completion_length=4096, max_turns=1
    )
    assert [c.get("ok") for c in rollout.episode["turns"][0]["calls"]] == [False, False, True]
    stats = episode_stats([rollout])
    assert stats["tools/failure_frequency"] == pytest.approx(2 / 3) and stats["tools/calls_per_episode"] == 3
    assert rewards.execution_reward(rollout.episode, count.gold) == 1.0
    assert rewards.format_reward(rollout.episode, count.gold) == pytest.approx((0.5 + 1 + 1) / 3)


def test_resume_skips_a_checkpoint_cut_off_while_saving(tmp_path):
    from training.engine.train import last_complete_checkpoint

    assert last_complete_checkpoint(tmp_path / "none") is None
    for step, files in ((1, ["trainer_state.json", "model.safetensors", "optimizer.pt"]), (2, ["model.safetensors"])):
        folder = tmp_path / f"checkpoint-{step}"
        folder.mkdir()
        for name in files:
            (folder / name).write_bytes(b"x")
    assert last_complete_checkpoint(tmp_path) == str(tmp_path / "checkpoint-1")
    assert not (tmp_path / "checkpoint-2").exists()


@pytest.mark.slow
def test_gpu_check_refuses_a_box_without_cuda_with_a_clear_error():
    """The check imports torch and TRL with the repository off the path (the app `datasets` must not shadow
    Hugging Face's), then refuses to start without a CUDA device, saying what it needs."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("this box has a GPU: the check would run")
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"} | {"PYTHON": sys.executable}
    result = subprocess.run(
        ["bash", str(ROOT / "training/gpu_check.sh")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2, result.stderr[-2000:]
    assert "no CUDA device" in result.stderr and "needs a CUDA GPU" in result.stderr
    assert "shadows" not in result.stderr and "django" not in result.stderr.lower()


def test_research_check_refuses_missing_train_and_heldout_files(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE")}
    for flag in ("--train", "--heldout"):
        result = subprocess.run(
            [sys.executable, "-P", str(ROOT / "training/research_check.py"), str(tmp_path), flag, "/nowhere.jsonl"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 2
        assert f"{flag} /nowhere.jsonl is not a file" in result.stderr
