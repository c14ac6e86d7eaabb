from django.apps import AppConfig


class PdfsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "pdfs"
    verbose_name = "PDFs"

    def ready(self) -> None:
        from pdfs import signals  # noqa: F401  (a deleted PaperPdf takes its file with it)
