"""Django settings of Scopa Arena, read from environment variables only.

The same code runs on one laptop and on a fleet; the environment chooses:

``ARENA_DATABASE_URL``
    ``sqlite:///path/to/db.sqlite3`` or ``postgresql://user:password@host:port/name``.
    Default: SQLite in ``$ARENA_DATA_DIR/arena.sqlite3``.
``ARENA_DB_HEALTH_CHECKS``
    ``1`` to check a kept PostgreSQL connection before each request's first query (a
    ``SELECT 1``; default off: a dropped connection fails one request and is replaced).
``ARENA_BROKER_URL``
    The Celery broker, e.g. ``redis://host:6379/0``. Unset: the embedded broker, kombu's
    ``filesystem://`` transport under ``$ARENA_DATA_DIR/broker`` (no server needed; the
    commands that need workers start local worker processes).
``ARENA_SECRET_KEY``
    Django's secret key. Unset: a random key is generated once and kept in
    ``$ARENA_DATA_DIR/secret_key``.
``ARENA_DEBUG``
    ``1``/``true`` for development (default off).
``ARENA_ALLOWED_HOSTS``
    Comma-separated host names (default ``localhost,127.0.0.1,[::1]``).
``ARENA_HTTPS``
    Whether the site is served over HTTPS (directly or behind a TLS proxy that sets
    ``X-Forwarded-Proto``): secure cookies, HSTS and the redirect to HTTPS. Default: on when
    ``ARENA_DEBUG`` is off. Set ``ARENA_HTTPS=0`` to serve plain HTTP on a trusted host.
``ARENA_CSRF_TRUSTED_ORIGINS``
    Comma-separated origins (``https://arena.example.org``) for forms behind a proxy.
``ARENA_DATA_DIR``
    Where this host's unpacked bots (uploaded archives live in the database), the embedded
    broker, logs and the default database live. Default: ``var/`` in the checkout.
``ARENA_STATIC_ROOT``
    Where ``collectstatic`` puts the site's static files (default ``$ARENA_DATA_DIR/static``).
``ARENA_LOG_LEVEL``
    The level of the arena's own loggers (default ``INFO``).
``ARENA_QUEUE``
    The name of the task queue (default ``arena``): deployments sharing one Redis keep apart.
``ARENA_BROKER_PREFIX``
    A prefix for every Redis key of the broker (default none): the queue, the unacknowledged
    messages, the bindings and the control channels of deployments (or test runs) that share
    one Redis are then wholly apart.
``ARENA_SANDBOX``
    ``1`` (default): every uploaded bot runs in bubblewrap, and a worker without it refuses;
    ``auto``: when bubblewrap is installed; ``0``: never (development only). The sample bots
    are trusted and run without it; without the sandbox, uploaded bots are refused
    (validation fails, matches are void, saying why) unless
``ARENA_UNSAFE_RUN_UPLOADS_UNSANDBOXED``
    is ``1``: uploaded bots then run unsandboxed, with every right of the worker's user. For a
    development machine running its owner's bots only (read by ``workers.sandbox_policy``).
``ARENA_MATCH_LEASE_S``
    How long a worker's claim on a match lasts without a heartbeat (default 20 seconds), by
    the database's clock. A worker that could not renew its lease for this long stops the
    match (it may be another worker's by then).
``ARENA_SWEEP_INTERVAL_S``
    How often celery beat runs the sweep that enqueues again what lost messages and dead or
    cut-off workers left behind (default 30 seconds): a dead worker's match is taken over
    within ``ARENA_MATCH_LEASE_S`` plus this.
``ARENA_TASK_TIME_LIMIT_S``
    Hard time limit of one task (default 3600); the soft limit is 60 seconds less.
``ARENA_PLAY_MOVE_TIME_MS``, ``ARENA_PLAY_BANK_MS``
    The person's clock in a game on the Play page (default 60000 a move, a bank of 900000);
    the bot gets the same. A move not made in its time forfeits the game (it is abandoned).
``ARENA_PLAY_QUEUE``
    The queue of Play games (default ``$ARENA_QUEUE-play``), served by ``arena worker --play``
    and never by the workers that play bot matches.
``ARENA_PLAY_SLOTS``
    Games one Play worker plays at once (default 16): threads, since a game mostly waits.
``ARENA_PLAY_GAMES_PER_USER``
    Play games one person may have waiting or under way at once (default 3).
``ARENA_PLAY_ABANDON_S``
    A game whose page has not been seen for this long is abandoned: forfeited by the person
    (default 30 seconds; the page checks in about once a second).
``ARENA_PLAY_START_TIMEOUT_S``
    A game no worker has started this long after it was asked for is ended, saying so
    (default 300).
``ARENA_LOGIN_FAILURES``, ``ARENA_LOGIN_COOLOFF_MIN``
    Failed logins (on ``/accounts/login/`` and ``/admin/login/``) an account, or a client
    address, may make before it is locked out, and for how long (default 5, 15 minutes):
    django-axes.
``ARENA_SIGNUPS_PER_HOUR``
    Accounts one client address may create per hour (default 5): django-ratelimit.
``ARENA_SPRT_PARALLEL``, ``ARENA_SPRT_MAX_YIELDS``
    Pairs of one version test played at once (default 2), and how many times in a row a pair
    waits (2 s each) behind a season's, the ladder's or a challenge's match before it is
    played anyway (default 30).
``ARENA_AUDIT_QUEUE``
    The queue of fair-play audits (default ``$ARENA_QUEUE-audit``), served by
    ``arena worker --audit`` and never by the workers that play matches.
``ARENA_FAIRPLAY_INTERVAL_S``, ``ARENA_FAIRPLAY_GAMES``
``ARENA_FAIRPLAY_ALPHA``, ``ARENA_FAIRPLAY_SAMPLES``
    How often celery beat queues an audit for each bot with new rated games (default 21600 s),
    the recent rated games one audit reads (50), its false-alarm rate (0.001) and the deals it
    samples per decision (32): docs/SECURITY.md, "Fair-play audit".
``ARENA_FAIRPLAY_MAX_YIELDS``
    Times in a row an audit waits (10 s each) behind the league's waiting matches before it
    runs anyway (default 360).
``ARENA_SPRT_TESTS_PER_USER``, ``ARENA_SPRT_TESTS_PER_BOT``
    Version tests running at once per user (default 3) and per bot (default 1).
``ARENA_SPRT_PAIRS_PER_TEST``, ``ARENA_SPRT_PAIRS_PER_USER``
    The most pairs one version test may ask for (default 2000), and pairs not yet started of
    one user's running tests together (default 3000).
``ARENA_UPLOADS_PER_HOUR``, ``ARENA_UPLOADS_PER_DAY``
    Archives one user may upload (the API and the pages, refused ones counted too) per hour
    (default 20) and per day (default 100).
``ARENA_EXPORT_PAGES_PER_MINUTE``, ``ARENA_EXPORT_MAX_LIMIT``
    Pages of ``/api/games/export`` one client (a token's user, else an address) may ask for
    per minute (default 30: django-ratelimit), and the most games one page holds (default
    2000).
``ARENA_TRUSTED_PROXIES``
    Comma-separated addresses or networks of the proxies in front of the site (default
    ``127.0.0.1,::1``: nginx on this host, as ``arena web --production`` runs it). Only a
    request from one of them has its ``X-Forwarded-For`` believed, to find the client's
    address for the throttles above.
``ARENA_CACHE_URL``
    Where workers publish the moves of the matches they play for the live pages (the
    ``live`` cache), and where the site keeps what its processes share (the ``reads`` of its
    pages, the ``frames`` of recorded games, the signup counters), each under its own key
    prefix: a ``redis://`` URL. Unset: the broker's Redis when ``ARENA_BROKER_URL`` is one, else
    files under ``$ARENA_DATA_DIR/live`` (and ``reads``, ``frames``, ``limits``: the embedded
    setup's site and local workers share those folders).
``ARENA_LADDER_VARIANTS``
    Space-separated variants (two sides) that have a continuous ladder: a RULES.md preset,
    or a preset with option overrides (``scopa:target=21,napola=true``). Default ``scopa scopone``;
    empty for none.
``ARENA_LADDER_CAP_PER_HOUR``
    Ladder matches a bot version may start per hour (default 20).
``ARENA_LADDER_BACKLOG``
    Ladder matches open (queued or playing) at once per variant (default 2): the scheduler
    tops the queue up to this, so a challenge never waits behind more.
``ARENA_LADDER_INTERVAL_S``
    How often celery beat runs the ladder scheduler (default 10 seconds).
``ARENA_CHALLENGES_PER_HOUR``
    Challenges one user may ask for per hour (default 10).
``ARENA_CHALLENGES_OPEN_PER_BOT``
    Challenges one bot may play in (either side) waiting or under way at once (default 3).

This module holds configuration only; the logic lives in the apps.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import secrets
from pathlib import Path
from urllib.parse import unquote, urlsplit

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name: str, default: bool) -> bool:
    """A boolean environment variable: 1/true/yes/on or 0/false/no/off."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"{name}={value!r}: expected 1/true/yes/on or 0/false/no/off")


