"""Settings shared by every environment; everything site-specific comes from the environment."""

import os
from pathlib import Path

import dj_database_url
from celery.schedules import crontab

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


SECRET_KEY = os.environ.get("SECRET_KEY", "")
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "axes",
    "django_filters",
    "django_tables2",
    "core",
    "community",
    "keps",
    "releases",
    "github_sync",
    "retros",
    "meetings",
    "planning",
    "reminders",
    "upstream",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "api",
    # Before allauth: its templates (sign-in page, layout) are overridden in people/templates.
    "people",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.github",
]

MIDDLEWARE = [
    # First: the request id, the request's log line and metrics (core/logs.py), then the probes and /metrics, which
    # the kubelet and Prometheus ask by pod IP over HTTP, answered before the host check and the HTTPS redirect.
    "core.logs.RequestContextMiddleware",
    "core.middleware.OpsEndpointsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "core.middleware.RejectNulMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "core.middleware.LoginRequiredMiddleware",
    "core.page_cache.PageCacheMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into a 429 page.
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    # First: refuses logins from a locked-out user/address before the password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    # Sign in with GitHub (people/): links the account to the Person with the same handle; grants no role.
    "allauth.account.auth_backends.AuthenticationBackend",
]
# Admin login: locked for an hour after 5 failures for the same user name from the same address.
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = float(os.environ.get("AXES_COOLOFF_HOURS", "1"))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False


def shared_cache(redis_url: str) -> dict:
    """A cache every process sees (web, workers): Redis, with short timeouts so that a Redis outage costs a
    caller about a second, not a hung request; callers treat its errors as "unknown" and carry on."""
    return {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": redis_url,
        "KEY_PREFIX": "sigtracker",
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }


# Public pages are cached per process, keyed by the data generation (see core/page_cache.py).
# Local memory, not Redis: pages must keep working when Redis is down.
# "shared" holds state that must agree across processes, such as the stats debounce marks: the
# broker's Redis when there is one; without a broker, tasks run in-process and local memory is shared enough.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "default"},
    "pages": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "pages",
        "OPTIONS": {"MAX_ENTRIES": 500},
    },
    "shared": (
        shared_cache(os.environ["CELERY_BROKER_URL"])
        if os.environ.get("CELERY_BROKER_URL")
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "shared"}
    ),
}
SIGTRACKER_PAGE_CACHE_ALIAS = "pages"
SIGTRACKER_PAGE_CACHE_SECONDS = int(os.environ.get("SIGTRACKER_PAGE_CACHE_SECONDS", "300"))
# Stale while revalidate: how old a stale copy of a page may be and still be served while one request re-renders
# it; how long that request's re-render lock lasts should it die.
SIGTRACKER_PAGE_CACHE_STALE_SECONDS = int(os.environ.get("SIGTRACKER_PAGE_CACHE_STALE_SECONDS", "120"))
SIGTRACKER_PAGE_CACHE_LOCK_SECONDS = 30
# Paths (prefixes of `path_info`) never served from the page cache. /api/ does its own conditional requests (ETag,
# api/caching.py), answers by Accept header and must count each request against its rate limit: a cached copy would
# skip all three. A person's pages, sign-in and unsubscribe pages are nobody else's to be served from a cache.
SIGTRACKER_PAGE_CACHE_SKIPPED_PREFIXES = [
    "/admin/",
    "/healthz",
    "/static/",
    "/api/",
    "/me/",
    "/accounts/",
    "/unsubscribe/",
]
# How stale a process's view of the data generation may be, in seconds (saves one query per request).
SIGTRACKER_PAGE_CACHE_RECHECK = float(os.environ.get("SIGTRACKER_PAGE_CACHE_RECHECK", "1"))
# Apps whose tables the public pages read: a write to any of their tables but the unwatched ones makes cached pages
# stale (database triggers, kept in sync with the models after every migrate). No page shows reminder deliveries,
# and reminder workers write them all the time.
SIGTRACKER_PAGE_CACHE_WATCHED_APPS = ["community", "keps", "releases", "retros", "meetings", "planning", "upstream"]
# What export_data writes and import_data reads (core/backup.py): every row a curator cares about; from auth only
# groups and users (permissions come from migrate).
SIGTRACKER_EXPORTED_MODELS = [
    "auth.group",
    "auth.user",
    "community",
    "keps",
    "releases",
    "retros",
    "meetings",
    "planning",
    "reminders",
    "people",
    "api",
    "admin.logentry",
]
# Rows migrations create (role groups, seeded SIG aliases): present in a fresh database, matched by natural key.
SIGTRACKER_MIGRATION_SEEDED_MODELS = ["auth.group", "community.sigalias"]
# The upstream refresh's run records: only the admin shows them (its sources' row, in every footer, is watched).
SIGTRACKER_PAGE_CACHE_UNWATCHED_TABLES = ["releases_reminderdelivery", "upstream_upstreamrun"]

