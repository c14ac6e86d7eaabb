from django.apps import AppConfig


class ZoteroConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "zotero"
    verbose_name = "Zotero group libraries"
