"""Django settings, all from the environment (twelve-factor): DATABASE_URL, REDIS_URL,
SECRET_KEY, DEBUG, ALLOWED_HOSTS. Without any of them this is a local development setup on
SQLite; docker-compose and production set them (with DEBUG=0, SECRET_KEY and ALLOWED_HOSTS are
required: see PRODUCTION)."""

import os
from pathlib import Path

import dj_database_url

from judge.data.source_text import MAX_SOURCE_BYTES

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
# Production is DEBUG set to false in the environment (docker-compose, `make run`'s devstack,
# `make bench`): then the site refuses to start without its own SECRET_KEY and ALLOWED_HOSTS,
# rather than run on the public fallback key below (anyone could sign sessions' and forms'
# tokens with it) or answer any Host. Without DEBUG at all this is a local run or the tests.
PRODUCTION = "DEBUG" in os.environ and not DEBUG
# A key that is set but is nobody's secret: one printed in a file of this repository or a template
# (docker-compose.yml once carried "change-me-in-production"), or too short or too plain to guess
# at. Production refuses it as it refuses no key at all.
PLACEHOLDER_KEY_STARTS = ("change-me", "changeme", "insecure", "django-insecure", "your-secret", "secret-key")
MIN_SECRET_KEY_CHARS, MIN_SECRET_KEY_DISTINCT = 32, 8


def weak_secret_key(key: str) -> str | None:
    """Why ``key`` cannot sign a production site's sessions and tokens, or None."""
    if key.lower().startswith(PLACEHOLDER_KEY_STARTS):
        return "is a placeholder from a file or a template, known to anyone"
    if len(key) < MIN_SECRET_KEY_CHARS or len(set(key)) < MIN_SECRET_KEY_DISTINCT:
        return f"is too short or too plain (at least {MIN_SECRET_KEY_CHARS} characters, {MIN_SECRET_KEY_DISTINCT} different)"
    return None


if PRODUCTION:
    from django.core.exceptions import ImproperlyConfigured

    _missing = [name for name in ("SECRET_KEY", "ALLOWED_HOSTS") if not os.environ.get(name, "").strip()]
    _make_one = "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
    if _missing:
        raise ImproperlyConfigured(
            f"DEBUG is off (production) but {' and '.join(_missing)} {'is' if len(_missing) == 1 else 'are'} not set: "
            f"set SECRET_KEY to a long random string ({_make_one}) "
            f"and ALLOWED_HOSTS to the site's host names, comma-separated."
        )
    _weak = weak_secret_key(os.environ["SECRET_KEY"].strip())
    if _weak:
        raise ImproperlyConfigured(
            f"DEBUG is off (production) but SECRET_KEY {_weak}: anyone could sign this site's sessions and "
            f"tokens with it. Set SECRET_KEY to a long random string of your own ({_make_one})."
        )
# The fallback is for local runs and tests only (see PRODUCTION).
SECRET_KEY = os.environ.get("SECRET_KEY") or "insecure-local-development-key-set-SECRET_KEY-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "webplatform.accounts",
    "webplatform.catalog",
    "webplatform.submissions",
    "webplatform.authoring",
    "webplatform.leaderboard",
    "webplatform.monitoring",
    "webplatform.courses",
    "webplatform.explorer",
    "webplatform.practice",
    "webplatform.lti",
    "webplatform.api",
    "lti_tool",  # django-lti: platform registrations, deployments, the tool's keys, launches' ids
    "ninja",  # installed so that /api/docs serves Swagger UI from our static files, not a CDN
]