# Private mode: every page needs a login (for a company running its own release train).
SIGTRACKER_REQUIRE_LOGIN = env_bool("SIGTRACKER_REQUIRE_LOGIN", False)

ROOT_URLCONF = "sigtracker.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "sigtracker" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # The footer's "upstream as of <date> (<short commit>)".
                "upstream.context_processors.upstream_freshness",
            ],
        },
    },
]

WSGI_APPLICATION = "sigtracker.wsgi.application"
ASGI_APPLICATION = "sigtracker.asgi.application"

# SQLite in the project folder unless DATABASE_URL says otherwise (PostgreSQL in production and CI).
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
        conn_health_checks=True,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Private mode sends visitors to sign in with GitHub (the page also takes the break-glass password login).
LOGIN_URL = "account_login"

# Sign in with GitHub (django-allauth, people/). An OAuth app's client id and secret; SIGTRACKER_GITHUB_OAUTH_URL is
# GitHub's web address (GitHub Enterprise: https://ghe.example.org, whose API allauth reads at /api/v3; tests point it
# at a local stand-in). SIGTRACKER_GITHUB_ORG: in private mode, only members of this org may sign in.
SIGTRACKER_GITHUB_ORG = os.environ.get("SIGTRACKER_GITHUB_ORG", "")
SOCIALACCOUNT_PROVIDERS = {
    "github": {
        "APP": {
            "client_id": os.environ.get("SIGTRACKER_GITHUB_CLIENT_ID", ""),
            "secret": os.environ.get("SIGTRACKER_GITHUB_CLIENT_SECRET", ""),
        },
        # read:org only to check SIGTRACKER_GITHUB_ORG membership (private memberships included).
        "SCOPE": ["read:user", "user:email", *(["read:org"] if SIGTRACKER_GITHUB_ORG else [])],
        "GITHUB_URL": os.environ.get("SIGTRACKER_GITHUB_OAUTH_URL", "https://github.com"),
        # Reads GITHUB_URL per request rather than once at import (allauth's own adapter).
        "provider_class": "people.github.provider.GitHubProvider",
    }
}
SOCIALACCOUNT_ADAPTER = "people.adapters.SocialAccountAdapter"
ACCOUNT_ADAPTER = "people.adapters.AccountAdapter"
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_QUERY_EMAIL = True
SOCIALACCOUNT_STORE_TOKENS = False
# Starting the OAuth dance takes a POST (with a CSRF token), so a link on another site cannot sign anyone in.
SOCIALACCOUNT_LOGIN_ON_GET = False
# Never log into an existing account because an email matches: only the GitHub account id links.
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_UNIQUE_EMAIL = False
LOGIN_REDIRECT_URL = "/me/"
ACCOUNT_LOGOUT_REDIRECT_URL = "/"
# One-click unsubscribe links (RFC 8058) in reminder emails stay valid this many days.
SIGTRACKER_UNSUBSCRIBE_MAX_AGE_DAYS = int(os.environ.get("SIGTRACKER_UNSUBSCRIBE_MAX_AGE_DAYS", "60"))
# The mailto of List-Unsubscribe: a mailbox a curator reads (sigtracker receives no mail); the sender by default.
SIGTRACKER_UNSUBSCRIBE_MAILTO = os.environ.get("SIGTRACKER_UNSUBSCRIBE_MAILTO", "")

# Email: SMTP when EMAIL_HOST is set, else the console (the demo prints what it would send).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT", "30"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "sigtracker <sigtracker@localhost>")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend"
)

