"""Progress for benchmark commands: a tqdm bar on a terminal, plain lines for a job reading the output."""

from __future__ import annotations

import sys


class ProgressBar:
    """A Reporter (progress, log, check_cancelled) drawing a tqdm bar on `stream` (a plain line without tqdm)."""

    def __init__(self, stream=None, *, label: str = "episodes", quiet: bool = False):
        self.stream = stream or sys.stderr
        self.label = label
        self.quiet = quiet
        self._bar = None

    def progress(self, done: int, total: int | None = None, message: str = "") -> None:
        if self.quiet:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            self.stream.write(f"\r{self.label} {done}/{total or '?'} {message[:60]:<60}")
            self.stream.flush()
            return
        if self._bar is None:
            self._bar = tqdm(total=total, initial=done, desc=self.label, file=self.stream, dynamic_ncols=True)
        if total is not None and self._bar.total != total:
            self._bar.total = total
        self._bar.update(done - self._bar.n)
        if message:
            self._bar.set_postfix_str(message[:60])

    def log(self, msg: str, level: str = "info") -> None:
        if self._bar is not None:
            self._bar.write(msg, file=self.stream)
        elif not self.quiet or level in ("warning", "error"):
            self.stream.write(msg + "\n")

    def check_cancelled(self) -> None:
        return None

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif not self.quiet:
            self.stream.write("\n")


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