def env_list(name: str, default: str) -> list[str]:
    """A comma-separated environment variable as a list of non-empty items."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def database_from_url(url: str) -> dict[str, object]:
    """Django's ``DATABASES['default']`` for a ``sqlite:///`` or ``postgresql://`` URL."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        # sqlite:///relative/to/checkout.sqlite3 or sqlite:////absolute/path.sqlite3
        path = unquote(url[len("sqlite://") :].split("?", 1)[0])
        path = path[1:] if path.startswith("/") else path
        if not path:
            raise ValueError(f"ARENA_DATABASE_URL={url!r}: no file name for SQLite")
        if not Path(path).is_absolute():
            path = str(BASE_DIR / path)
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": path,
            # Workers and the site write at once: wait for the lock instead of failing.
            # WAL: the site reads while workers write.
            "OPTIONS": {
                "timeout": 30,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    if parts.scheme in {"postgres", "postgresql", "pgsql"}:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parts.path.lstrip("/")) or "arena",
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
            # A web thread keeps its connection for ten minutes, and a request pays no
            # health check (a `SELECT 1` before its first query): a connection the server
            # dropped fails one request, then is closed and opened afresh. Behind a pooler
            # that drops idle connections, ARENA_DB_HEALTH_CHECKS=1 checks each request.
            "CONN_MAX_AGE": 600,
            "CONN_HEALTH_CHECKS": env_flag("ARENA_DB_HEALTH_CHECKS", False),
            # The session's time zone from the start: no set_config() on each new connection.
            "OPTIONS": {"options": "-c TimeZone=UTC"},
        }
    raise ValueError(
        f"ARENA_DATABASE_URL={url!r}: expected sqlite:///file or postgresql://user@host/name"
    )


