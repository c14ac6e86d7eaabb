from django.apps import AppConfig


class SemanticConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "semantic"
    verbose_name = "Search by meaning"

    def ready(self) -> None:
        from papers.search import meaning
        from semantic import (
            available,
            providers,
            signals,  # noqa: F401  (a changed title or abstract is re-embedded)
        )

        # The list page and the paper page ask through papers.search.meaning; the semantic
        # app answers when its model loads (available), and they list words only otherwise.
        meaning.register(providers.nearest, providers.neighbours, available=available)
