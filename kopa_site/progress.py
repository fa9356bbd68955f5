"""A text progress bar for management commands: the same reporter calls (progress, log, check_cancelled)
that jobs answer with their JobContext."""

from __future__ import annotations

import sys
import time

from django.core.management.base import OutputWrapper


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
