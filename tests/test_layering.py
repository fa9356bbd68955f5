"""The layering as a checked contract, read from the import statements of every module.

    kopa_site ← apis ← graphs ← datasets;  benchmarks ← apis;  training ← datasets, benchmarks, apis

An app may import only the apps to its left (kopa_site, the base, is imported by all). Engines (every
`*/engine/` package) and the sandbox (`apis/sandbox/`) are plain Python: no Django, no DRF, no queue, and
nothing of an app outside its engines and the sandbox. The composition roots (the URL confs and the main
job) name every app by design; nothing imports them.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("kopa_site", "apis", "graphs", "datasets", "benchmarks", "training")
MAY_IMPORT = {
    "kopa_site": set(),
    "apis": {"kopa_site"},
    "graphs": {"kopa_site", "apis"},
    "datasets": {"kopa_site", "apis", "graphs"},
    "benchmarks": {"kopa_site", "apis"},
    "training": {"kopa_site", "apis", "graphs", "datasets", "benchmarks"},
}
COMPOSITION_ROOTS = {"kopa_site/urls.py", "kopa_site/api/urls.py", "kopa_site/pipeline.py"}
DJANGO_FREE_PACKAGES = ("django", "rest_framework", "django_q", "django_filters", "drf_spectacular")
# The training process runs with the repository root last on sys.path (training/engine/launch.py), so there a
# bare `datasets` is Hugging Face's, which TRL needs; the app's modules are always `datasets.<module>`.
HF_DATASETS_IN = "training/engine/"


def _modules() -> list[Path]:
    return sorted(
        path
        for app in APPS
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts and "__pycache__" not in path.parts
    )


def _imports_in(source: str, package: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the source, function-level ones included."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.append((node.lineno, module))
    return found


@cache
def _imports(path: Path) -> list[tuple[int, str]]:
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    return _imports_in(path.read_text(encoding="utf-8"), package)


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _is_engine(module_or_path: str) -> bool:
    parts = module_or_path.replace("/", ".").removesuffix(".py").split(".")
    return (len(parts) > 1 and parts[1] == "engine") or parts[:2] == ["apis", "sandbox"]


def test_every_app_imports_only_the_apps_to_its_left():
    crossings = []
    for path in _modules():
        app, rel = path.relative_to(ROOT).parts[0], _rel(path)
        if rel in COMPOSITION_ROOTS:
            continue
        for line, module in _imports(path):
            top = module.split(".")[0]
            if top in APPS and top != app and top not in MAY_IMPORT[app]:
                crossings.append(f"{rel}:{line} imports {module}")
    assert not crossings, "imports against the layering:\n" + "\n".join(crossings)


def test_engines_and_the_sandbox_are_plain_python():
    engine_files = [path for path in _modules() if _is_engine(_rel(path))]
    assert len({_rel(p).split("/")[0] for p in engine_files}) >= 4, "the walk found the engine packages"
    offences = []
    for path in engine_files:
        for line, module in _imports(path):
            top = module.split(".")[0]
            if top in DJANGO_FREE_PACKAGES:
                offences.append(f"{_rel(path)}:{line} imports {module}")
            elif module == "datasets" and _rel(path).startswith(HF_DATASETS_IN):
                continue
            elif top in APPS and not _is_engine(module):
                offences.append(f"{_rel(path)}:{line} imports {module}, which is not an engine")
    assert not offences, "engines must not import Django or app modules:\n" + "\n".join(offences)


def test_nothing_imports_a_composition_root():
    roots = {root.removesuffix(".py").replace("/", ".") for root in COMPOSITION_ROOTS}
    importers = [
        f"{_rel(path)}:{line} imports {module}"
        for path in _modules()
        if _rel(path) not in COMPOSITION_ROOTS
        for line, module in _imports(path)
        if module in roots and not (module == "kopa_site.pipeline" and _rel(path).endswith("commands/pipeline.py"))
    ]
    assert not importers, "\n".join(importers)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from graphs.models import CandidateEdge", "graphs.models"),
        ("from .models import X", "apis.engine.models"),
        ("from . import errors", "apis.engine"),
        ("from ..sandbox import server", "apis.sandbox"),
        ("def f():\n    import django.db", "django.db"),
    ],
)
def test_the_reader_resolves_absolute_relative_and_local_imports(source, expected):
    assert _imports_in(source, "apis.engine")[0][1] == expected
