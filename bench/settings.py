"""Production settings for benchmark servers, with static files collected under bench/out/.

Everything else comes from config.settings and the environment, exactly as in production; only
STATIC_ROOT moves, so a benchmark's collectstatic never races a `make serve` over staticfiles/.
"""

from __future__ import annotations

from config.settings import *  # noqa: F403
from config.settings import BASE_DIR

STATIC_ROOT = BASE_DIR / "bench" / "out" / "staticfiles"
