"""Readers for the seed tables in apis/sandbox/seeds/ (CSV, optionally gzipped); provenance in PROVENANCE.md."""

from __future__ import annotations

import csv
import gzip
import io
from functools import cache
from pathlib import Path

SEED_DIR = Path(__file__).resolve().parent.parent / "seeds"


@cache
def read_csv(name: str) -> tuple[dict[str, str], ...]:
    """Rows of seeds/<name> (or <name>.gz) as dicts; cached for the life of the process."""
    path = SEED_DIR / name
    if not path.exists():
        path = SEED_DIR / f"{name}.gz"
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    return tuple(csv.DictReader(io.StringIO(raw.decode("utf-8"))))
