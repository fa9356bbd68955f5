"""Error reports (the DEBUG 500 page, admin error mails) that never show a secret (issue 17, point 2).

Django hides variables only where a function is decorated with @sensitive_variables, and not at all while
DEBUG is on. Here, in every mode: a variable whose name says it holds a secret (key, secret, token, password,
credential) is masked in every frame, and so is any other variable whose value contains one of those secrets
or a secret wrapped in an object that does not show itself (apis.engine.errors.Secret: anything with a
`reveal()` method and `is_secret = True`), in any frame of the traceback, as are the exception's own text.
"""

from __future__ import annotations

import re
from urllib.parse import quote, quote_plus

from django.views.debug import ExceptionReporter, SafeExceptionReporterFilter

SENSITIVE_NAME = re.compile(r"key|secret|token|passw|credential|cipher|authoriz", re.I)
MIN_SECRET_LENGTH = 8
_REPR_LIMIT = 200_000


def _is_secret_object(value) -> bool:
    return getattr(type(value), "is_secret", False) is True and callable(getattr(value, "reveal", None))


class KopaExceptionReporterFilter(SafeExceptionReporterFilter):
    hidden_settings = re.compile(
        "API|TOKEN|KEY|SECRET|PASS|SIGNATURE|CREDENTIAL|DATABASE_URL|REDIS_URL|LLM_URL|COOKIE", flags=re.I
    )

    def is_active(self, request) -> bool:
        return True  # also with DEBUG on: the technical page is exactly where keys leaked

    def get_traceback_frame_variables(self, request, tb_frame):
        variables = super().get_traceback_frame_variables(request, tb_frame)
        return [
            (name, self.cleansed_substitute if SENSITIVE_NAME.search(str(name)) else value) for name, value in variables
        ]


class KopaExceptionReporter(ExceptionReporter):
    def _secrets(self, frames) -> set[str]:
        found: set[str] = set()
        for frame in frames:
            tb = frame.get("tb")
            if tb is None:
                continue
            for name, value in tb.tb_frame.f_locals.items():
                candidates = []
                if _is_secret_object(value):
                    candidates.append(value.reveal())
                elif isinstance(value, str) and SENSITIVE_NAME.search(name):
                    candidates.append(value)
                elif isinstance(value, tuple | list) and SENSITIVE_NAME.search(name):
                    candidates.extend(v.reveal() if _is_secret_object(v) else v for v in value)
                for secret in candidates:
                    if isinstance(secret, str) and len(secret.strip()) >= MIN_SECRET_LENGTH:
                        secret = secret.strip()
                        found |= {secret, quote(secret, safe=""), quote_plus(secret)}
        return found

    def _scrub(self, text: str, secrets: set[str]) -> str:
        for secret in sorted(secrets, key=len, reverse=True):
            text = text.replace(secret, self.filter.cleansed_substitute)
        return text

    def get_traceback_frames(self):
        frames = super().get_traceback_frames()
        secrets = self._secrets(frames)
        self._found_secrets = secrets
        if not secrets:
            return frames
        for frame in frames:
            cleaned = []
            for name, value in frame.get("vars", []):
                try:
                    shown = repr(value)[:_REPR_LIMIT]
                except Exception:  # a repr that fails is not shown either way
                    shown = ""
                if any(secret in shown for secret in secrets):
                    value = self.filter.cleansed_substitute
                cleaned.append((name, value))
            frame["vars"] = cleaned
            for field in ("exc_cause", "context_line", "pre_context", "post_context"):
                if isinstance(frame.get(field), str):
                    frame[field] = self._scrub(frame[field], secrets)
        return frames

    def get_traceback_data(self):
        data = super().get_traceback_data()
        secrets = getattr(self, "_found_secrets", set())
        if secrets:
            for field in ("exception_value",):
                if isinstance(data.get(field), str):
                    data[field] = self._scrub(data[field], secrets)
        return data