# Celery: without a broker, tasks run eagerly in-process so the demo needs no Redis.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# With the broker down, publishing from a web request gives up within about two seconds (then the caller
# logs it and carries on) instead of hanging the page.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.5, "interval_max": 1}
# Countdowns and acks_late redeliveries must stay under Redis's visibility timeout.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
# Queues by urgency, so that a reminder never waits behind a GitHub sync or a stats run: each queue has a worker of
# its own (Procfile). `reminders`: freeze reminders and their delivery; `github`: the GitHub sync; `stats`: stats
# recomputes; `default`: everything else (beat's heartbeat, tasks not listed here).
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "reminders.tasks.send_due_freeze_reminders": {"queue": "reminders"},
    "reminders.tasks.deliver_reminders": {"queue": "reminders"},
    "github_sync.tasks.sync_github_current_release": {"queue": "github"},
    "retros.tasks.sync_action_items": {"queue": "github"},
    "releases.tasks.compute_release_stats": {"queue": "stats"},
    "releases.tasks.compute_all_release_stats": {"queue": "stats"},
    "core.tasks.beat_heartbeat": {"queue": "default"},
    "releases.tasks.refresh_release_states": {"queue": "default"},
    # The upstream refresh (git fetch and imports, minutes on a first run) has a queue and worker of its own.
    "upstream.tasks.refresh_upstream": {"queue": "imports"},
}
# Every task has time limits (tasks name tighter ones): past the soft limit the task gets SoftTimeLimitExceeded and
# cleans up (a sync releases its lock); past the hard limit the worker kills the child and starts another.
CELERY_TASK_SOFT_TIME_LIMIT = int(os.environ.get("CELERY_TASK_SOFT_TIME_LIMIT", "300"))
CELERY_TASK_TIME_LIMIT = int(os.environ.get("CELERY_TASK_TIME_LIMIT", "360"))
# GitHub sync: the most one sync may take, in seconds, requests and rate-limit waits included; past it the sync
# stops with one line (what was synced is kept) and the next beat resumes. Each request's deadline is within it.
GITHUB_SYNC_DEADLINE = float(os.environ.get("GITHUB_SYNC_DEADLINE", "300"))
# Retro boards: new items a person may add per window (count, seconds); past it the board and the API answer 429.
SIGTRACKER_RETRO_ITEM_RATE = (int(os.environ.get("SIGTRACKER_RETRO_ITEM_RATE", "30")), 3600)
# Where each SIG's retro action items are filed ("Open an issue"); "*" for every other SIG.
SIGTRACKER_RETRO_ISSUE_REPOSITORIES = {"sig-release": "kubernetes/sig-release", "*": "kubernetes/kubernetes"}
SIGTRACKER_BEAT_HEARTBEAT_SECONDS = int(os.environ.get("SIGTRACKER_BEAT_HEARTBEAT_SECONDS", "60"))
CELERY_BEAT_SCHEDULE = {
    # Freeze reminders: every 15 minutes, so a reminder is at most a quarter hour late.
    "send-freeze-reminders": {
        "task": "reminders.tasks.send_due_freeze_reminders",
        "schedule": crontab(minute="*/15"),
    },
    # Nightly at 03:10 UTC, a full recompute of every release's stats (catches admin edits made in bulk).
    "compute-all-release-stats": {
        "task": "releases.tasks.compute_all_release_stats",
        "schedule": crontab(hour=3, minute=10),
    },
    # Every SIGTRACKER_BEAT_HEARTBEAT_SECONDS, beat's proof of life for /healthz (stale after two intervals); a
    # heartbeat older than one interval is dropped, so a backlog after an outage cannot pass for a live beat.
    "beat-heartbeat": {
        "task": "core.tasks.beat_heartbeat",
        "schedule": SIGTRACKER_BEAT_HEARTBEAT_SECONDS,
        "options": {"expires": SIGTRACKER_BEAT_HEARTBEAT_SECONDS},
    },
    # Every 15 minutes (at :07, :22, ... to stay clear of the reminders' quarter hours), the current release's
    # tracked set from its GitHub tracking issues; an unchanged re-sync costs only free 304s. Skipped, with a
    # log line, while GITHUB_TOKEN is unset.
    "sync-github-current-release": {
        "task": "github_sync.tasks.sync_github_current_release",
        "schedule": crontab(minute="7-59/15"),
        "options": {"expires": 15 * 60},
    },
    # Daily at 05:37 UTC, retro action items follow their linked GitHub issues (closed → done or dropped).
    "sync-retro-action-items": {
        "task": "retros.tasks.sync_action_items",
        "schedule": crontab(hour=5, minute=37),
        "options": {"expires": 24 * 60 * 60},
    },
    # Hourly at :01, each release's stored state (planning, active, released) follows its dates; pages that name
    # the current release read the dates themselves, this keeps lists, filters and the API in step.
    "refresh-release-states": {
        "task": "releases.tasks.refresh_release_states",
        "schedule": crontab(minute=1),
        "options": {"expires": 60 * 60},
    },
    # Hourly at :41 (off the reminders' quarter hours; it runs on its own `imports` queue anyway), the upstream
    # repositories fetched and what changed since the last imported commit imported (upstream/services.py).
    "refresh-upstream": {
        "task": "upstream.tasks.refresh_upstream",
        "schedule": crontab(minute=41),
        "options": {"expires": 60 * 60, "queue": "imports"},
    },
}

