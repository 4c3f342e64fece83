"""Django settings for MASE. All configuration comes from environment variables via `config`."""

from __future__ import annotations

from mase_web import config

BASE_DIR = config.BASE_DIR
DATA_DIR = config.data_dir()
MASE_ENV = config.environment()
PRODUCTION = MASE_ENV == "production"

SECRET_KEY = config.secret_key(PRODUCTION)
DEBUG = config.env_bool("DEBUG", False)
if PRODUCTION and DEBUG:
    # Debug pages show settings, SQL and source to anyone who triggers an error.
    raise config.ConfigError("DEBUG must be off when MASE_ENV=production; unset DEBUG or set DEBUG=0")
ALLOWED_HOSTS = config.env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]"])
if PRODUCTION and not ALLOWED_HOSTS:
    raise config.ConfigError(
        "ALLOWED_HOSTS must list the host names MASE is served under when MASE_ENV=production"
    )
CSRF_TRUSTED_ORIGINS = config.env_list("CSRF_TRUSTED_ORIGINS", [])

SECURE_COOKIES = config.env_bool("SECURE_COOKIES", PRODUCTION)
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# HSTS is sent only on HTTPS requests; behind a TLS-terminating proxy, opt in to trusting its
# X-Forwarded-Proto (only safe when the proxy overwrites that header from clients).
if config.env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_SECONDS = config.env_int("SECURE_HSTS_SECONDS", 365 * 24 * 3600 if PRODUCTION else 0)

INSTALLED_APPS = [
    "daphne",
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
    "drf_spectacular_sidecar",  # Swagger UI served from our own origin (the CSP allows no CDN)
    "channels",
    "mase_web.accounts",
    "mase_web.realtime",
    "mase_web.runs",
    "mase_web.core",
    "mase_web.workflows",
    "mase_web.deployments",
    "mase_web.feedback",
    "mase_web.datasets",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "mase_web.core.security.ContentSecurityPolicyMiddleware",
    "mase_web.middleware.RefuseUnstorableQueryMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "mase_web.urls"
ASGI_APPLICATION = "mase_web.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "mase_web.core.navigation.navigation",
            ],
        },
    },
]

DATABASES = {"default": config.database_config()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Bigger request bodies are refused with a 400 (the largest team spec is 1 MB serialised).
DATA_UPLOAD_MAX_MEMORY_SIZE = config.env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 2 * 1024 * 1024)

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "mase_web" / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"

# --- Redis: Celery broker/results and the Channels layer share one server -----------------------
REDIS = config.redis_target()
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {"hosts": [REDIS.channels_host], "capacity": 5000, "expiry": 60},
    }
}

# The longest job a worker may run; Redis must not redeliver an unacked task before it ends.
CELERY_TASK_TIME_LIMIT = config.env_int("CELERY_TASK_TIME_LIMIT", 6 * 3600)
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 60
CELERY_BROKER_URL = REDIS.celery_url
CELERY_RESULT_BACKEND = REDIS.celery_url
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_TASK_TIME_LIMIT + 3600}
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = CELERY_BROKER_TRANSPORT_OPTIONS

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        "mase_web.api_filters.ScopedFilterBackend",  # ids in queries matched, never looked up
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "mase_web.api_schema.ErrorDocumentingAutoSchema",
    "EXCEPTION_HANDLER": "mase_web.api_errors.json_exception_handler",
    # Size limit, depth limit, and no text or number that a database cannot store (see api_parsers).
    "DEFAULT_PARSER_CLASSES": [
        "mase_web.api_parsers.LimitedJSONParser",
        "mase_web.api_parsers.CheckedFormParser",
        "mase_web.api_parsers.CheckedMultiPartParser",
    ],
}
SPECTACULAR_SETTINGS = {"TITLE": "MASE API", "VERSION": "1", "SERVE_INCLUDE_SCHEMA": False}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": config.os.environ.get("LOG_LEVEL", "INFO").upper()},
}

# --- Files a spec may name ------------------------------------------------------------------------
# A spec on this server names models and data files by name, resolved only in the shipped data and these
# directories (agents.places); a path in a spec is refused, so a spec never reaches the server's other files.
MODELS_DIR = config.env_path("MASE_MODELS_DIR", DATA_DIR / "models")
TICKETS_DIR = config.env_path("MASE_TICKETS_DIR", DATA_DIR / "tickets")
DATASETS_DIR = config.env_path("MASE_DATASETS_DIR", DATA_DIR / "datasets")  # one folder per environment

# --- Datasets (mase_web.datasets) -------------------------------------------------------------------
# The largest file a dataset upload takes (bytes) and the most rows it may hold; a bigger file is refused
# whole with a message naming the setting. 10,000 rows validate and split in a few seconds.
DATASET_MAX_BYTES = config.env_int_at_least("MASE_DATASET_MAX_BYTES", 20 * 1024 * 1024)
DATASET_MAX_ROWS = config.env_int_at_least("MASE_DATASET_MAX_ROWS", 100_000)
# Where a new routing deployment's scope gate starts (serving/scope.py: tickets outside the intent catalogue
# go to a person); each deployment then chooses on its page (docs/decisions/0040-scope-gate-per-deployment.md).
# Off while its in-scope cost is over one point (docs/decisions/0031-scope-floor-from-dev-anchors.md).
MASE_SCOPE_GATE = config.env_bool("MASE_SCOPE_GATE", False)

