from django.apps import AppConfig


class SemanticConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "semantic"
    verbose_name = "Search by meaning"

    def ready(self) -> None:
        from semantic import signals  # noqa: F401  (a changed title or abstract is re-embedded)