MIDDLEWARE = [
    "webplatform.api.errors.JsonErrorsMiddleware",  # /api/ errors are JSON, whoever answered them
    "django.middleware.security.SecurityMiddleware",
    # Outside the others, so that the answers they make themselves (400, 405, 503) carry it too.
    "csp.middleware.CSPMiddleware",
    # A view that meets a database that is away answers 503 with Retry-After (core.errors).
    "webplatform.core.errors.DatabaseUnavailableMiddleware",
    # A page view's refusal (4xx) is JSON to a JSON client, in the view's own words (core.errors).
    "webplatform.core.errors.JsonPageErrorsMiddleware",
    # A 405 with an empty body (require_POST and the like) becomes the site's page, or JSON.
    "webplatform.core.errors.RefusalsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # NUL bytes and text that is not UTF-8 are a 400 here, before any view (core.params); after
    # the session so that the 400 page's bar is the visitor's own.
    "webplatform.core.errors.BadInputMiddleware",
    "webplatform.core.timezones.TimezoneMiddleware",  # deadlines in the reader's time zone
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# Content-Security-Policy (django-csp): scripts and styles come from the site's own files only, no
# inline script, no inline style, no eval. A statement is sanitized (catalog.rendering); this is
# the wall behind it, so that a hole in the sanitizer still runs nothing. The one exception is the
# editor's <style> (CodeMirror writes its styles at run time): it carries the page's nonce, which
# the <script> of vendor/editor.js hands it (``request.csp_nonce``; pages without the editor have
# no nonce in their policy). Images may come from
# https (a statement may show one); KaTeX's fonts and Swagger UI's icons are files or data: URLs.
# No frame-ancestors nor form-action: LTI platforms frame the tool, and a deep linking answer is
# a form posted back to the platform.
from csp.constants import NONCE, NONE, SELF  # noqa: E402

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:", "https:"],
        "font-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
    },
}

