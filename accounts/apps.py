from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Members and invitations"

    def ready(self) -> None:
        from accounts import signals  # noqa: F401
