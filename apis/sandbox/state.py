"""Per-process mutable state of a sandbox: per-key daily quota counters and the request counter for faults."""

from __future__ import annotations

import threading
from datetime import date


class SandboxState:
    def __init__(self):
        self._lock = threading.Lock()
        self._quota: dict[tuple[str, str], tuple[date, int]] = {}
        self._requests = 0

    def take_quota(self, key: str, service_id: str, today: date, limit: int) -> bool:
        """Count one call for (key, service) on the sandbox day; False once the daily limit is spent."""
        if limit <= 0:
            return True
        with self._lock:
            day, used = self._quota.get((key, service_id), (today, 0))
            if day != today:  # a new sandbox day (midnight KST) starts a fresh count
                used = 0
            if used >= limit:
                self._quota[(key, service_id)] = (today, used)
                return False
            self._quota[(key, service_id)] = (today, used + 1)
            return True

    def next_request_number(self) -> int:
        with self._lock:
            self._requests += 1
            return self._requests

    def reset(self) -> None:
        with self._lock:
            self._quota.clear()
            self._requests = 0