DEBUG = env_flag("ARENA_DEBUG", False)
DATA_DIR = Path(os.environ.get("ARENA_DATA_DIR") or BASE_DIR / "var").resolve()
ARENA_DATA_DIR = DATA_DIR
ARENA_ARCHIVES_DIR = DATA_DIR / "archives"  # archives of older uploads (manage.py load_archives)
ARENA_BOTS_DIR = DATA_DIR / "bots"  # this host's unpacked bot versions, one folder per sha256
ARENA_LOGS_DIR = DATA_DIR / "logs"  # bot logs of validation games and matches
ARENA_REPLAYS_DIR = DATA_DIR / "replays"  # scratch space of the runner
ARENA_BROKER_DIR = DATA_DIR / "broker"  # the embedded broker's messages
DATA_DIR.mkdir(parents=True, exist_ok=True)


def _secret_key() -> str:
    key = os.environ.get("ARENA_SECRET_KEY", "")
    if key:
        return key
    path = DATA_DIR / "secret_key"
    if not path.exists():
        # Written once, readable by the owner only; every process of this data dir shares it.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


try:
    SECRET_KEY = _secret_key()
except FileExistsError:  # another process created it between the check and the open
    SECRET_KEY = (DATA_DIR / "secret_key").read_text().strip()

ALLOWED_HOSTS = env_list("ARENA_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("ARENA_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",  # django-axes: failed logins per account and per client address
    "webui.league",
    "webui.web",
    "webui.play",
    "webui.training",
    "webui.fairplay",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # An ETag on every GET answer that has none, and a 304 when the request already holds it
    # (webui.web.http_cache marks what never changes immutable itself).
    "django.middleware.http.ConditionalGetMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Query strings and form fields with a NUL, a lone surrogate (or, in a query, a control
    # character) are a 400 before any view (webui.league.inputs).
    "webui.web.middleware.InputCheckMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its answer (429).
    "axes.middleware.AxesMiddleware",
]

