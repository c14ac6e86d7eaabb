from django.apps import AppConfig


class PapersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "papers"
    verbose_name = "Catalogue"

    def ready(self) -> None:
        # Writes that change search documents record the change (see papers/signals.py).
        from papers import signals  # noqa: F401
