"""Typed readers for environment variables, so settings fail early with one clear line."""

from __future__ import annotations

import os
import sys
from urllib.parse import urlsplit, urlunsplit

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


def redact_url(url: str) -> str:
    """The URL with its password replaced by ***, so it can go into an error line or a log."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return "(unparseable URL)"
    if not password:
        return url
    userinfo, _, hostinfo = parts.netloc.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{hostinfo}"))


def exit_on_config_error() -> None:
    """Load the settings now; on a ConfigError write one line to stderr and exit with status 2.

    The WSGI and ASGI modules call this before building the application, so a server never comes up
    with half a configuration and the operator reads one line instead of a traceback.
    """
    from django.conf import settings

    try:
        settings.INSTALLED_APPS  # noqa: B018 - touching a setting loads the module
    except ConfigError as exc:
        sys.stderr.write(f"configuration error: {exc}\n")
        sys.stderr.flush()
        raise SystemExit(2) from None


def database_config(url: str | None, *, sqlite_path, name: str = "DATABASE_URL") -> dict:
    """Django DATABASES['default'] from a URL, or the embedded SQLite file when no URL is set."""
    if not url:
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": str(sqlite_path), "OPTIONS": _sqlite_options()}
    import dj_database_url

    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme not in {"postgres", "postgresql", "pgsql", "sqlite"}:
        raise ConfigError(
            name, f"unsupported scheme {scheme or '(none)'!r}; use postgres://user@host:5432/db or sqlite:///path"
        )
    try:
        config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    except Exception as exc:  # dj-database-url raises several types for malformed URLs
        password = _password_of(url)
        detail = str(exc).replace(password, "***") if password else str(exc)
        raise ConfigError(name, f"cannot parse URL {redact_url(url)}: {detail}") from None
    if not config.get("NAME"):
        raise ConfigError(name, "the URL names no database")
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config["OPTIONS"] = {**_sqlite_options(), **config.get("OPTIONS", {})}
    return config


def _sqlite_options() -> dict:
    # WAL lets the web process read while a queue worker writes; IMMEDIATE takes the write
    # lock at BEGIN so two writers wait on busy_timeout instead of failing mid-transaction.
    return {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
    }


def _password_of(url: str) -> str | None:
    try:
        return urlsplit(url).password
    except ValueError:
        return None