# Logins go through django-axes first: it refuses an account, or a client address, that failed
# ARENA_LOGIN_FAILURES times within the cool-off, even with the right password.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "webui.urls"
WSGI_APPLICATION = "webui.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "webui.web.notifications.context",
            ],
        },
    },
]

DATABASES = {
    "default": database_from_url(
        os.environ.get("ARENA_DATABASE_URL") or f"sqlite:///{DATA_DIR / 'arena.sqlite3'}"
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("ARENA_STATIC_ROOT") or DATA_DIR / "static")
with contextlib.suppress(OSError):  # whitenoise warns about a missing folder
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedStaticFilesStorage"
    },
}
MEDIA_ROOT = DATA_DIR / "media"
# Uploads larger than this are refused before they reach a view (bot archives are small).
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# Security: strict whenever the site is served over HTTPS (the default in production).
HTTPS = env_flag("ARENA_HTTPS", not DEBUG)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = 31_536_000 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "webui.log.StderrHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("ARENA_LOG_LEVEL", "WARNING")},
    "loggers": {
        "arena": {"level": os.environ.get("ARENA_LOG_LEVEL", "INFO"), "propagate": True},
        "workers": {"level": os.environ.get("ARENA_LOG_LEVEL", "INFO"), "propagate": True},
        # The embedded broker has no host name, which kombu finds worth a warning each time.
        "kombu.connection": {"level": "ERROR"},
    },
}

# The queue (read by webui.league.queue).
ARENA_BROKER_URL = os.environ.get("ARENA_BROKER_URL", "")
ARENA_EMBEDDED_BROKER = not ARENA_BROKER_URL
ARENA_QUEUE = os.environ.get("ARENA_QUEUE", "arena")
ARENA_BROKER_PREFIX = os.environ.get("ARENA_BROKER_PREFIX", "")
ARENA_MATCH_LEASE_S = float(os.environ.get("ARENA_MATCH_LEASE_S", "20"))
ARENA_SWEEP_INTERVAL_S = float(os.environ.get("ARENA_SWEEP_INTERVAL_S", "30"))
ARENA_TASK_TIME_LIMIT_S = int(os.environ.get("ARENA_TASK_TIME_LIMIT_S", "3600"))
ARENA_PLAY_MOVE_TIME_MS = int(os.environ.get("ARENA_PLAY_MOVE_TIME_MS", "60000"))
ARENA_PLAY_BANK_MS = int(os.environ.get("ARENA_PLAY_BANK_MS", "900000"))
ARENA_PLAY_QUEUE = os.environ.get("ARENA_PLAY_QUEUE", "")  # empty: ARENA_QUEUE + "-play"
ARENA_PLAY_SLOTS = int(os.environ.get("ARENA_PLAY_SLOTS", "16"))
ARENA_PLAY_GAMES_PER_USER = int(os.environ.get("ARENA_PLAY_GAMES_PER_USER", "3"))
ARENA_PLAY_ABANDON_S = float(os.environ.get("ARENA_PLAY_ABANDON_S", "30"))
ARENA_PLAY_START_TIMEOUT_S = float(os.environ.get("ARENA_PLAY_START_TIMEOUT_S", "300"))


