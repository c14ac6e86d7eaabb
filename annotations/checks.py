"""Deployment checks (`manage.py check --deploy`) for what accounts send out by e-mail."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import Tags, Warning, register

LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1"}


@register(Tags.security, deploy=True)
def check_site_url(app_configs, **kwargs) -> list[Warning]:
    host = urlsplit(settings.SITE_URL).hostname or ""
    if host not in LOOPBACK_HOSTS:
        return []
    return [
        Warning(
            f"SITE_URL is {settings.SITE_URL!r}: password-reset e-mails would link members to "
            "a loopback address.",
            hint="Set SITE_URL to the address members use, e.g. https://papers.example.org.",
            id="annotations.W001",
        )
    ]
