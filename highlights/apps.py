from django.apps import AppConfig


class HighlightsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "highlights"
    verbose_name = "Highlights"

    def ready(self) -> None:
        from annotations import export_notes
        from highlights.markdown_export import notes_for_export

        # A member's BibTeX `note` / RIS `N1` (`notes=mine`) carries their highlights too.
        export_notes.register(notes_for_export)
