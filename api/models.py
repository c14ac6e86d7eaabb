"""A member's API tokens (docs/api.md): only the SHA-256 of each is stored, the token itself
is shown once, when it is made."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class TokenScope(models.TextChoices):
    READ = "read", "Read"
    WRITE = "write", "Read and write"


class ApiTokenQuerySet(models.QuerySet):
    def live(self) -> ApiTokenQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    # hex SHA-256 of the token: a stolen database holds no usable token.
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    # The token's first characters, shown on the tokens page to tell tokens apart.
    prefix = models.CharField(max_length=12, editable=False)
    scope = models.CharField(max_length=5, choices=TokenScope, default=TokenScope.READ)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        # The tokens page: one member's tokens.
        indexes = [models.Index(fields=["user", "-created_at"], name="api_token_user")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…) of {self.user}"

    @property
    def can_write(self) -> bool:
        return self.scope == TokenScope.WRITE
