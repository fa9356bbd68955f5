"""What long services report to: the `Reporter` calls (progress, log, check_cancelled) that jobs answer with
their JobContext, a quiet reporter for direct calls, and a text progress bar for management commands."""

from __future__ import annotations

import logging
import sys
import time
from typing import Protocol

from django.core.management.base import OutputWrapper

logger = logging.getLogger(__name__)


class Reporter(Protocol):
    def progress(self, done: int, total: int | None = None, message: str = "") -> None: ...

    def log(self, msg: str, level: str = "info") -> None: ...

    def check_cancelled(self) -> None: ...


class QuietReporter:
    """A reporter that only logs: what a service reports to when called directly (a shell, a test)."""

    def progress(self, done: int, total: int | None = None, message: str = "") -> None:
        pass

    def log(self, msg: str, level: str = "info") -> None:
        logger.log(logging.getLevelName(level.upper()), "%s", msg)

    def check_cancelled(self) -> None:
        pass


class ProgressBar:
    """Redraws one line on a terminal; elsewhere (a log file, CI) prints a line at most every few seconds."""

    def __init__(self, stream=None, *, width: int = 30, label: str = "", quiet: bool = False):
        self.stream = stream or sys.stderr
        self.width = width
        self.label = label
        self.quiet = quiet
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        # Django's OutputWrapper appends a newline unless told otherwise; the bar writes its own.
        self._options = {"ending": ""} if isinstance(self.stream, OutputWrapper) else {}
        self._last = 0.0
        self._drawn = False

    def progress(self, done: int, total: int | None = None, message: str = "") -> None:
        if self.quiet:
            return
        now = time.monotonic()
        final = total is not None and done >= total
        if not self.tty and not final and now - self._last < 5:
            return
        self._last = now
        if total:
            filled = int(self.width * min(done, total) / total)
            bar = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}"
        else:
            bar = f"[{done}]"
        line = f"{self.label} {bar} {message}".strip()
        if self.tty:
            self._write("\r\033[K" + line[:160])
            self._drawn = True
            if final:
                self._write("\n")
                self._drawn = False
        else:
            self._write(line + "\n")
        self.stream.flush()

    def _write(self, text: str) -> None:
        self.stream.write(text, **self._options)

    def log(self, msg: str, level: str = "info") -> None:
        if self.quiet and level == "info":
            return
        if self._drawn:
            self._write("\n")
            self._drawn = False
        self._write(f"{msg}\n")
        self.stream.flush()

    def check_cancelled(self) -> None:
        """A command is stopped with Ctrl-C, not through the reporter."""

    def close(self) -> None:
        if self._drawn:
            self._write("\n")
            self._drawn = False
            self.stream.flush()