ROOT_URLCONF = "webplatform.urls"
WSGI_APPLICATION = "webplatform.wsgi.application"
ASGI_APPLICATION = "webplatform.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "webplatform" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            # {% url %} remembered per process (core.url_tag): the same text, without reversing
            # the same URL on every page; |options writes a select's options in one pass.
            "builtins": ["webplatform.core.url_tag", "webplatform.core.options_filter"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "webplatform.accounts.context_processors.perms",  # replaces auth's perms: one query, not two
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def database_from_url(url: str) -> dict:
    config = dj_database_url.parse(url, conn_max_age=60, conn_health_checks=True)
    if config["ENGINE"] == "django.db.backends.sqlite3":
        # The site, the workers and beat write to one file: WAL lets readers go on while one
        # writes, IMMEDIATE transactions take the write lock up front instead of failing with
        # "database is locked" on upgrade, and the timeout waits for the lock. A connection per
        # request, unless the server says its threads live on (SQLITE_CONN_MAX_AGE): a new
        # connection's first statement reads the whole schema, about 1.7 ms of CPU of a page's 8
        # (measured on the page benchmark's database). make run's pages' threads keep theirs
        # (devstack/front.py); the event streams' pool threads must not: kept there, a look
        # missed a verdict stored just before it, for seconds (measured by `make bench`).
        config["CONN_MAX_AGE"] = int(os.environ.get("SQLITE_CONN_MAX_AGE", "0"))
        config["OPTIONS"] = {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
    return config


if "DATABASE_URL" not in os.environ:
    (BASE_DIR / "var").mkdir(exist_ok=True)  # SQLite creates the file, not its folder
DATABASES = {
    "default": database_from_url(os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'var' / 'db.sqlite3'}")),
}
if os.environ.get("TEST_DATABASE_NAME"):
    # Test runs sharing one PostgreSQL server (two checkouts, CI beside a developer) each get
    # their own test database instead of dropping each other's.
    DATABASES["default"]["TEST"] = {"NAME": os.environ["TEST_DATABASE_NAME"]}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Password guessing is slowed (accounts.services.sign_in_failed): FAILURES wrong passwords for one
# account, or ADDRESS_FAILURES from one address (higher: a classroom shares one), within WINDOW_S
# lock it for LOCKOUT_S; the sign-in page then answers 429 with Retry-After, even to the right
# password. Invalid API tokens count under the address apart, up to TOKEN_FAILURES (a client that
# fuzzes its own API gets some wrong on purpose); the API then answers 429 to any token from it.
SIGN_IN_THROTTLE = {
    "FAILURES": int(os.environ.get("SIGN_IN_FAILURES", "5")),
    "ADDRESS_FAILURES": int(os.environ.get("SIGN_IN_ADDRESS_FAILURES", "30")),
    "TOKEN_FAILURES": int(os.environ.get("API_TOKEN_FAILURES", "50")),
    "WINDOW_S": int(os.environ.get("SIGN_IN_WINDOW_S", "900")),
    "LOCKOUT_S": int(os.environ.get("SIGN_IN_LOCKOUT_S", "300")),
}
# Password-reset mail: at most PER_EMAIL messages to one address and PER_ADDRESS requests from one
# client within WINDOW_S; past it the page answers as always and sends nothing (no account is
# revealed, no inbox flooded). Counted in accounts.SignInFailures under keys of their own.
PASSWORD_RESET_THROTTLE = {
    "PER_EMAIL": int(os.environ.get("PASSWORD_RESETS_PER_EMAIL", "3")),
    "PER_ADDRESS": int(os.environ.get("PASSWORD_RESETS_PER_ADDRESS", "10")),
    "WINDOW_S": int(os.environ.get("PASSWORD_RESET_WINDOW_S", "3600")),
}
# Sign-up: at most PER_ADDRESS accounts made from one client address within WINDOW_S (0: no limit);
# past it the page answers 429 with Retry-After and says why. A class behind one address that signs
# up together needs it higher (or its accounts made by LTI launches, which are not counted).
SIGN_UP_THROTTLE = {
    "PER_ADDRESS": int(os.environ.get("SIGN_UPS_PER_ADDRESS", "5")),
    "WINDOW_S": int(os.environ.get("SIGN_UP_WINDOW_S", "3600")),
}
# The link mailed at sign-up to verify an address works this long; until it is opened the site sends
# nothing else to that address (no password-reset mail).
EMAIL_VERIFICATION_MAX_AGE_S = int(os.environ.get("EMAIL_VERIFICATION_MAX_AGE_S", str(3 * 86400)))
# Mail (password reset links): SMTP where EMAIL_HOST names a server (EMAIL_PORT, EMAIL_HOST_USER,
# EMAIL_HOST_PASSWORD, EMAIL_USE_TLS beside it); otherwise each message is a file in EMAIL_FILE_PATH
# (var/mail/ by default), which the operator of `make run` reads; EMAIL_BACKEND overrides both (e.g.
# django.core.mail.backends.console.EmailBackend prints them in the log).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "").strip()
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_FILE_PATH = Path(os.environ.get("EMAIL_FILE_PATH", BASE_DIR / "var" / "mail"))
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND") or (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.filebased.EmailBackend"
)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Remat Arena <noreply@localhost>")

LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "practice:problem_list"
LOGOUT_REDIRECT_URL = "practice:problem_list"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
# The site is in English only (no LocaleMiddleware, no catalog of its own; Django's English
# catalogs translate nothing), so translation is off: each get_language() then reads this
# setting instead of a context-local, which url reversing and number and date formatting ask
# dozens of times per page (0.3-0.5 ms of CPU per page, `make bench`). The text is the same.
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "webplatform" / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed names after `collectstatic` (the launcher and the Dockerfile run it);
    # with DEBUG (runserver) plain names straight from the source folders.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "webplatform.core.static_files.RememberedURLStorage"  # whitenoise's, URLs remembered
    },
}

# Django's database sessions, loaded in one plain query instead of an ORM one (accounts.sessions).
SESSION_ENGINE = "webplatform.accounts.sessions"
# Django's ModelBackend, the user loaded in one plain SELECT (accounts/backends.py)
AUTHENTICATION_BACKENDS = ["webplatform.accounts.backends.ModelBackend"]
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
CSRF_FAILURE_VIEW = "webplatform.core.errors.csrf_failure"