# Reminder offsets before each freeze, in hours; a SIG may override them (Sig.reminder_offsets).
SIGTRACKER_REMINDER_OFFSETS_HOURS = [14 * 24, 7 * 24, 2 * 24, 24, 0]
# Hours before the exception window after a freeze closes at which a last reminder goes out.
SIGTRACKER_REMINDER_EXCEPTION_OFFSETS_HOURS = [24]
# A reminder is sent by the first beat within this many minutes after it falls due (covers a missed beat).
SIGTRACKER_REMINDER_GRACE_MINUTES = int(os.environ.get("SIGTRACKER_REMINDER_GRACE_MINUTES", "60"))
# After an outage (broker or beat down), a run sends reminders missed in this many past hours if their freeze
# is still ahead, and records those whose freeze has passed as skipped.
SIGTRACKER_REMINDER_CATCH_UP_HOURS = int(os.environ.get("SIGTRACKER_REMINDER_CATCH_UP_HOURS", "24"))
# A sender's claim on a delivery older than this is taken to be from a dead worker and handed out again;
# it must exceed the longest an SMTP send can take (twice EMAIL_TIMEOUT).
SIGTRACKER_REMINDER_LEASE_SECONDS = int(os.environ.get("SIGTRACKER_REMINDER_LEASE_SECONDS", "600"))
# First retry of a reminder after a transient SMTP failure; each further retry waits twice as long (max 10 min).
SIGTRACKER_REMINDER_RETRY_BACKOFF_SECONDS = float(os.environ.get("SIGTRACKER_REMINDER_RETRY_BACKOFF_SECONDS", "15"))
# A delivery the mail server refused (5xx) is handed out again by a later run after this many minutes, doubling
# each time, at most SIGTRACKER_REMINDER_REFUSED_RETRIES times and only while its freeze is ahead; then it waits for
# the admin's "Retry now".
SIGTRACKER_REMINDER_REFUSED_BACKOFF_MINUTES = int(os.environ.get("SIGTRACKER_REMINDER_REFUSED_BACKOFF_MINUTES", "30"))
SIGTRACKER_REMINDER_REFUSED_RETRIES = int(os.environ.get("SIGTRACKER_REMINDER_REFUSED_RETRIES", "3"))
# What people set for themselves that stops a personal note (reminders.consent asks these; the people app, above
# the reminders app, answers): each a callable `(*, address, offset_hours) -> str`, a skip reason or "".
SIGTRACKER_REMINDER_PREFERENCE_CHECKS = ["people.refusals.preference_refusal"]
# Stats recomputes queued after edits wait this long, so a burst of edits makes one job per release.
SIGTRACKER_STATS_DEBOUNCE_SECONDS = int(os.environ.get("SIGTRACKER_STATS_DEBOUNCE_SECONDS", "5"))
# The only origin Slack webhook URLs may point at (scheme://host[:port]); anything else is refused when saved and
# before each post. Tests point it at a local stand-in; a deployment has no reason to change it.
SIGTRACKER_SLACK_WEBHOOK_ORIGIN = os.environ.get("SIGTRACKER_SLACK_WEBHOOK_ORIGIN", "https://hooks.slack.com")
# Where the public site lives, for links in emails.
SIGTRACKER_BASE_URL = os.environ.get("SIGTRACKER_BASE_URL", "http://127.0.0.1:8000")
# GitHub sync (sync_github, beat): a token with public read access; the API (GitHub Enterprise and tests point
# it elsewhere); the repository of the KEP tracking issues.
GITHUB_TOKEN = os.environ.get("GITHUB_TOKEN", "")
GITHUB_API_URL = os.environ.get("GITHUB_API_URL", "https://api.github.com")
SIGTRACKER_GITHUB_REPO = os.environ.get("SIGTRACKER_GITHUB_REPO", "kubernetes/enhancements")

