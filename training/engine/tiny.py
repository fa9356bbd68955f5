"""A small Qwen3-architecture causal LM and a byte-level BPE tokenizer, built from a config (no hub access).

The tokenizer is trained on a synthetic corpus mixing Korean, English, numbers and tool-call JSON; the tool and
think tags are ordinary (non-special) added tokens, as in Qwen, so decoding keeps them. The chat template is
TRL's qwen3 template byte for byte (benchmarks/engine/chat_templates/qwen3.jinja): TRL recognises templates
by exact text. The default size (about 200k weights) is the tiny-cpu preset and the tests' model;
`SIZES["qwen3-0.5b"]` is the ~0.5B-parameter shape the GPU check builds.

    python -P training/engine/tiny.py OUT [--size qwen3-0.5b]
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repo root goes last, so HF `datasets` wins over the app
    sys.path.append(str(Path(__file__).resolve().parents[2]))

from benchmarks.engine.backends.transformers_local import chat_template

TOOL_TAGS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]

# Qwen3 shapes: the tiny one of the tests, and one about the size of Qwen3-0.6B (without its 151k vocabulary).
SIZES = {
    "tiny": {
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
    },
    "qwen3-0.5b": {
        "hidden_size": 1024,
        "intermediate_size": 3072,
        "num_hidden_layers": 28,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 128,
    },
}

_KOREAN = [
    "서울",
    "부산",
    "종로구",
    "강남구",
    "역삼동",
    "중구",
    "법정동",
    "코드",
    "아파트",
    "매매",
    "실거래가",
    "공휴일",
    "국경일",
    "미세먼지",
    "초미세먼지",
    "측정소",
    "인구",
    "세대",
    "날씨",
    "기온",
    "강수",
    "예보",
    "버스",
    "정류소",
    "도착",
    "정보",
    "조회",
    "결과",
    "페이지",
    "정답",
    "입니다",
    "알려줘",
    "몇",
    "개",
    "가장",
    "비싼",
    "거래",
    "금액",
    "만원",
    "원",
    "명",
    "예",
    "아니오",
    "지난달",
    "이번",
    "달",
    "오늘",
    "내일",
    "현재",
    "시각",
]
_ENGLISH = [
    "the",
    "weather",
    "price",
    "region",
    "code",
    "page",
    "number",
    "rows",
    "total",
    "count",
    "answer",
    "tool",
    "call",
    "result",
    "error",
]
_TOOLS = ["get_stan_regin_cd_list", "get_rtms_data_svc_apt_trade", "get_rest_de_info", "get_weather"]


def corpus(seed: int = 0, lines: int = 8000) -> list[str]:
    """Synthetic lines mixing Korean, English, numbers and tool-call JSON, so BPE learns all of them."""
    rng = random.Random(seed)
    out = []
    for index in range(lines):
        kind = index % 4
        if kind == 0:
            out.append(" ".join(rng.choice(_KOREAN) for _ in range(rng.randint(4, 12))))
        elif kind == 1:
            out.append(" ".join(rng.choice(_ENGLISH) for _ in range(rng.randint(4, 12))))
        elif kind == 2:
            args = {"LAWD_CD": str(rng.randint(11000, 50000)), "DEAL_YMD": f"2026{rng.randint(1, 12):02d}"}
            call = {"name": rng.choice(_TOOLS), "arguments": args}
            out.append("<tool_call>\n" + json.dumps(call, ensure_ascii=False) + "\n</tool_call>")
        else:
            out.append(f"정답: {rng.randint(1, 999_999):,}{rng.choice(['만원', '원', '명', '건', ''])}")
    return out


def build_tiny_model(out: Path, *, seed: int = 0, size: str = "tiny") -> Path:
    """Write tokenizer, chat template, config and random weights to `out`; returns it."""
    import torch
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GenerationConfig, PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=2048,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus(seed), trainer)
    # Tool and think tags are ordinary added tokens, as in Qwen: decoding with skip_special_tokens keeps them.
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t in TOOL_TAGS])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        padding_side="left",
        model_max_length=32768,
    )
    tokenizer.chat_template = chat_template("qwen3")
    tokenizer.save_pretrained(out)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        **SIZES[size],
        # RoPE has no learned positions, so a long limit costs nothing and tool prompts fit.
        max_position_embeddings=32768,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = Qwen3ForCausalLM(config)
    model.generation_config = GenerationConfig(eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    model.save_pretrained(out)
    return out


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Build a Qwen3-architecture model and tokenizer from config.")
    parser.add_argument("out", type=Path)
    parser.add_argument("--size", choices=sorted(SIZES), default="tiny")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    print(build_tiny_model(options.out, seed=options.seed, size=options.size))