def live_cache(
    cache_url: str,
    broker_url: str,
    prefix: str,
    data_dir: Path,
    name: str = "live",
    timeout: int = 3600,
) -> dict[str, object]:
    """A cache every process shares (the ``live`` one by default): Redis when one is
    configured, else files under ``data_dir/name``, which every local process shares.
    ``timeout``: seconds an entry is kept."""
    url = cache_url or (broker_url if broker_url.startswith(("redis://", "rediss://")) else "")
    if url:
        return {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": f"{prefix}arena-{name}",
            "TIMEOUT": timeout,
        }
    return {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(data_dir / name),
        "TIMEOUT": timeout,
        "OPTIONS": {"MAX_ENTRIES": 2000},
    }


CACHES = {
    # Each process's own: cached parts of pages (never shared state).
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    # Shared by every process of the site: the viewer's frames of recorded games, computed
    # once (webui.web.http_cache; a game never changes), kept a day after they were made.
    "frames": live_cache(
        os.environ.get("ARENA_CACHE_URL", ""),
        ARENA_BROKER_URL,
        ARENA_BROKER_PREFIX,
        DATA_DIR,
        "frames",
        timeout=86_400,
    ),
    # Shared between the workers that play matches and the site that shows them live.
    "live": live_cache(
        os.environ.get("ARENA_CACHE_URL", ""), ARENA_BROKER_URL, ARENA_BROKER_PREFIX, DATA_DIR
    ),
    # Shared by every process of the site: the signup counters (django-ratelimit). Redis
    # counts atomically; the embedded setup's files are shared too, but two signups in the same
    # instant may both be counted as the last one allowed.
    "limits": live_cache(
        os.environ.get("ARENA_CACHE_URL", ""),
        ARENA_BROKER_URL,
        ARENA_BROKER_PREFIX,
        DATA_DIR,
        "limits",
    ),
    # Shared by every process of the site: the pages' reads (leaderboards, bots, seasons, the
    # home page), keyed by the versions of their scopes (webui.web.read_cache).
    "reads": live_cache(
        os.environ.get("ARENA_CACHE_URL", ""),
        ARENA_BROKER_URL,
        ARENA_BROKER_PREFIX,
        DATA_DIR,
        "reads",
    ),
}

# Throttles (docs/SECURITY.md, "The site"): failed logins by django-axes, signups by
# django-ratelimit, both keyed on the client's address behind the trusted proxies.
ARENA_LOGIN_FAILURES = int(os.environ.get("ARENA_LOGIN_FAILURES", "5"))
ARENA_LOGIN_COOLOFF_MIN = float(os.environ.get("ARENA_LOGIN_COOLOFF_MIN", "15"))
ARENA_SIGNUPS_PER_HOUR = int(os.environ.get("ARENA_SIGNUPS_PER_HOUR", "5"))
ARENA_EXPORT_PAGES_PER_MINUTE = int(os.environ.get("ARENA_EXPORT_PAGES_PER_MINUTE", "30"))
ARENA_EXPORT_MAX_LIMIT = int(os.environ.get("ARENA_EXPORT_MAX_LIMIT", "2000"))
ARENA_TRUSTED_PROXIES = env_list("ARENA_TRUSTED_PROXIES", "127.0.0.1,::1")
for _proxy in ARENA_TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ValueError(
            f"ARENA_TRUSTED_PROXIES: {_proxy!r} is not an address or a network (such as 10.0.0.0/8)"
        ) from None
