"""Typed readers for environment variables, so settings fail early with one clear line."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured


class ConfigError(ImproperlyConfigured):
    """A setting read from the environment is missing or malformed; the message names the variable."""

    def __init__(self, name: str, problem: str):
        self.name = name
        super().__init__(f"{name}: {problem}")


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None, *, environ=os.environ) -> str | None:
    value = environ.get(name)
    return default if value is None else value.strip()


def env_bool(name: str, default: bool = False, *, environ=os.environ) -> bool:
    value = environ.get(name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigError(name, f"expected one of 1/0, true/false, yes/no, on/off; got {value!r}")


def env_int(name: str, default: int, *, minimum: int | None = None, environ=os.environ) -> int:
    value = environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        number = int(value.strip())
    except ValueError:
        raise ConfigError(name, f"expected an integer; got {value!r}") from None
    if minimum is not None and number < minimum:
        raise ConfigError(name, f"must be at least {minimum}; got {number}")
    return number


def env_float(name: str, default: float, *, environ=os.environ) -> float:
    value = environ.get(name)
    if value is None or not value.strip():
        return default
    try:
        return float(value.strip())
    except ValueError:
        raise ConfigError(name, f"expected a number; got {value!r}") from None


def env_list(name: str, default: list[str] | None = None, *, environ=os.environ) -> list[str]:
    value = environ.get(name)
    if value is None:
        return list(default or [])
    return [item.strip() for item in value.split(",") if item.strip()]


def env_choice(name: str, choices: tuple[str, ...], default: str, *, environ=os.environ) -> str:
    value = environ.get(name)
    if value is None or not value.strip():
        return default
    lowered = value.strip().lower()
    if lowered not in choices:
        raise ConfigError(name, f"unknown value {value!r}; expected one of {', '.join(choices)}")
    return lowered


def database_config(url: str | None, *, sqlite_path, name: str = "DATABASE_URL") -> dict:
    """Django DATABASES['default'] from a URL, or the embedded SQLite file when no URL is set."""
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(sqlite_path),
            # WAL lets the web process read while a queue worker writes; IMMEDIATE takes the write
            # lock at BEGIN so two writers wait on busy_timeout instead of failing mid-transaction.
            "OPTIONS": {
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
            },
        }
    import dj_database_url

    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme not in {"postgres", "postgresql", "pgsql", "sqlite"}:
        raise ConfigError(name, f"unsupported scheme {scheme or '(none)'!r}; use postgres://user@host:5432/db or sqlite:///path")
    try:
        config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    except Exception as exc:  # dj-database-url raises several types for malformed URLs
        raise ConfigError(name, f"cannot parse URL: {exc}") from None
    if not config.get("NAME"):
        raise ConfigError(name, "the URL names no database")
    return config
