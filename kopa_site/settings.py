"""KOPA Console settings: one module, driven by environment variables with laptop defaults."""

from __future__ import annotations

from pathlib import Path

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

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("KOPA_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

# KOPA_ENV=production (what `./kopa serve` sets): DEBUG off, a real SECRET_KEY, HTTPS-only cookies, HSTS and
# the SSL redirect; `manage.py check --deploy` is clean (docs/security.md). Development is the default.
KOPA_ENV = env_choice("KOPA_ENV", ("development", "production"), "development")
PRODUCTION = KOPA_ENV == "production"
DEBUG = env_bool("DEBUG", not PRODUCTION)
if PRODUCTION and DEBUG:
    raise ConfigError("DEBUG", "must be off when KOPA_ENV=production (its error pages show settings and source)")
DEV_SECRET_KEY = "kopa-dev-only-insecure-key-do-not-use-in-production"
MIN_SECRET_KEY_LENGTH = 50
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ConfigError("SECRET_KEY", "required when DEBUG is off (set a long random string)")
    SECRET_KEY = DEV_SECRET_KEY
elif not DEBUG and (SECRET_KEY == DEV_SECRET_KEY or SECRET_KEY.startswith("django-insecure")):
    raise ConfigError("SECRET_KEY", "the public development key cannot be used with DEBUG off; set your own")
if PRODUCTION and (len(SECRET_KEY) < MIN_SECRET_KEY_LENGTH or len(set(SECRET_KEY)) < 5):
    raise ConfigError(
        "SECRET_KEY",
        f"at least {MIN_SECRET_KEY_LENGTH} random characters in production "
        '(python -c "import secrets; print(secrets.token_urlsafe(50))")',
    )

_DEFAULT_HOSTS = ["localhost", "127.0.0.1", "[::1]"] + ([] if PRODUCTION else ["testserver"])
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", _DEFAULT_HOSTS)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_q",
    "kopa_site",
    "apis",
    "graphs",
    "datasets",
    "benchmarks",
    "training",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "kopa_site.language.LanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "kopa_site.middleware.BadInputMiddleware",
]

# Cookies and transport. Production: HTTPS only (served by `./kopa serve` with KOPA_TLS_CERT/KOPA_TLS_KEY, or
# by a TLS proxy in front that sets X-Forwarded-Proto: then KOPA_PROXY_SSL_HEADER=1).
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = PRODUCTION
SECURE_SSL_REDIRECT = env_bool("KOPA_SSL_REDIRECT", PRODUCTION)
SECURE_HSTS_SECONDS = env_int("KOPA_HSTS_SECONDS", 31_536_000 if PRODUCTION else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("KOPA_HSTS_INCLUDE_SUBDOMAINS", PRODUCTION)
SECURE_HSTS_PRELOAD = env_bool("KOPA_HSTS_PRELOAD", PRODUCTION)
if env_bool("KOPA_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# A login session lasts a working day by default, not Django's two weeks.
SESSION_COOKIE_AGE = env_int("KOPA_SESSION_AGE_S", 12 * 3600, minimum=300)

ROOT_URLCONF = "kopa_site.urls"
WSGI_APPLICATION = "kopa_site.wsgi.application"
ASGI_APPLICATION = "kopa_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "kopa_site.context_processors.site",
            ],
        },
    },
]