AXES_FAILURE_LIMIT = ARENA_LOGIN_FAILURES
AXES_COOLOFF_TIME = datetime.timedelta(minutes=ARENA_LOGIN_COOLOFF_MIN)
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one locks
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "webui.web.client_ip.client_ip"
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_DISABLE_ACCESS_LOG = True  # failures are what the lockout counts; successes need no row
AXES_VERBOSE = False
RATELIMIT_USE_CACHE = "limits"

# The continuous ladder and challenges (webui.league.ladder, webui.league.challenges).
ARENA_LADDER_VARIANTS = [
    v for v in os.environ.get("ARENA_LADDER_VARIANTS", "scopa scopone").split() if v
]
ARENA_LADDER_CAP_PER_HOUR = int(os.environ.get("ARENA_LADDER_CAP_PER_HOUR", "20"))
ARENA_LADDER_BACKLOG = int(os.environ.get("ARENA_LADDER_BACKLOG", "2"))
ARENA_LADDER_INTERVAL_S = float(os.environ.get("ARENA_LADDER_INTERVAL_S", "10"))
ARENA_CHALLENGES_PER_HOUR = int(os.environ.get("ARENA_CHALLENGES_PER_HOUR", "10"))
ARENA_CHALLENGES_OPEN_PER_BOT = int(os.environ.get("ARENA_CHALLENGES_OPEN_PER_BOT", "3"))
# Version tests (webui.training): pairs of one test in flight at once, and how many times in a
# row a pair waits behind a match of the league before it is played anyway (2 s each).
ARENA_SPRT_PARALLEL = int(os.environ.get("ARENA_SPRT_PARALLEL", "2"))
ARENA_SPRT_MAX_YIELDS = int(os.environ.get("ARENA_SPRT_MAX_YIELDS", "30"))
# Fair-play audits (webui.fairplay, docs/SECURITY.md "Fair-play audit"): their own queue (default
# $ARENA_QUEUE-audit, served by `arena worker --audit`), how often bots with new rated games are
# queued, recent games per audit, the false-alarm rate per audit and sampled deals per decision.
ARENA_AUDIT_QUEUE = os.environ.get("ARENA_AUDIT_QUEUE", "")
ARENA_FAIRPLAY_INTERVAL_S = float(os.environ.get("ARENA_FAIRPLAY_INTERVAL_S", "21600"))
ARENA_FAIRPLAY_GAMES = int(os.environ.get("ARENA_FAIRPLAY_GAMES", "50"))
ARENA_FAIRPLAY_ALPHA = float(os.environ.get("ARENA_FAIRPLAY_ALPHA", "0.001"))
ARENA_FAIRPLAY_SAMPLES = int(os.environ.get("ARENA_FAIRPLAY_SAMPLES", "32"))
ARENA_FAIRPLAY_MAX_YIELDS = int(os.environ.get("ARENA_FAIRPLAY_MAX_YIELDS", "360"))
# Work limits per user (docs/SECURITY.md, "Work limits per user"): a 429 beyond each.
ARENA_SPRT_TESTS_PER_USER = int(os.environ.get("ARENA_SPRT_TESTS_PER_USER", "3"))
ARENA_SPRT_TESTS_PER_BOT = int(os.environ.get("ARENA_SPRT_TESTS_PER_BOT", "1"))
ARENA_SPRT_PAIRS_PER_TEST = int(os.environ.get("ARENA_SPRT_PAIRS_PER_TEST", "2000"))
ARENA_SPRT_PAIRS_PER_USER = int(os.environ.get("ARENA_SPRT_PAIRS_PER_USER", "3000"))
ARENA_UPLOADS_PER_HOUR = int(os.environ.get("ARENA_UPLOADS_PER_HOUR", "20"))
ARENA_UPLOADS_PER_DAY = int(os.environ.get("ARENA_UPLOADS_PER_DAY", "100"))