DJANGO_TABLES2_TEMPLATE = "django_tables2/table.html"

# Read API (/api/v1/, api/): JSON, read-only, documented at /api/v1/schema/. Anonymous reads are limited per IP
# (SIGTRACKER_API_ANON_RATE, "N/second|minute|hour|day"); a token (admin or `manage.py create_api_token`) lifts it.
SIGTRACKER_API_ANON_RATE = os.environ.get("SIGTRACKER_API_ANON_RATE", "120/minute")
# The throttle's counters: a cache every web process shares (see CACHES); if it is down, reads are not limited.
SIGTRACKER_API_THROTTLE_CACHE = "shared"
# Plan decisions per signed-in user through the API (POST /api/v1/plans/<version>/<sig>/decisions/).
SIGTRACKER_PLAN_DECISION_RATE = os.environ.get("SIGTRACKER_PLAN_DECISION_RATE", "60/minute")
# Cache-Control max-age of anonymous API answers, in seconds.
SIGTRACKER_API_MAX_AGE = int(os.environ.get("SIGTRACKER_API_MAX_AGE", "60"))
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.PublicReadOnly"],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.AnonymousIpThrottle"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": [],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.StableCursorPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Proxies in front that append to X-Forwarded-For; 0 reads the client from the socket (a header cannot fake it).
    "NUM_PROXIES": int(os.environ.get("SIGTRACKER_API_NUM_PROXIES", "0")),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "sigtracker API",
    "DESCRIPTION": "Read-only JSON over every table sigtracker shows: releases, tracked enhancements, status "
    "history, KEPs, feature gates, design groups, meetings, agenda items, retros, SIGs. Send `Authorization: Token "
    "<key>` to lift the anonymous rate limit (and, in private mode, to read at all).",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # The docs page's JavaScript is served from our static files, not a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.blank_strings_any_of",
    ],
    "ENUM_NAME_OVERRIDES": {
        "EnhancementStatusEnum": "releases.choices.EnhancementStatus",
        "ActionStatusEnum": "retros.choices.ActionStatus",
        # A retro line's category (every list) and a board item's (what people add on the board).
        "RetroCategoryEnum": "retros.choices.RetroCategory",
        "BoardCategoryEnum": "retros.choices.BOARD_CATEGORY_CHOICES",
        "KepStatusEnum": "keps.choices.KepStatus",
        # Release stats' `source` and `tracked_source` share one choice set.
        "StatsSourceEnum": "releases.choices.StatsSource",
        # An exception request's decision and a plan's decision are different choice sets under one field name.
        "ExceptionDecisionEnum": "releases.choices.ExceptionDecision",
        "PlanDecisionEnum": "planning.choices.PlanDecisionKind",
    },
}

# Metrics (core/metrics.py): /metrics answers loopback and these networks (comma-separated CIDRs: the cluster's pod
# network, where Prometheus scrapes from), 403 to anyone else. A Celery worker serves its pool's metrics on
# SIGTRACKER_METRICS_PORT (0: none). The collectors list the apps' metrics read from the database at scrape time.
SIGTRACKER_METRICS_ALLOWED_NETWORKS = env_list("SIGTRACKER_METRICS_ALLOWED_NETWORKS")
SIGTRACKER_METRICS_PORT = int(os.environ.get("SIGTRACKER_METRICS_PORT", "0"))
SIGTRACKER_METRICS_COLLECTORS = [
    "reminders.metrics.database_families",
    "github_sync.metrics.database_families",
    "upstream.metrics.database_families",
]
# More checks /healthz asks (core.health): dotted paths of callables returning (name, ok, state); not ok is
# "degraded: <name>" (still 200).
SIGTRACKER_HEALTH_CHECKS = ["upstream.health.upstream_health"]

