from django.apps import AppConfig
from django.core.management import call_command
from django.db.models.signals import post_migrate


def create_cache_tables(using: str, **kwargs: object) -> None:
    """`manage.py migrate` alone leaves a working site: the database cache's table (CACHES:
    throttles, export slots, the outbound client's politeness) is made with the tables, as
    `createcachetable` makes it (a table that exists is left as it is)."""
    call_command("createcachetable", database=using, verbosity=0)


class OperationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "operations"
    verbose_name = "Operations"

    def ready(self) -> None:
        # Once per migrate: post_migrate is sent for every app, this receiver hears only ours.
        post_migrate.connect(create_cache_tables, sender=self)
