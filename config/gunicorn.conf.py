"""Gunicorn settings for `make serve` (gunicorn -c config/gunicorn.conf.py config.wsgi).

Every value can be changed from the environment; the README's configuration table lists them.
"""

from __future__ import annotations

import gc
import multiprocessing
import os


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"{name}: expected an integer, got {raw!r}") from None


bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")

# Cores + 1, capped. A page is CPU work (search index, templates) with the database on the same
# host, not waiting on the network, so gunicorn's usual 2 x cores + 1 only makes the workers
# take turns: `make load` on 2 cores gave 74 requests/s with 3 workers against 63 with 5
# (SQLite; PostgreSQL 69-71 against 62). Each worker holds its own database connection, and past
# a dozen workers a single host is better served by more hosts behind the load balancer.
workers = _env_int("WEB_CONCURRENCY", min(multiprocessing.cpu_count() + 1, 12))
# More than one thread switches gunicorn to its threaded worker (one DB connection per thread).
threads = _env_int("GUNICORN_THREADS", 1)

# A page that takes longer than this is stuck; the worker is killed and replaced.
timeout = _env_int("GUNICORN_TIMEOUT", 30)
# On restart or shutdown, requests in flight get this long to finish.
graceful_timeout = _env_int("GUNICORN_GRACEFUL_TIMEOUT", 30)
# Seconds to hold an idle keep-alive connection open for the load balancer's next request.
keepalive = _env_int("GUNICORN_KEEPALIVE", 5)

# Recycling workers now and then bounds any slow memory growth; jitter keeps them from all
# restarting at the same moment.
max_requests = _env_int("GUNICORN_MAX_REQUESTS", 1000)
max_requests_jitter = _env_int("GUNICORN_MAX_REQUESTS_JITTER", 100)

# Addresses of the proxies allowed to set X-Forwarded-Proto (gunicorn then marks the request
# https). Loopback by default; set it to the load balancer's address, never "*" on an open port.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")

# Access and error logs on stdout/stderr for the process supervisor; %(M)s is the request time
# in milliseconds.
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(f)s" "%(a)s"'

# Gunicorn 25+ opens a runtime-management socket at one fixed path per user, which several
# instances on a host would fight over and which nothing here uses: off unless asked for.
control_socket_disable = os.environ.get("GUNICORN_CONTROL_SOCKET", "") != "1"


def post_worker_init(worker) -> None:
    """Once a worker has loaded the site, it loads what its first request would otherwise wait
    for (config/warmup.py). Then its objects (some 160,000: Django, the apps, their modules)
    live as long as the worker: frozen, the collector never scans them again. Without it a
    full collection, about one every 150 list pages, took 90-104 ms of that page's time
    (100,000 papers, PostgreSQL: the slowest of 150 pages 121-145 ms, against 50-62 frozen)."""
    from config.warmup import warm_up  # the worker has set Django up by now (config.wsgi)

    warm_up()
    gc.freeze()
