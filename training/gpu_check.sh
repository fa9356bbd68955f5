#!/usr/bin/env bash
# GPU check of the training path: ~20 GRPO steps of a ~0.5B-parameter Qwen3-architecture model built from config,
# vLLM colocate generation, tool calls executed against an in-process sandbox; prints step time and tokens/s.
#
#   pip install -r requirements-gpu.txt        # vllm 0.31.0, transformers 5.17.0, trl 1.16.0, peft; torch 2.13 CUDA
#   training/gpu_check.sh [OUT] [STEPS]         # default var/training/gpu-check, 20 steps
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"
OUT="${1:-var/training/gpu-check}"
STEPS="${2:-20}"
"$PYTHON" -P -c "import torch, trl; assert torch.cuda.is_available(), 'no CUDA device'" \
  || { echo "the GPU check needs a CUDA GPU and: pip install -r requirements-gpu.txt" >&2; exit 2; }
# Without vLLM the check still runs, generating with transformers, and its output says so.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRL_EXPERIMENTAL_SILENCE=1
# launch.py takes the repository off the front of sys.path itself, so a PYTHONPATH of carried wheels may stay.
exec env -u DJANGO_SETTINGS_MODULE "$PYTHON" -P training/engine/launch.py --gpu-check "$OUT" "$STEPS"