# --- Generation backends a deployment may use ------------------------------------------------------
# The hosts an openai_compatible writer may connect to and the environment variables that may hold its key
# (serving.generation.reach): the operator's choice, never a project member's. Empty by default, in
# development too: any default would be a host nobody chose, and the machine's own ports (Redis, PostgreSQL,
# a cloud's metadata address) are exactly what a member's URL must not reach. Listed e.g.
# MASE_GENERATION_HOSTS=127.0.0.1:8001,https://api.openai.com and MASE_GENERATION_KEY_ENVS=OPENAI_API_KEY.
GENERATION_REACH = config.generation_reach()

# --- Runs --------------------------------------------------------------------------------------
# A running run's worker renews its lease every few seconds; a lease older than this is a dead worker.
RUN_HEARTBEAT_TIMEOUT = config.env_int("RUN_HEARTBEAT_TIMEOUT", 30)
# A run whose worker dies this many times is failed instead of being requeued forever.
RUN_MAX_DELIVERIES = config.env_int("RUN_MAX_DELIVERIES", 3)
# Torch intra-op threads of a run. One run per worker process: torch's default (a thread per core)
# makes OpenMP threads spin against each other on a busy machine (a loaded 2-core box trained
# number_guess ~25x slower with 2 threads than with 1). Raise it on dedicated many-core CPU workers.
RUN_TORCH_THREADS = config.env_int("RUN_TORCH_THREADS", 1)

# --- The web server (`manage.py web`) -------------------------------------------------------------
# Processes serving HTTP and WebSockets on one listening socket (each its own GIL; the deployment row
# lock keeps a breaker consistent across them, the Redis channel layer carries events between them).
# Default under PostgreSQL: one per CPU this process may run on, at most 4 (each holds torch and its own
# copy of the teams it serves, ~0.8 GB with the default backbone). Under SQLite: one. SQLite lets one
# process write at a time, so a deployment's tickets spread over two processes waited for each other's
# micro-batches (fewer tickets/s than one process at 32 clients; bench/README.md, bench/web_tickets.py).
MASE_WEB_PROCESSES = config.env_int_at_least(
    "MASE_WEB_PROCESSES",
    1
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    else min(len(config.os.sched_getaffinity(0)), 4),
)
# Threads per process that run HTTP requests whole (mase_web/core/http_pool.py); 0: Django's own ASGI
# handler (a new thread per request). Tickets wait for their micro-batch on a thread, so keep it above
# MASE_TICKET_BATCH_MAX (32).
MASE_WEB_THREADS = config.env_int_at_least("MASE_WEB_THREADS", 64, minimum=0)

# --- Sign-in throttle and API docs (hardening) ---------------------------------------------------
# The cache lives in the project's Redis so every web process shares the sign-in failure counts.
# Never call cache.clear(): it is FLUSHDB on the database Celery's queues live in.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS.url,
        "KEY_PREFIX": "mase-cache",
        "OPTIONS": {"socket_connect_timeout": 3, "socket_timeout": 3},
    }
}
# Failed sign-ins (login page, /api/token/, admin) allowed per account from one client address, per
# address over all accounts, and per account over all addresses, within SIGNIN_THROTTLE_WINDOW seconds
# of the first one; further attempts get a 429 (see accounts/signin.py).
SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS = config.env_int_at_least(
    "SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS", 10
)
SIGNIN_FAILURES_PER_ADDRESS = config.env_int_at_least("SIGNIN_FAILURES_PER_ADDRESS", 30)
# High: reaching it locks the owner out too, which takes a guesser over 30 addresses at the defaults.
SIGNIN_FAILURES_PER_ACCOUNT = config.env_int_at_least("SIGNIN_FAILURES_PER_ACCOUNT", 1000)
SIGNIN_THROTTLE_WINDOW = config.env_int_at_least("SIGNIN_THROTTLE_WINDOW", 15 * 60)
# Reverse proxies in front of MASE that append the client address to X-Forwarded-For (0: none,
# the TCP peer is the client); the throttle counts per address the outermost proxy saw.
TRUSTED_PROXIES = config.env_int_at_least("TRUSTED_PROXIES", 0, minimum=0)

# Swagger UI's assets come from drf-spectacular-sidecar, not a CDN. In production the schema and
# the docs page need a signed-in user; in development they stay open.
SPECTACULAR_SETTINGS.update({"SWAGGER_UI_DIST": "SIDECAR", "SWAGGER_UI_FAVICON_HREF": "SIDECAR"})
if PRODUCTION:
    SPECTACULAR_SETTINGS["SERVE_PERMISSIONS"] = ["rest_framework.permissions.IsAuthenticated"]
