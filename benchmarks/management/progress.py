"""Progress lines for the job that reads a benchmark run's output (the bar itself is kopa_site.progress)."""

from __future__ import annotations

import sys


class ProgressLines:
    """A Reporter printing "bench-progress DONE/TOTAL message" lines and log lines, for the job that runs
    `bench_run --progress-lines` in a fresh process (it stops the process to cancel it)."""

    def __init__(self, prefix: str, stream=None):
        self.prefix = prefix
        self.stream = stream or sys.stdout

    def progress(self, done: int, total: int | None = None, message: str = "") -> None:
        print(f"{self.prefix}{done}/{total if total is not None else 0} {message}", file=self.stream, flush=True)

    def log(self, msg: str, level: str = "info") -> None:
        print(msg if level == "info" else f"{level}: {msg}", file=self.stream, flush=True)

    def check_cancelled(self) -> None:
        return None

    def close(self) -> None:
        return None