DATABASES = {"default": database_config(env_str("DATABASE_URL"), sqlite_path=VAR_DIR / "kopa.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Failed sign-ins (login page, admin, token endpoint) per user name and per address in a window, and API
# token lifetime (0: tokens never expire). kopa_site/auth.py.
AUTHENTICATION_BACKENDS = ["kopa_site.auth.ThrottledModelBackend"]
KOPA_LOGIN_FAILURES = env_int("KOPA_LOGIN_FAILURES", 10, minimum=1)
KOPA_LOGIN_FAILURES_PER_ADDRESS = env_int("KOPA_LOGIN_FAILURES_PER_ADDRESS", 50, minimum=1)
KOPA_LOGIN_WINDOW_S = env_int("KOPA_LOGIN_WINDOW_S", 900, minimum=1)
KOPA_TOKEN_TTL_DAYS = env_float("KOPA_TOKEN_TTL_DAYS", 30.0)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# The console speaks Korean, its users' language; English is a full translation picked with the switcher in
# the header (a cookie), never guessed from the browser, so a page never mixes the two. Source strings are
# English; locale/ko holds the Korean (locale/README.md). One date format in both languages: kopa_site/formats.
LANGUAGE_CODE = "ko"
LANGUAGES = [("ko", "한국어"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["kopa_site.formats"]
TIME_ZONE = "Asia/Seoul"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    # plotly.js straight from the installed plotly wheel, so it always matches the Python package.
    "kopa_site.staticfinders.PackageFileFinder",
]
# WhiteNoise serves the static files in every mode, straight from the finders: no collectstatic step
# and no separate web server, so DEBUG=0 pages look the same as DEBUG=1 ones.
WHITENOISE_USE_FINDERS = True
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise also serves collectstatic's output, and warns when it is missing

# --- Queue (django-q2) -------------------------------------------------------------------------
# retry must exceed timeout, or the broker re-presents a task that is still running; failures are
# acknowledged after max_attempts so a poisoned task is not re-delivered forever.
REDIS_URL = env_str("REDIS_URL")
QUEUE_BROKER = env_choice("KOPA_BROKER", ("orm", "redis"), "redis" if REDIS_URL else "orm")
if QUEUE_BROKER == "redis" and not REDIS_URL:
    raise ConfigError("REDIS_URL", "required when KOPA_BROKER=redis (e.g. redis://127.0.0.1:6379/0)")
if REDIS_URL and not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ConfigError("REDIS_URL", f"unsupported scheme in {redact_url(REDIS_URL)!r}; use redis://host:6379/0")

QUEUE_WORKERS = env_int("KOPA_WORKERS", 2, minimum=1)
QUEUE_TIMEOUT = env_int("KOPA_TASK_TIMEOUT", 3600, minimum=10)
GPU_TASK_TIMEOUT = env_int("KOPA_GPU_TASK_TIMEOUT", 12 * 3600, minimum=60)

Q_CLUSTER = {
    "name": "default",
    "workers": QUEUE_WORKERS,
    "timeout": QUEUE_TIMEOUT,
    "retry": QUEUE_TIMEOUT + 600,
    "max_attempts": 1,
    "ack_failures": True,
    "save_limit": 500,
    "catch_up": False,
    "poll": 0.5,
    "label": "Queue",
    "ALT_CLUSTERS": {
        # One worker, recycled after every task: GPU work runs in a fresh subprocess it starts.
        "gpu": {
            "workers": 1,
            "recycle": 1,
            "timeout": GPU_TASK_TIMEOUT,
            "retry": GPU_TASK_TIMEOUT + 900,
            "max_attempts": 1,
        },
    },
}
if QUEUE_BROKER == "redis":
    Q_CLUSTER["redis"] = REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"

CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

# Jobs whose worker stopped beating for this long are marked failed by the sweeper.
JOB_HEARTBEAT_TIMEOUT = env_int("KOPA_JOB_HEARTBEAT_TIMEOUT", 120, minimum=5)
# A running job's worker writes its heartbeat this often (seconds); a few beats fit in the timeout.
KOPA_JOB_HEARTBEAT_INTERVAL = env_float("KOPA_JOB_HEARTBEAT_INTERVAL", 10.0)
if not 0 < KOPA_JOB_HEARTBEAT_INTERVAL * 3 <= JOB_HEARTBEAT_TIMEOUT:
    raise ConfigError(
        "KOPA_JOB_HEARTBEAT_INTERVAL",
        f"must be positive and at most a third of KOPA_JOB_HEARTBEAT_TIMEOUT ({JOB_HEARTBEAT_TIMEOUT} s)",
    )
# Extra modules that register job kinds (apps' <app>/jobs.py are found without this).
KOPA_JOB_MODULES = env_list("KOPA_JOB_MODULES", [])

# --- Sandbox (offline emulation of the Korean public APIs; docs/sandbox.md) ----------------------
# Read by apis.sandbox.config.SandboxConfig.from_mapping; the demo keys are always accepted.
SANDBOX = {
    "extra_service_keys": env_list("KOPA_SANDBOX_KEYS", []),
    "now": env_str("KOPA_SANDBOX_NOW", "2026-11-18T14:20:00+09:00"),
    "latency_ms": env_float("KOPA_SANDBOX_LATENCY_MS", 0.0),
    "jitter_ms": env_float("KOPA_SANDBOX_JITTER_MS", 0.0),
    "fault_rate": env_float("KOPA_SANDBOX_FAULT_RATE", 0.0),
    "faults": env_list("KOPA_SANDBOX_FAULTS", ["500", "502", "503", "timeout", "reset", "quota", "malformed"]),
    "seed": env_int("KOPA_SANDBOX_SEED", 0),
    "daily_quota": env_int("KOPA_SANDBOX_DAILY_QUOTA", 10_000, minimum=0),
    "gateway_variant": env_choice("KOPA_SANDBOX_GATEWAY_VARIANT", ("a", "b"), "b").upper(),
    "gateway_xml_status": env_int("KOPA_SANDBOX_GATEWAY_XML_STATUS", 200),
    "gateway_json_status": env_int("KOPA_SANDBOX_GATEWAY_JSON_STATUS", 403),
    "gateway_json_errors": env_bool("KOPA_SANDBOX_GATEWAY_JSON_ERRORS", True),
    "timeout_hold_s": env_float("KOPA_SANDBOX_TIMEOUT_HOLD_S", 30.0),
    "header_overrides": env_bool("KOPA_SANDBOX_HEADER_OVERRIDES", True),
}

# --- API catalog and executor (apis/services.py) -------------------------------------------------
# Where sandbox mode sends calls (<origin>/sandbox/<live host>/...): by default this site itself.
_SITE_HOST = env_str("KOPA_HOST", "127.0.0.1") or "127.0.0.1"
KOPA_SANDBOX_ORIGIN = env_str(
    "KOPA_SANDBOX_ORIGIN",
    f"http://{'127.0.0.1' if _SITE_HOST == '0.0.0.0' else _SITE_HOST}:{env_int('KOPA_PORT', 8000)}",
)
# Encrypts stored service keys (a Fernet key or a passphrase); empty: derived from SECRET_KEY. Required in
# production, so rotating SECRET_KEY never loses the keys. KOPA_CREDENTIAL_OLD_KEYS: earlier keys, still read
# until `manage.py credential_rotate` re-encrypts every stored key with the current one (docs/security.md).
KOPA_CREDENTIAL_KEY = env_str("KOPA_CREDENTIAL_KEY", "")
KOPA_CREDENTIAL_OLD_KEYS = env_list("KOPA_CREDENTIAL_OLD_KEYS", [])
if PRODUCTION and len(KOPA_CREDENTIAL_KEY or "") < 32:
    raise ConfigError(
        "KOPA_CREDENTIAL_KEY",
        "required in production: a Fernet key or a passphrase of at least 32 characters "
        '(python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())")',
    )
KOPA_EXECUTOR = {
    "timeout_s": env_float("KOPA_EXECUTOR_TIMEOUT_S", 10.0),
    "max_attempts": env_int("KOPA_EXECUTOR_MAX_ATTEMPTS", 3, minimum=1),
    "base_delay_s": env_float("KOPA_EXECUTOR_BASE_DELAY_S", 0.25),
    "max_delay_s": env_float("KOPA_EXECUTOR_MAX_DELAY_S", 4.0),
    "concurrency": env_int("KOPA_EXECUTOR_CONCURRENCY", 8, minimum=1),
    # Record mode calls this target and stores what came back for replay.
    "record_target": env_choice("KOPA_RECORD_TARGET", ("live", "sandbox"), "live"),
    # Response bodies up to this many bytes are kept (gzip) on ApiCall rows; larger ones by hash only.
    "body_cap_bytes": env_int("KOPA_APICALL_BODY_CAP", 2_000_000, minimum=0),
}
# Fetches on a user's behalf (spec import by URL) and model endpoints: http(s) to public addresses only,
# checked after DNS resolution and on every redirect. KOPA_OUTBOUND_ALLOW lists host names, addresses or
# CIDR networks also allowed (e.g. 127.0.0.1 for a local spec server, 10.0.0.0/8 for an internal GPU box).
KOPA_OUTBOUND = {
    "allow": env_list("KOPA_OUTBOUND_ALLOW", []),
    "max_bytes": env_int("KOPA_OUTBOUND_MAX_BYTES", 5_000_000, minimum=1024),
    "total_timeout_s": env_float("KOPA_OUTBOUND_TIMEOUT_S", 30.0),
    "max_redirects": env_int("KOPA_OUTBOUND_MAX_REDIRECTS", 5, minimum=0),
}
# EDGE candidate proposals (graphs/, docs/edge.md): an OpenAI-compatible endpoint for the optional LLM
# scorer/proposer and embeddings; empty: rules and the local TF-IDF retriever only.
KOPA_EDGE = {
    "llm_url": env_str("KOPA_EDGE_LLM_URL", ""),
    "llm_model": env_str("KOPA_EDGE_LLM_MODEL", ""),
    "llm_key": env_str("KOPA_EDGE_LLM_KEY", ""),
    "embedding_model": env_str("KOPA_EDGE_EMBEDDING_MODEL", ""),
}
# Trajectory synthesis (datasets/): the OpenAI-compatible endpoint that writes Korean requests and judges items;
# it defaults to the EDGE endpoint. Empty: per-tool templates write, rules judge.
KOPA_SYNTH = {
    "llm_url": env_str("KOPA_SYNTH_LLM_URL", KOPA_EDGE["llm_url"]),
    "llm_model": env_str("KOPA_SYNTH_LLM_MODEL", KOPA_EDGE["llm_model"]),
    "llm_key": env_str("KOPA_SYNTH_LLM_KEY", KOPA_EDGE["llm_key"]),
    "judge_model": env_str("KOPA_SYNTH_JUDGE_MODEL", ""),
}

# --- API ---------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first: DRF answers an anonymous request with the first class's challenge, so clients
    # get 401 + "WWW-Authenticate: Token" rather than a bare 403. Browsers still use the session.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "kopa_site.auth.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["kopa_site.permissions.RolePermission"],
    "DEFAULT_PAGINATION_CLASS": "kopa_site.pagination.CappedLimitOffsetPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
        "rest_framework.filters.SearchFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # A service's DomainError is a 400 (or its own status) with its message (kopa_site/errors.py).
    "EXCEPTION_HANDLER": "kopa_site.errors.api_exception_handler",
    # Bounded nesting, finite numbers, valid Unicode: a hostile body is a 400, never a 500 (docs/security.md).
    "DEFAULT_PARSER_CLASSES": [
        "kopa_site.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "jobs": env_str("KOPA_JOB_THROTTLE", "120/hour"),
        # Token requests per address (anonymous) or user, failed or not; failures have their own limit below.
        "auth": env_str("KOPA_AUTH_THROTTLE", "30/minute"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "KOPA Console API",
    "DESCRIPTION": "Catalog, EDGE graph, trajectories, KOPA-Bench and training jobs.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema and both doc pages need the same role as any API read.
    "SERVE_PERMISSIONS": ["kopa_site.permissions.RolePermission"],
    # validatorUrl None: Swagger UI would otherwise send the schema to validator.swagger.io.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Several models have a `status`; name each enum after its model so the schema stays readable.
    "ENUM_NAME_OVERRIDES": {
        "JobStatusEnum": "kopa_site.models.Job.Status",
        # Every run (synthesis, verification, evaluation, training) has these states (kopa_site.models.Run).
        "RunStatusEnum": "kopa_site.models.RunStatus",
        "TrajectoryStatusEnum": "datasets.models.Trajectory.Status",
        "ToolModeEnum": "benchmarks.models.EvalRun.ToolMode",  # named, now that training runs have their own
        "TrainingToolModeEnum": "training.models.TrainingRun.ToolMode",
    },
}

# Error pages and error mails mask secrets in every frame, also with DEBUG on (kopa_site/exception_reporter.py).
DEFAULT_EXCEPTION_REPORTER = "kopa_site.exception_reporter.KopaExceptionReporter"
DEFAULT_EXCEPTION_REPORTER_FILTER = "kopa_site.exception_reporter.KopaExceptionReporterFilter"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"httpx": {"level": "WARNING"}, "httpcore": {"level": "WARNING"}},
}
