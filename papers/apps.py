from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_search_sequence(using: str, **kwargs) -> None:
    """The search change log's counter row, created by a migration, is put back after a flush
    (which sends post_migrate too, as for content types), so a flushed database behaves as a
    migrated one from its first write on."""
    from papers.models_search import SEARCH_SEQUENCE_PK, SearchSequence

    SearchSequence.objects.using(using).get_or_create(pk=SEARCH_SEQUENCE_PK)


class PapersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "papers"
    verbose_name = "Catalogue"

    def ready(self) -> None:
        # Writes that change search documents record the change (see papers/signals.py).
        from papers import signals  # noqa: F401

        post_migrate.connect(_ensure_search_sequence, sender=self)
