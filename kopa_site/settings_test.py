"""Test settings: the same module, with tasks run inline and fast password hashing."""

import os

from kopa_site.env import env_bool, env_list
from kopa_site.settings import *  # noqa: F403
from kopa_site.settings import DATABASES, Q_CLUSTER, VAR_DIR

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests read the source (English) strings unless they pick a language: the Korean pages, the language switch
# and the one date format have their own tests (tests/kopa_site/test_language.py, the browser tour), which set
# LANGUAGE_CODE back to the console's default, "ko". KOPA_TEST_LANGUAGE=ko runs the whole suite in Korean.
LANGUAGE_CODE = os.environ.get("KOPA_TEST_LANGUAGE", "en")
# Look static files up per request instead of indexing all of them for every test client.
WHITENOISE_AUTOREFRESH = True
# KOPA_Q_SYNC=0 is for a real `qcluster` subprocess started by a test against the test database.
Q_CLUSTER = {**Q_CLUSTER, "sync": env_bool("KOPA_Q_SYNC", True)}

# Test-only job kinds (tests/support/jobs.py); a qcluster subprocess inherits them through these settings.
KOPA_JOB_MODULES = env_list("KOPA_JOB_MODULES", ["tests.support.jobs"])

# A file, not SQLite's in-memory database, so a qcluster subprocess can open the same test database.
# One file per test run, since several people may run tests on one machine at once.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")}

# Outbound fetches and model endpoints: the test servers on loopback, and "gpu", the bench tests' stand-in
# for an internal endpoint host. Tests of the outbound rules themselves set their own (empty) allow-list.
KOPA_OUTBOUND = {**KOPA_OUTBOUND, "allow": ["127.0.0.1", "localhost", "gpu"]}  # noqa: F405
