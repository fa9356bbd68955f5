"""The engines stay importable by the web and queue processes: no Django, and no torch or transformers until
the transformers backend actually loads a model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
MODULES = [
    "benchmarks.engine.task",
    "benchmarks.engine.checkers",
    "benchmarks.engine.canonical",
    "benchmarks.engine.runner",
    "benchmarks.engine.metrics",
    "benchmarks.engine.accounting",
    "benchmarks.engine.vllm_launcher",
    "benchmarks.engine.cli",
    "benchmarks.engine.backends",
    "benchmarks.engine.backends.openai_http",
    "benchmarks.engine.backends.oracle",
    "benchmarks.engine.backends.scripted",
    "benchmarks.engine.backends.transformers_local",
]


def test_importing_the_engines_pulls_in_no_django_torch_or_transformers():
    code = "import sys\n" + "".join(f"import {m}\n" for m in MODULES)
    code += "print(','.join(sorted(m for m in ('django', 'torch', 'transformers', 'vllm') if m in sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