# Upstream repositories sigtracker refreshes itself from (upstream/, docs/upstream.md): git URLs (https://,
# ssh:// or user@host:path; file:// only with SIGTRACKER_UPSTREAM_ALLOW_FILE=1); an empty value disables one.
SIGTRACKER_UPSTREAM_ENHANCEMENTS = os.environ.get(
    "SIGTRACKER_UPSTREAM_ENHANCEMENTS", "https://github.com/kubernetes/enhancements.git"
)
SIGTRACKER_UPSTREAM_SIG_RELEASE = os.environ.get(
    "SIGTRACKER_UPSTREAM_SIG_RELEASE", "https://github.com/kubernetes/sig-release.git"
)
SIGTRACKER_UPSTREAM_COMMUNITY = os.environ.get(
    "SIGTRACKER_UPSTREAM_COMMUNITY", "https://github.com/kubernetes/community.git"
)
# Where the clones live (a volume in the manifests; ~1 GB for the three).
SIGTRACKER_UPSTREAM_DIR = os.environ.get("SIGTRACKER_UPSTREAM_DIR", str(BASE_DIR / ".upstream"))
SIGTRACKER_UPSTREAM_ALLOW_FILE = env_bool("SIGTRACKER_UPSTREAM_ALLOW_FILE", False)
# /healthz says "degraded: upstream" when a source's last successful refresh is older than this (seconds).
SIGTRACKER_UPSTREAM_STALE_AFTER = int(os.environ.get("SIGTRACKER_UPSTREAM_STALE_AFTER", "21600"))
# The most one git fetch may take, in seconds (the first clone of kubernetes/community is ~300 MB).
SIGTRACKER_UPSTREAM_GIT_TIMEOUT = float(os.environ.get("SIGTRACKER_UPSTREAM_GIT_TIMEOUT", "900"))
# SIGs whose meeting-notes archives (<sig>/archive/*meeting-notes*.md in kubernetes/community) are imported.
SIGTRACKER_UPSTREAM_NOTES_SIGS = env_list("SIGTRACKER_UPSTREAM_NOTES_SIGS", "sig-node")
# How long a refresh waits for one already running before it skips (seconds).
SIGTRACKER_UPSTREAM_LOCK_WAIT = float(os.environ.get("SIGTRACKER_UPSTREAM_LOCK_WAIT", "5"))

# What upper apps show on lower apps' pages (core/panels.py), so that no app imports one above it: per page, the
# functions that fill its panels, called in this order with the page's keyword arguments.
SIGTRACKER_PAGE_PANELS = {
    # A KEP's timeline across releases, board row, checklist comment and exception requests; its meeting mentions.
    "keps:kep_detail": ["releases.panels.kep_detail", "meetings.panels.kep_detail"],
    # The perma-beta rows shown (releases/kep_views.py): authors, gates, latest meeting mention.
    "keps:perma_beta": ["meetings.panels.perma_beta_rows"],
    # The home page's latest meeting; a release page's meetings of its cycle.
    "releases:home": ["meetings.panels.home"],
    "releases:release_detail": ["meetings.panels.release_detail"],
}

# Logs to stderr: SIGTRACKER_LOG_FORMAT "human" (the default; production's is "json", one object per line with the
# request or task id, core/logs.py).
SIGTRACKER_LOG_FORMAT = os.environ.get("SIGTRACKER_LOG_FORMAT", "human")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "core.logs.ContextFilter"}},
    "formatters": {
        "json": {"()": "core.logs.JsonFormatter"},
        "human": {"()": "core.logs.HumanFormatter", "format": "%(levelname)s %(name)s: %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if SIGTRACKER_LOG_FORMAT == "json" else "human",
            "filters": ["context"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # django-axes logs every login at INFO; only lockouts (WARNING) are worth a line. httpx logs every request at
    # INFO: a GitHub sync makes hundreds every 15 minutes; its own summary says how many, retries and errors.
    "loggers": {"axes": {"level": "WARNING"}, "httpx": {"level": "WARNING"}},
}
# Celery workers and beat log through LOGGING above (JSON in production) instead of installing their own handler.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
