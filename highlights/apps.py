from django.apps import AppConfig


class HighlightsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "highlights"
    verbose_name = "Highlights"
