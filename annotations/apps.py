from django.apps import AppConfig


class AnnotationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "annotations"
    verbose_name = "Annotations"

    def ready(self) -> None:
        from annotations import (
            checks,  # noqa: F401  (registers the deploy checks)
            signals,  # noqa: F401  (anchored comments follow the abstract; export files their jobs)
        )
