"""Plain-Python training engine: rewards, data, the sandbox environment and the GRPO process.

Nothing here imports Django or the app `datasets` (it shadows Hugging Face `datasets`, which TRL imports).
Only train.py and tiny.py import torch, transformers or trl, and only inside the training process
(`python -P training/engine/launch.py CONFIG`), so the web and queue processes can import the rest.
"""