# --- Celery (read by webplatform/celery.py with namespace CELERY_) ---------------------------
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_IGNORE_RESULT = True  # the database is the source of truth, not a result backend
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_DEFAULT_QUEUE = "cpu"
# Gradings and validations go to their problem's device queue and lane, named per message by the
# services (webplatform/core/queues.py: queue_for); the rest goes where these routes say.
CELERY_TASK_ROUTES = {
    # The sweep goes first in the learners' queue (no priority: read before any grading), so it
    # runs within seconds even behind a burst; a rejudge's requeueing is background work.
    "submissions.sweep": {"queue": CELERY_TASK_DEFAULT_QUEUE},
    "authoring.rejudge_submissions": {"queue": f"{CELERY_TASK_DEFAULT_QUEUE}.background"},
    # an exploration runs the judge many times over: never on a learner's grading worker, nor on the
    # background worker (validations, LTI passback, roster syncs): a queue and a worker of its own
    "explorer.explore": {"queue": f"{CELERY_TASK_DEFAULT_QUEUE}.explore"},
}
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # a long grading must not hold back messages another worker could take
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # An unacknowledged message returns to the queue after this long if its worker vanished;
    # the sweep acts long before (heartbeats, and queued rows missing from the broker).
    "visibility_timeout": 3600,
    # Lower priority numbers are read first (see core.queues): "Run samples" before submissions.
    "priority_steps": [0, 3, 6, 9],
    "queue_order_strategy": "priority",
    "socket_connect_timeout": 2,
}
SWEEP_EVERY_S = float(os.environ.get("SWEEP_EVERY_S", "3"))
CELERY_BEAT_SCHEDULE = {
    "sweep": {
        "task": "submissions.sweep",
        "schedule": SWEEP_EVERY_S,
        "options": {"expires": max(10.0, 3 * SWEEP_EVERY_S)},
    },
}

# LTI 1.3 launches keep their state and nonce here between the platform's redirects (pylti1p3's
# Django cache storage), which may reach different web processes: Redis, shared by all of them.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL, "KEY_PREFIX": "arena"}
}
# Grade passback to learning platforms is background work: nobody waits for it on a page.
CELERY_TASK_ROUTES["lti.send_score"] = {"queue": f"{CELERY_TASK_DEFAULT_QUEUE}.background"}
CELERY_TASK_ROUTES["lti.sweep_scores"] = {"queue": f"{CELERY_TASK_DEFAULT_QUEUE}.background"}
# and a roster sync from a platform: an instructor asks, and reads what changed on the course page
CELERY_TASK_ROUTES["lti.sync_roster"] = {"queue": f"{CELERY_TASK_DEFAULT_QUEUE}.background"}
# So is a course's similarity check: an instructor asks, and reads the ranking when it is ready.
CELERY_TASK_ROUTES["courses.similarity"] = {"queue": f"{CELERY_TASK_DEFAULT_QUEUE}.background"}
CELERY_BEAT_SCHEDULE["sweep-scores"] = {
    "task": "lti.sweep_scores",
    "schedule": float(os.environ.get("LTI_SWEEP_EVERY_S", "60")),
    "options": {"expires": 120},
}

