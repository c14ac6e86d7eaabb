import mimetypes

from django.apps import AppConfig


class PdfsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "pdfs"
    verbose_name = "PDFs"

    def ready(self) -> None:
        from pdfs import signals  # noqa: F401  (a deleted PaperPdf takes its file with it)

        # The reader's PDF.js files, for Django's own static view (`runserver --nostatic`,
        # django.views.static), which reads the system's MIME table; WhiteNoise has
        # WHITENOISE_MIMETYPES. A module script or a WebAssembly stream of another type is refused.
        mimetypes.add_type("text/javascript", ".mjs")
        mimetypes.add_type("application/wasm", ".wasm")
