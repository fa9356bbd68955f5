"""Entry point of the training process: `python -P training/engine/launch.py CONFIG.json`.

The app `datasets/` at the repository root would shadow Hugging Face `datasets`, which TRL imports. So the root
is appended at the END of sys.path (site-packages first: `import datasets` is Hugging Face's, while
`training`, `benchmarks` and `apis`, which are not installed packages, still resolve to the repository), `-P`
keeps this script's folder off the path, and Hugging Face `datasets` is imported before anything else. Django is
never imported: the engine modules do not use it.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = str(Path(__file__).resolve().parent)
sys.path[:] = [p for p in sys.path if p not in ("", ".", HERE, str(ROOT))]
sys.path.append(str(ROOT))

import datasets  # noqa: E402  (Hugging Face's, pinned before the repository is searched)

if Path(datasets.__file__).resolve().is_relative_to((ROOT / "datasets").resolve()):
    raise SystemExit(f"the app datasets/ shadows Hugging Face datasets ({datasets.__file__}); run with python -P")

from training.engine.train import main  # noqa: E402


def import_report() -> dict:
    """What the process imported: proof that Django and the app `datasets` stay out (tests/training)."""
    import trl  # noqa: F401  (the heavy part, imported as training does)

    return {
        "datasets_file": datasets.__file__,
        "django": sorted(m for m in sys.modules if m == "django" or m.startswith("django.")),
        "app_modules": sorted(
            m
            for m in sys.modules
            if (getattr(sys.modules[m], "__file__", None) or "").startswith(str(ROOT / "datasets"))
        ),
        "root_last": sys.path[-1] == str(ROOT),
    }


if __name__ == "__main__":
    if sys.argv[1:2] == ["--gpu-check"]:
        from training.engine.gpu_check import main as gpu_check

        raise SystemExit(gpu_check(sys.argv[2:]))
    if sys.argv[1:] == ["--import-report"]:
        import json

        print(json.dumps(import_report()))
        raise SystemExit(0)
    raise SystemExit(main())
