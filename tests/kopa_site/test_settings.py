"""Settings from the environment: the typed readers, and start-up refusing bad values in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kopa_site.env import (
    ConfigError,
    database_config,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_str,
    redact_url,
)

ROOT = Path(__file__).resolve().parents[2]


# --- readers -------------------------------------------------------------------------------------


@pytest.mark.smoke
@pytest.mark.parametrize("raw", ["1", "true", "YES", " on "])
def test_env_bool_reads_true_words(raw):
    assert env_bool("FLAG", False, environ={"FLAG": raw}) is True


@pytest.mark.parametrize("raw", ["0", "false", "No", "off", ""])
def test_env_bool_reads_false_words(raw):
    assert env_bool("FLAG", True, environ={"FLAG": raw}) is False


def test_env_bool_uses_the_default_when_unset():
    assert env_bool("FLAG", True, environ={}) is True


def test_env_bool_rejects_other_words_naming_the_variable():
    with pytest.raises(ConfigError, match=r"^FLAG: expected one of .*got 'maybe'"):
        env_bool("FLAG", environ={"FLAG": "maybe"})


def test_env_int_reads_numbers_and_treats_blank_as_unset():
    assert env_int("N", 5, environ={"N": " 12 "}) == 12
    assert env_int("N", 5, environ={"N": "  "}) == 5
    assert env_int("N", 5, environ={}) == 5


def test_env_int_rejects_text_and_values_below_the_minimum():
    with pytest.raises(ConfigError, match=r"^N: expected an integer; got 'ten'"):
        env_int("N", 5, environ={"N": "ten"})
    with pytest.raises(ConfigError, match=r"^N: must be at least 1; got 0"):
        env_int("N", 5, minimum=1, environ={"N": "0"})


def test_env_float_reads_numbers_and_rejects_text():
    assert env_float("X", 1.0, environ={"X": "2.5"}) == 2.5
    with pytest.raises(ConfigError, match=r"^X: expected a number"):
        env_float("X", 1.0, environ={"X": "fast"})


def test_env_str_strips_and_defaults():
    assert env_str("S", "d", environ={"S": "  value "}) == "value"
    assert env_str("S", "d", environ={}) == "d"


def test_env_list_splits_on_commas_and_drops_blanks():
    assert env_list("L", ["x"], environ={"L": "a, b,,c "}) == ["a", "b", "c"]
    assert env_list("L", ["x"], environ={}) == ["x"]


def test_env_choice_lowercases_and_rejects_unknown_values():
    assert env_choice("C", ("orm", "redis"), "orm", environ={"C": "Redis"}) == "redis"
    assert env_choice("C", ("orm", "redis"), "orm", environ={}) == "orm"
    with pytest.raises(ConfigError, match=r"^C: unknown value 'rabbit'; expected one of orm, redis"):
        env_choice("C", ("orm", "redis"), "orm", environ={"C": "rabbit"})


# --- database URL ----------------------------------------------------------------------------------


@pytest.mark.smoke
def test_no_database_url_means_the_embedded_sqlite_file_in_wal_mode(tmp_path):
    config = database_config(None, sqlite_path=tmp_path / "kopa.sqlite3")
    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert config["NAME"] == str(tmp_path / "kopa.sqlite3")
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"


def test_a_sqlite_url_gets_the_same_concurrency_options(tmp_path):
    config = database_config(f"sqlite:///{tmp_path}/other.db", sqlite_path=tmp_path / "unused")
    assert config["NAME"] == f"{tmp_path}/other.db"
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"


def test_a_postgres_url_becomes_a_postgresql_database(tmp_path):
    config = database_config("postgres://kopa:pw@db.internal:5433/kopa", sqlite_path=tmp_path / "x")
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["HOST"], config["PORT"], config["NAME"], config["USER"]) == ("db.internal", 5433, "kopa", "kopa")


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("mysql://x", "unsupported scheme 'mysql'"),
        ("kopa.sqlite3", "unsupported scheme '(none)'"),
        ("postgres://", "the URL names no database"),
        ("postgres://user@host:5432/", "the URL names no database"),
    ],
)
def test_bad_database_urls_are_refused_naming_the_variable(tmp_path, url, problem):
    with pytest.raises(ConfigError) as caught:
        database_config(url, sqlite_path=tmp_path / "x")
    assert str(caught.value).startswith(f"DATABASE_URL: {problem}")


def test_an_unparseable_database_url_is_refused_without_its_password(tmp_path):
    with pytest.raises(ConfigError) as caught:
        database_config("postgres://kopa:hunter2@db:notaport/kopa", sqlite_path=tmp_path / "x")
    assert str(caught.value).startswith("DATABASE_URL: cannot parse URL postgres://kopa:***@db:notaport/kopa")
    assert "hunter2" not in str(caught.value)


def test_redact_url_hides_only_the_password():
    assert redact_url("redis://:s3cret@cache:6379/0") == "redis://:***@cache:6379/0"
    assert redact_url("postgres://kopa:s3cret@db/kopa") == "postgres://kopa:***@db/kopa"
    assert redact_url("postgres://kopa@db/kopa") == "postgres://kopa@db/kopa"


# --- start-up, for real ----------------------------------------------------------------------------


def _clean_env(tmp_path, **overrides) -> dict[str, str]:
    """The caller's environment without any setting of ours, so CI's DATABASE_URL cannot leak in."""
    ours = {"DATABASE_URL", "REDIS_URL", "KOPA_BROKER", "DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE"}
    env = {key: value for key, value in os.environ.items() if key not in ours and not key.startswith("KOPA_")}
    env.update(DJANGO_SETTINGS_MODULE="kopa_site.settings", KOPA_VAR_DIR=str(tmp_path / "var"), **overrides)
    return env


def _run(args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


BAD_STARTS = [
    pytest.param({"DATABASE_URL": "mysql://x"}, "DATABASE_URL", id="mysql-url"),
    pytest.param({"DATABASE_URL": "postgres://"}, "DATABASE_URL", id="postgres-url-without-database"),
    pytest.param({"KOPA_BROKER": "rabbit"}, "KOPA_BROKER", id="unknown-broker"),
    pytest.param({"DEBUG": "0"}, "SECRET_KEY", id="production-without-secret-key"),
    pytest.param({"DEBUG": "maybe"}, "DEBUG", id="debug-not-a-boolean"),
    pytest.param({"KOPA_BROKER": "redis"}, "REDIS_URL", id="redis-broker-without-url"),
    pytest.param({"KOPA_WORKERS": "0"}, "KOPA_WORKERS", id="no-workers"),
]


@pytest.mark.slow
@pytest.mark.smoke
@pytest.mark.parametrize(("overrides", "variable"), BAD_STARTS)
def test_manage_py_refuses_to_start_with_one_line_naming_the_variable(tmp_path, overrides, variable):
    result = _run(["manage.py", "check"], _clean_env(tmp_path, **overrides))
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"configuration error: {variable}: ")
    assert result.stdout == ""


@pytest.mark.slow
def test_a_refused_start_leaves_no_database_behind(tmp_path):
    result = _run(["manage.py", "migrate", "--noinput"], _clean_env(tmp_path, KOPA_BROKER="rabbit"))
    assert result.returncode != 0
    assert not (tmp_path / "var" / "kopa.sqlite3").exists()


@pytest.mark.slow
def test_a_refused_start_does_not_echo_a_redis_password(tmp_path):
    result = _run(["manage.py", "check"], _clean_env(tmp_path, REDIS_URL="http://:hunter2@cache:6379/0"))
    assert result.returncode != 0
    assert result.stderr.startswith("configuration error: REDIS_URL: ")
    assert "hunter2" not in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("module", ["kopa_site.wsgi", "kopa_site.asgi"])
def test_the_server_entry_points_refuse_bad_settings_in_one_line(tmp_path, module):
    result = _run(["-c", f"import {module}"], _clean_env(tmp_path, DATABASE_URL="mysql://x"))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "configuration error: DATABASE_URL: unsupported scheme 'mysql'; "
        "use postgres://user@host:5432/db or sqlite:///path"
    ]


@pytest.mark.slow
def test_good_settings_start(tmp_path):
    """The control for the refusals above: the same command passes with a sound environment."""
    result = _run(["manage.py", "check"], _clean_env(tmp_path, DEBUG="0", SECRET_KEY="x" * 50))
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout
