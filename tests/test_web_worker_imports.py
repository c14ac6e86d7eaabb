"""A web worker loads what its pages need and no more (issue 29, point 9): scikit-learn,
scipy and numpy are for `compute_recommendations` alone, so loading every URL and view must not
import them (half a second and tens of MB in every worker)."""

from __future__ import annotations

import os
import subprocess
import sys

HEAVY = ("sklearn", "scipy", "numpy")


def test_loading_every_url_and_view_imports_no_numerical_library():
    code = (
        "import sys, django; django.setup(); "
        "from django.urls import get_resolver; get_resolver().url_patterns; "
        "import config.wsgi; "
        f"print(sorted(name for name in {HEAVY!r} if name in sys.modules))"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"