# --- Grading --------------------------------------------------------------------------------
# Where workers unpack problem versions stored in the database before grading them.
PROBLEM_CACHE_DIR = Path(os.environ.get("PROBLEM_CACHE_DIR", BASE_DIR / "var" / "problem-cache"))
PROBLEMS_DIR = Path(os.environ.get("PROBLEMS_DIR", BASE_DIR / "problems"))
GRADING = {
    # A submission whose grading raised, or got internal_error from the judge, or whose worker
    # died, is tried this many times in all, then stored as internal_error.
    "MAX_ATTEMPTS": int(os.environ.get("GRADING_MAX_ATTEMPTS", "3")),
    "RETRY_DELAY_S": float(os.environ.get("GRADING_RETRY_DELAY_S", "2")),
    # Gradings of one learner published or running at once, per lane ("Run samples", submissions;
    # 0: no cap). The rest wait their turn in the database, so they queue behind each other.
    "PER_LEARNER_IN_FLIGHT": int(os.environ.get("GRADING_PER_LEARNER_IN_FLIGHT", "1")),
    # A worker refreshes its claim this often while grading; the sweep releases a claim silent
    # for longer than CLAIM_TIMEOUT_S (its worker is gone) ...
    "HEARTBEAT_EVERY_S": float(os.environ.get("GRADING_HEARTBEAT_EVERY_S", "2")),
    "CLAIM_TIMEOUT_S": float(os.environ.get("GRADING_CLAIM_TIMEOUT_S", "10")),
    # ... and publishes again a queued submission whose message is in no queue of the broker,
    # published longer ago than this (longer than the longest retry delay: such a message waits
    # in its worker, not in a queue).
    "REPUBLISH_AFTER_S": float(os.environ.get("GRADING_REPUBLISH_AFTER_S", "8")),
    # A sweep later than this after the previous one means the database was away (so were the
    # heartbeats): it releases nothing that time (see submissions.services.sweep).
    "SWEEP_GAP_S": 2 * SWEEP_EVERY_S,
    # How long a worker waits for a database that went away, in the middle of a grading, before
    # handing the message back to the broker.
    "DATABASE_PATIENCE_S": float(os.environ.get("GRADING_DATABASE_PATIENCE_S", "300")),
}

# Refused with a message that says so: more submissions ("Submit"), sample runs ("Run samples") or
# inspections ("Inspect") than these in any minute, each counted apart (0 switches one off), and
# code larger than this.
SUBMISSION_LIMITS = {
    "PER_MINUTE": int(os.environ.get("SUBMISSIONS_PER_MINUTE", "6")),
    "RUNS_PER_MINUTE": int(os.environ.get("RUNS_PER_MINUTE", "20")),
    "INSPECTS_PER_MINUTE": int(os.environ.get("INSPECTS_PER_MINUTE", "20")),
    "MAX_SOURCE_BYTES": MAX_SOURCE_BYTES,  # the judge's gate has the same (SUBMISSION_MAX_SOURCE_BYTES)
}

# Explorations (the policy explorer, page and API) one account may have waiting or running at once,
# and start within WINDOW_S (0 switches one off); past either the form and the API answer 429 with
# the reason and when to try again. Explorations refused for their input do not count.
EXPLORATIONS = {
    "IN_FLIGHT": int(os.environ.get("EXPLORATIONS_IN_FLIGHT", "1")),
    "PER_HOUR": int(os.environ.get("EXPLORATIONS_PER_HOUR", "20")),
    "WINDOW_S": int(os.environ.get("EXPLORATIONS_WINDOW_S", "3600")),
    # Seconds an exploration may spend compiling its plans one by one for XLA's own figures (the
    # "compiled peak" column): most of an exploration's CPU. 0 shows the judge's figures alone,
    # for a busy explore worker. Unset (None): the judge's own default, judge.explorer.explore.COMPILE_S.
    "COMPILE_S": float(os.environ["EXPLORATIONS_COMPILE_S"]) if os.environ.get("EXPLORATIONS_COMPILE_S") else None,
}

# Live status streams (/submissions/<id>/events/) one account may hold open at once, counted in
# Redis across the web processes (submissions.services.streams); past it a new one is refused with
# 429 and Retry-After (the page then polls the status instead). 0: no limit.
EVENT_STREAMS = {
    "PER_USER": int(os.environ.get("EVENT_STREAMS_PER_USER", "4")),
    "RETRY_AFTER_S": int(os.environ.get("EVENT_STREAMS_RETRY_AFTER_S", "30")),
}

# /metrics answers a scraper that sends "Authorization: Bearer <METRICS_TOKEN>" (and staff sessions).
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
